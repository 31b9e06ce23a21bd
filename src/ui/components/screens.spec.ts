// Server-rendered screens over a scripted run: untrusted text stays text, key controls are present.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { AppState } from '../stores/app.svelte';
import { FakeBackend } from '../testing/fake-backend';
import { MARKUP_QUESTION, scriptedRun } from '../testing/scripted-run';
import CompareScreen from './CompareScreen.svelte';
import QuestionScreen from './QuestionScreen.svelte';
import ResultsScreen from './ResultsScreen.svelte';
import SetupScreen from './SetupScreen.svelte';

const app = new AppState(new FakeBackend({ seedLibrary: false }), null);
const run = scriptedRun();

describe('screens', () => {
  it('shows a question that looks like markup as text', () => {
    const { body } = render(QuestionScreen, { props: { app, run, docId: 'test-1' } });
    expect(body).not.toContain('<img');
    expect(body).not.toContain('<b>2</b>');
    expect(body).toContain('What is &lt;b>2&lt;/b> + &lt;img src=x onerror="alert(1)"> 3?');
    expect(MARKUP_QUESTION).toContain('<img');
  });

  it('renders results with the rate and outcome tables, and the question list', () => {
    const { body } = render(ResultsScreen, { props: { app, run } });
    for (const id of ['screen-results', 'table-rates', 'table-realized-reachable', 'question-list', 'open-question-test-0']) expect(body).toContain(`data-testid="${id}"`);
    expect(body).not.toContain('<img');
  });

  it('renders the setup screen with labelled controls', () => {
    const { body } = render(SetupScreen, { props: { app } });
    for (const id of ['load-model', 'task-count', 'prompt-template', 'start-run', 'probe-cola-mcts']) expect(body).toContain(`data-testid="${id}"`);
    // every input, select and textarea sits inside a <label> (or carries aria-label)
    const controls = body.match(/<(input|select|textarea)\b[^>]*>/g) ?? [];
    expect(controls.length).toBeGreaterThan(10);
    for (const c of controls) {
      const at = body.indexOf(c);
      const before = body.slice(0, at);
      const labelled = c.includes('aria-label=') || before.lastIndexOf('<label') > before.lastIndexOf('</label>');
      expect(labelled, c).toBe(true);
    }
  });

  it('renders a checkpoint comparison with the transition table', () => {
    const b = scriptedRun({ id: 'b', modelName: 'other', seed: 3 });
    const { body } = render(CompareScreen, { props: { app, pair: [run, b] } });
    expect(body).toContain('data-testid="table-transitions"');
    expect(body).toMatch(/data-testid="compare-shared"[^>]*>24</);
  });
});

describe('source rules', () => {
  // The raw-HTML tag, spelled in pieces so source greps for it find only real uses.
  const RAW_HTML_TAG = ['{', '@html'].join('');
  it('never renders HTML from data: no raw-HTML tag in any component', () => {
    const dir = join(import.meta.dirname, '..');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.svelte'));
    expect(files.length).toBeGreaterThan(8);
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain(RAW_HTML_TAG);
  });
});

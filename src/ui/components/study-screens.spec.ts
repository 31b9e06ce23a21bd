// Server-rendered Study and Report screens: controls present, untrusted plan text stays text.

import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { type StudyReport } from '../../audit/study-report';
import { normalizePlan } from '../../audit/study-plan';
import { AppState } from '../stores/app.svelte';
import { TestBackend } from '../testing/test-backend';
import ReportScreen from './ReportScreen.svelte';
import SetupScreen from './SetupScreen.svelte';
import StudyScreen from './StudyScreen.svelte';

const TRANSITIONS = {
  realized: { realized: 4, 'reachable-only': 1, unreachable: 0 },
  'reachable-only': { realized: 2, 'reachable-only': 2, unreachable: 0 },
  unreachable: { realized: 0, 'reachable-only': 0, unreachable: 1 },
};
const EVIL = 'x/<img src=x onerror=alert(1)>';
const report: StudyReport = {
  plan: normalizePlan({ models: [EVIL], tasks: ['builtin:arith-2d'] }),
  plan_key: 'f'.repeat(64),
  name: `study of ${EVIL}`,
  settings: [
    {
      model: EVIL,
      task: 'builtin:arith-2d',
      run_keys: ['a'.repeat(64), 'b'.repeat(64)],
      questions: 10,
      realized: 0.5,
      reachable: { 'random-routes/blocks': 0.9, 'mcts-routes/blocks': 0.7 },
      cover: { 'random-routes/blocks': 0.5, 'mcts-routes/blocks': 0.4 },
      ceiling: { 'random-routes/blocks': 0.9, 'mcts-routes/blocks': 0.8 },
      reachable_decoy: { 'random-routes/blocks': 0.3, 'mcts-routes/blocks': 0.1 },
      ceiling_decoy: { 'random-routes/blocks': 0.4, 'mcts-routes/blocks': 0.2 },
      gold_minus_decoy: { 'random-routes/blocks': { diff: 0.6, ci: { lo: 0.3, hi: 0.8 }, mcnemar_p: 0.01 }, 'mcts-routes/blocks': { diff: 0.6, ci: { lo: 0.3, hi: 0.8 }, mcnemar_p: 0.01 } },
      attempts: { 'random-routes/blocks': 8, 'mcts-routes/blocks': 8 },
      random_minus_structured: { 'mcts-routes/blocks': { diff: 0.2, ci: { lo: 0, hi: 0.4 }, mcnemar_p: 0.1, random: 'random-routes/blocks', space: 'cola', random_space: 'blocks', preset: 'cola', matched_attempts: 8, random_reachable: 0.9, structured_reachable: 0.7, random_reachable_decoy: 0.3, structured_reachable_decoy: 0.1, depth_matched: null } },
      selectors: {},
    },
  ],
  f1: { settings: 1, comparisons: 1, random_ge_structured: 1, comparisons_random_ge: 1, depth_matched: { comparisons: 0, random_ge: 0 } },
  f2: { cases: [] },
  f3: { pairs: [] },
  missing: ['m · t · sampling'],
};
const withPair: StudyReport = {
  ...report,
  f3: {
    pairs: [
      {
        base: EVIL,
        trained: 'org/trained',
        task: 'builtin:arith-2d',
        run_keys: { base: ['a'.repeat(64)], trained: ['d'.repeat(64)] },
        questions: 10,
        deployed_delta: 0.1,
        deployed_ci: { lo: -0.1, hi: 0.3 },
        deployed_mcnemar_p: 0.5,
        ceiling_probe: 'random-routes/blocks',
        ceiling_delta: 0,
        ceiling_ci: { lo: -0.2, hi: 0.2 },
        ceilings: { 'random-routes/blocks': { diff: 0, ci: { lo: -0.2, hi: 0.2 }, mcnemar_p: 1, base: 0.9, trained: 0.9, base_decoy: 0.3, trained_decoy: 0.3, beyond_decoy: { diff: 0, ci: { lo: -0.2, hi: 0.2 } }, transitions: TRANSITIONS } },
        base_realized: 0.5,
        trained_realized: 0.6,
        transitions: TRANSITIONS,
      },
    ],
  },
};

describe('study screens', () => {
  const app = new AppState(new TestBackend(), null);

  it('the Study screen offers the presets, the plan editor and a start button', () => {
    const { body } = render(StudyScreen, { props: { app } });
    for (const id of ['screen-study', 'study-preset-builtin', 'study-preset-finding1', 'study-preset-finding3', 'study-plan', 'study-start', 'study-plan-summary']) expect(body).toContain(`data-testid="${id}"`);
    app.study.planText = JSON.stringify({ models: [EVIL], tasks: ['builtin:arith-2d'] });
    expect(render(StudyScreen, { props: { app } }).body).not.toContain('<img');
  });

  it('the home card states the built-in study\'s measured time, and the Study screen\'s estimate of it agrees within 2×', () => {
    const home = new AppState(new TestBackend(), null);
    const card = /data-testid="home-reproduce-box"[^>]*>([\s\S]*?)<button/.exec(render(SetupScreen, { props: { app: home } }).body)![1];
    const minutes = Number(/in about (\d+) minutes? on a 2-core laptop \(WebAssembly\)/.exec(card)![1]);
    home.study.usePreset('builtin');
    const estimate = /<p[^>]*data-testid="study-estimate"[^>]*>/.exec(render(StudyScreen, { props: { app: home } }).body)![0];
    const seconds = Number(/data-seconds="(\d+)"/.exec(estimate)![1]);
    expect(seconds / (minutes * 60)).toBeGreaterThanOrEqual(0.5);
    expect(seconds / (minutes * 60)).toBeLessThanOrEqual(2);
    // a plan of its own has no measured time here: no estimate before its first run is timed
    home.study.planText = JSON.stringify({ ...JSON.parse(home.study.planText), questions: 20 });
    expect(render(StudyScreen, { props: { app: home } }).body).not.toContain('data-testid="study-estimate"');
  });

  it('a plan the app cannot run (an unknown probe, a model or task named like an Object member) is drawn with its problem', () => {
    for (const plan of [
      { models: ['builtin:micro-arith'], tasks: ['builtin:arith-2d'], probes: [{ probe: 'evil' }] },
      { models: ['builtin:micro-arith'], tasks: ['builtin:arith-2d'], probes: [{ probe: '__proto__' }, { probe: 'toString' }] },
      { models: ['builtin:toString', 'builtin:__proto__'], tasks: ['builtin:toString', 'hub:constructor'] },
    ]) {
      app.study.planText = JSON.stringify(plan);
      const { body } = render(StudyScreen, { props: { app } });
      expect(body).toContain('data-testid="study-plan"');
      const problem = 'problem' in app.study.parsed ? app.study.parsed.problem : '';
      if (plan.probes) expect(problem).toContain('probe: expected one of');
    }
  });

  it('the Study screen has a form in step with the plan text, a Copy link button, and the link problem', () => {
    app.study.planText = JSON.stringify({ models: ['builtin:micro-arith-rl', 'Qwen/Qwen2.5-0.5B'], tasks: ['hub:gsm8k'], probes: [{ probe: 'sampling' }], budget: 12, scan: true });
    app.study.linkProblem = 'The study link is corrupt: its plan is not valid JSON.';
    const { body } = render(StudyScreen, { props: { app } });
    const input = (testid: string) => new RegExp(`<input[^>]*data-testid="${testid}"[^>]*>`).exec(body)?.[0] ?? '';
    expect(input('study-form-model-builtin:micro-arith-rl')).toContain('checked');
    expect(input('study-form-model-builtin:micro-arith')).not.toContain('checked');
    expect(input('study-form-task-hub:gsm8k')).toContain('checked');
    expect(input('study-form-probe-sampling')).toContain('checked');
    expect(input('study-form-probe-random-routes/blocks')).not.toContain('checked');
    expect(input('study-form-budget')).toContain('value="12"');
    expect(input('study-form-questions')).toContain('value="20"'); // omitted: the default shows
    expect(input('study-form-scan')).toContain('checked');
    expect(body).toContain('Qwen/Qwen2.5-0.5B'); // a listed Hub model can be unticked
    expect(body).toMatch(/<label for="study-plan">/);
    expect(body).toMatch(/<label[^>]*>Budget \(attempts per question\)\s*<input/);
    for (const id of ['study-copy-link', 'study-link-problem']) expect(body).toContain(`data-testid="${id}"`);
    expect(body).not.toMatch(/<fieldset[^>]*disabled[^>]*data-testid="study-form"/);

    app.study.planText = '{"models": [';
    app.study.linkProblem = null;
    const off = render(StudyScreen, { props: { app } }).body;
    expect(off).toMatch(/<fieldset[^>]*disabled[^>]*data-testid="study-form"/);
    expect(off).toContain('data-testid="study-form-disabled"');
    expect(off).toContain('data-testid="study-plan-problem"');
    expect(off).toMatch(/<button[^>]*disabled[^>]*data-testid="study-copy-link"/);
    app.study.usePreset('builtin');
  });

  it('the Report screen shows the F3 transition table and a button per run behind each row', () => {
    const { body } = render(ReportScreen, { props: { app, report: withPair } });
    expect(body).toContain('data-testid="table-study-f3-transitions"');
    expect(body).toContain('rows: the question in the base model, columns: in the trained model');
    for (const id of ['study-settings-0-0', 'study-settings-0-1', 'study-f1-0-0', 'study-f1-0-1', 'study-f3-0-0', 'study-f3-0-1', 'study-f3-transitions-2-1']) {
      expect(body).toContain(`data-testid="row-action-${id}"`);
    }
    expect(body).toContain(`aria-label="Open the questions of the trained, random-routes/blocks run (${'d'.repeat(12)})"`);
    expect(body).toContain('<th scope="col">Questions behind the row</th>');
    // detail columns wait for 'All columns'; names may break after '/' and ':'
    const header = (name: string) => new RegExp(`<th scope="col"( class="detail")?>(<!--[^>]*-->)*${name}(<!--[^>]*-->)*</th>`).exec(body)?.[1] ?? 'shown';
    expect(body).toContain('<table class="stacks brief"><caption>F1:');
    expect(body).toContain('data-testid="all-columns-study-f1"');
    expect([header('McNemar p'), header('depth-matched outcome')]).toEqual([' class="detail"', 'shown']);
    expect(body).toMatch(/random-routes\/(<!--[^>]*-->)*<wbr\/>/);
    expect(body).not.toContain('<img');
  });

  it('the Report screen shows each finding, says what is missing, and keeps names as text', () => {
    const { body } = render(ReportScreen, { props: { app, report } });
    for (const id of ['screen-study-report', 'table-study-f1', 'table-study-selectors', 'table-study-settings', 'study-report-missing', 'study-export-json', 'study-export-html', `study-run-${'a'.repeat(12)}`]) {
      expect(body).toContain(`data-testid="${id}"`);
    }
    // the verdict rule's sentences (audit/verdict.ts), one per finding, and the multiplicity sentence
    expect(body).toContain('data-testid="study-opening"');
    expect(body).toContain('This study shows that random-routes/blocks and mcts-routes/blocks reach the gold answer beyond their decoy');
    expect(body).toContain('Each search against its depth-matched walks where the run has them, else against uniform routes');
    expect(body).toContain('uniform routes not worse.');
    expect(body).toContain('No silencing scan was run');
    expect(body).toContain('The plan has no base/trained pairs, so Finding 3 has no verdict.');
    expect(body).toContain('This report makes 1 McNemar test; its p needs no adjustment');
    expect(body).not.toMatch(/0\.000|0\/0/);
    expect(body).not.toContain('<img');
    expect(body).toContain('&lt;img');
  });
});

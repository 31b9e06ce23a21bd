// Server-rendered Study and Report screens: controls present, untrusted plan text stays text.

import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import type { StudyReport } from '../../audit/study';
import { AppState } from '../stores/app.svelte';
import { FakeBackend } from '../testing/fake-backend';
import ReportScreen from './ReportScreen.svelte';
import StudyScreen from './StudyScreen.svelte';

const EVIL = 'x/<img src=x onerror=alert(1)>';
const report: StudyReport = {
  plan_key: 'f'.repeat(64),
  name: `study of ${EVIL}`,
  settings: [
    {
      model: EVIL,
      task: 'builtin:arith-2d',
      run_keys: ['a'.repeat(64)],
      questions: 10,
      realized: 0.5,
      reachable: { 'random-routes/blocks': 0.9, 'mcts-routes/blocks': 0.7 },
      ceiling: { 'random-routes/blocks': 0.9, 'mcts-routes/blocks': 0.8 },
      attempts: { 'random-routes/blocks': 8, 'mcts-routes/blocks': 8 },
      random_minus_structured: { 'mcts-routes/blocks': { diff: 0.2, ci: { lo: 0, hi: 0.4 }, mcnemar_p: 0.1, random: 'random-routes/blocks', matched_attempts: 8, random_reachable: 0.9, structured_reachable: 0.7 } },
      selectors: {},
    },
  ],
  f1: { settings: 1, comparisons: 1, random_ge_structured: 1, comparisons_random_ge: 1 },
  f2: { cases: [] },
  f3: { pairs: [] },
  missing: ['m · t · sampling'],
};

describe('study screens', () => {
  const app = new AppState(new FakeBackend({ seedLibrary: false }), null);

  it('the Study screen offers the presets, the plan editor and a start button', () => {
    const { body } = render(StudyScreen, { props: { app } });
    for (const id of ['screen-study', 'study-preset-builtin', 'study-preset-finding1', 'study-preset-finding3', 'study-plan', 'study-start', 'study-plan-summary']) expect(body).toContain(`data-testid="${id}"`);
    app.study.planText = JSON.stringify({ models: [EVIL], tasks: ['builtin:arith-2d'] });
    expect(render(StudyScreen, { props: { app } }).body).not.toContain('<img');
  });

  it('the Report screen shows each finding, says what is missing, and keeps names as text', () => {
    const { body } = render(ReportScreen, { props: { app, report } });
    for (const id of ['screen-study-report', 'table-study-f1', 'table-study-selectors', 'table-study-settings', 'study-report-missing', 'study-export-json', 'study-export-html', `study-run-${'a'.repeat(12)}`]) {
      expect(body).toContain(`data-testid="${id}"`);
    }
    expect(body).toContain('random routes reach at least as much as every MCTS preset in 1 of 1');
    expect(body).not.toContain('<img');
    expect(body).toContain('&lt;img');
  });
});

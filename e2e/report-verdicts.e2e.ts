// The findings report as a person reads it, on the production build: a small study on the task the
// built-in model does worst on (three-digit arithmetic), where probes sit near the floor and the
// failure set is small. Each finding says its verdict in words; no "0.000" p-value, no "0/0" or
// "0.0% (0/0)" rate; the exported JSON carries the verdicts, the provenance and a plan the Study
// screen reads back as the same plan. The report fits any screen (issue 21): no sideways scrolling at
// 390, 1280 and 1920 px, and from 1280 px every table shows its main columns without scrolling.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { screen as screenshot, SCREENS_DIR } from './helpers/app';
import { fitProblems } from './helpers/fit';

const PLAN = {
  name: 'e2e verdicts at the floor',
  models: ['builtin:micro-arith'],
  tasks: ['builtin:arith-3d'],
  probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'mcts-routes', space: 'blocks' }],
  budget: 4,
  questions: 16,
  question_seed: 1,
  seed: 1,
  scan: true,
  selectors: ['majority', 'max-logprob'],
  pairs: [{ base: 'builtin:micro-arith', trained: 'builtin:micro-arith-rl' }],
};
const STUDY_TIMEOUT = 480_000;

test('each finding states its verdict in words, with no 0.000 p and no 0/0 rate, and the JSON export holds the plan as run', async ({ page }) => {
  test.setTimeout(STUDY_TIMEOUT + 60_000);
  await page.goto('/');
  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify(PLAN, null, 2));
  await page.getByTestId('study-start').click();
  const screen = page.getByTestId('screen-study-report');
  await expect(screen).toBeVisible({ timeout: STUDY_TIMEOUT });

  // the opening: what the study shows, then where it cuts against the paper (or that it does not)
  await expect(page.getByTestId('study-opening')).toContainText(/^This study shows that .*\. It (cuts against the paper where|does not cut against the paper)/);
  // each probe's gold − decoy reach judged by the rule
  await expect(page.getByTestId('study-reach-summary')).toContainText(/Against the decoy answer/);
  const f1 = await page.getByTestId('study-f1-summary').innerText();
  // led by each search against its own depth-matched walks, in its own space; the uniform routes beside it
  // a plain sentence first, then the technical verdict on its own line
  expect(f1).toMatch(/^In \d+ of \d+ comparisons, routes chosen without seeing the answer /);
  expect(f1).toMatch(/^Each search against its own depth-matched walks .*CoLa's search \(mcts-routes\/blocks, space cola\): its walks \d+\.\d% vs the search \d+\.\d%, /m);
  expect(f1).toMatch(/The walks reach at least as much as the search in \d of 2 comparisons/);
  await expect(page.getByTestId('study-f1-uniform')).toContainText(/random-routes\/blocks \(space blocks\) vs .*CoLa's search \(mcts-routes\/blocks, space cola\), different spaces/);
  const f2 = await page.getByTestId('study-f2-summary').innerText();
  expect(f2).toMatch(/Silencing one MLP block is evaluated out of sample in \d of 2 settings/);
  // 16 questions cannot leave 10 held-out failures: each case is "no case" or "no failures to repair", in words
  expect(f2).toMatch(/(no case — the failure set has \d+ questions?, leaving \d+ held out \(fewer than 10\)|no failures to repair)/);
  const f3 = await page.getByTestId('study-f3-summary').innerText();
  expect(f3).toMatch(/builtin:micro-arith → builtin:micro-arith-rl on builtin:arith-3d: the deployed accuracy (rises|falls|does not change distinguishably) \(Δ [+−]\d+\.\d points, 95% CI [^)]*\); the ceiling: /);
  expect(f3).toMatch(/deployed .*McNemar p (< 0\.001|[01]\.\d{3}) \(Holm-adjusted (< 0\.001|[01]\.\d{3})\)/);
  await expect(page.getByTestId('study-multiplicity')).toContainText(/This report makes \d+ McNemar tests \(F1 and F3\); each p is shown raw and Holm-adjusted/);
  // the F3 table shows the deployed McNemar p beside the ceiling's
  await expect(page.getByTestId('table-study-f3')).toContainText('deployed McNemar p');
  await expect(page.getByTestId('study-retained-note')).toContainText('a negative value means the selector answers fewer questions correctly than deployment does');

  const text = await screen.innerText();
  expect(text).not.toContain('0.000');
  expect(text).not.toMatch(/\b0\/0\b/);
  expect(text).not.toMatch(/0\.0% \(0\/0\)/);
  expect(text).not.toContain('NaN');
  await page.screenshot({ path: `${SCREENS_DIR}/report-verdicts.png`, fullPage: true });

  // the report fits: from 1280 px its tables show their main columns (the rest on demand), at 390 px
  // they are stacked cards
  const problems: string[] = [];
  for (const width of [390, 1280, 1920]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.waitForTimeout(200); // figures re-lay out at the new width
    for (const p of await fitProblems(page, width >= 1280)) problems.push(`${width} px, report: ${p}`);
    await screenshot(page, `fit-${width}-report`);
  }
  expect(problems).toEqual([]);
  await expect(page.getByTestId('table-study-selectors')).toBeVisible();
  await page.getByTestId('all-columns-study-f1').click();
  await expect(page.getByTestId('table-study-f1').getByRole('columnheader', { name: 'depth profile' })).toBeVisible();

  // the JSON export: verdicts as shown, provenance of every cited run, and the plan as run
  const download = page.waitForEvent('download');
  await page.getByTestId('study-export-json').click();
  const exported = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as {
    plan: Record<string, unknown>;
    verdicts: { f1: { sentence: string }; f3: { sentence: string } };
    provenance: { seeds: Record<string, number>; app: { version: string; commit: string }; runs: { model: { fingerprint: string }; engine: unknown; condition: unknown }[]; unavailable: string[]; definitions: unknown[] };
  };
  expect(f1).toContain(exported.verdicts.f1.sentence);
  expect(f3).toContain(exported.verdicts.f3.sentence);
  expect(exported.provenance.seeds).toEqual({ question_seed: 1, seed: 1, split_seed: 0 });
  expect(exported.provenance.app.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(exported.provenance.unavailable).toEqual([]);
  expect(exported.provenance.runs.length).toBeGreaterThanOrEqual(6);
  for (const r of exported.provenance.runs) {
    expect(r.model.fingerprint).toMatch(/\S/);
    expect(r.engine).not.toBeNull();
    expect(r.condition).not.toBeNull();
  }
  expect(exported.provenance.definitions.length).toBeGreaterThan(5);

  // the exported plan loads back into the Study screen as the same plan: every run already done
  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify(exported.plan, null, 2));
  await expect(page.getByTestId('study-plan-problem')).toHaveCount(0);
  await expect(page.getByTestId('study-runs').locator('li[data-state="done"]')).toHaveCount(2 * (2 + 1), { timeout: 30_000 });
});

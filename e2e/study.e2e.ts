// The built-in study in the production app: one step from the home screen, a reload mid-study
// that recomputes no finished run, and a report equal to the headless study CLI's on the same plan.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { SCREENS_DIR } from './helpers/app';
import { readStore } from './store-support';

// A smaller plan than the shipped one keeps this test short; the study machinery is the same.
const PLAN = {
  name: 'e2e built-in study',
  models: ['builtin:micro-arith'],
  tasks: ['builtin:arith-2d'],
  probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'mcts-routes', space: 'blocks' }, { probe: 'sampling' }],
  budget: 8,
  questions: 24,
  question_seed: 1,
  seed: 1,
  scan: true,
  selectors: ['majority', 'max-logprob'],
  pairs: [{ base: 'builtin:micro-arith', trained: 'builtin:micro-arith-rl' }],
};
const RUNS = 2 * (3 + 1);
const STUDY_TIMEOUT = 600_000;

async function doneRuns(page: Page): Promise<number> {
  return page.getByTestId('study-runs').locator('li[data-state="done"]').count();
}

test('the built-in study runs from the home screen in one step', async ({ page }) => {
  test.setTimeout(STUDY_TIMEOUT + 120_000);
  await page.goto('/');
  await page.getByTestId('home-reproduce').click();
  await expect(page.getByTestId('screen-study-report')).toBeVisible({ timeout: STUDY_TIMEOUT });
  await expect(page.getByTestId('table-study-f1')).toBeVisible();
  await expect(page.getByTestId('table-study-f2')).toBeVisible();
  await expect(page.getByTestId('table-study-f3')).toBeVisible();
  for (const id of ['f1-random-vs-structured', 'f2-repair-rates', 'f2-layer-scan', 'f3-base-to-trained']) {
    await expect(page.getByTestId(`figure-${id}`).locator('.figure-plot svg').first()).toBeVisible();
  }
  await expect(page.getByTestId('study-report-missing')).toHaveCount(0);
  await expect(page.getByTestId('table-study-f3-transitions')).toBeVisible();
  await page.screenshot({ path: `${SCREENS_DIR}/study-01-report.png`, fullPage: true });
  // the first setting's first run opens its Results (the questions behind its numbers)
  await page.getByTestId('row-action-study-settings-0-0').click();
  await expect(page.getByTestId('screen-results')).toBeVisible();
});

test('the form edits the plan text, and Copy link opens the Study screen with the same plan, not started', async ({ page, context }) => {
  await page.goto('/');
  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify(PLAN, null, 2));
  await page.getByTestId('study-form-probe-sampling').uncheck();
  await page.getByTestId('study-form-budget').fill('5');
  await page.getByTestId('study-form-budget').blur();
  const edited = { ...PLAN, probes: PLAN.probes.filter((p) => p.probe !== 'sampling'), budget: 5 };
  expect(JSON.parse(await page.getByTestId('study-plan').inputValue())).toEqual(edited);
  await page.getByTestId('study-copy-link').click();
  const url = await page.getByTestId('study-link').inputValue();
  expect(url).toMatch(/#study=[A-Za-z0-9_-]+$/);
  expect(page.url()).toBe(url);
  // (after the click: a full-page screenshot just before it can move the button under the mouse)
  await page.screenshot({ path: `${SCREENS_DIR}/study-03-form.png`, fullPage: true });

  const opened = await context.newPage();
  await opened.goto(url);
  await expect(opened.getByTestId('screen-study')).toBeVisible();
  expect(JSON.parse(await opened.getByTestId('study-plan').inputValue())).toEqual(edited);
  await expect(opened.getByTestId('study-start')).toBeEnabled();
  await expect(opened.getByTestId('study-runs').locator('li[data-state="waiting"]')).toHaveCount(2 * (2 + 1));
  await expect(opened.getByTestId('study-link-problem')).toHaveCount(0);

  // a corrupt link says what is wrong and leaves the editor's plan alone
  const corrupt = await context.newPage();
  await corrupt.goto('/#study=not*base64');
  await expect(corrupt.getByTestId('study-link-problem')).toContainText('The study link is corrupt');
  await expect(corrupt.getByTestId('study-plan-summary')).toBeVisible();
});

test('a plan the app cannot run is shown with its error: a hostile link, then the same typed into the editor', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const hostile = { models: ['builtin:micro-arith'], tasks: ['builtin:arith-2d'], probes: [{ probe: 'evil' }] };
  await page.goto(`/#study=${Buffer.from(JSON.stringify(hostile)).toString('base64url')}`);
  await expect(page.getByTestId('screen-study')).toBeVisible();
  await expect(page.getByTestId('study-link-problem')).toContainText('probes[0].probe: expected one of');
  await expect(page.getByTestId('study-plan-problem')).toContainText('probes[0].probe: expected one of');
  await expect(page.getByTestId('study-start')).toBeDisabled();
  for (const name of ['toString', '__proto__']) {
    await page.getByTestId('study-plan').fill(JSON.stringify({ ...hostile, probes: [{ probe: name }], models: [`builtin:${name}`] }));
    await expect(page.getByTestId('study-plan-problem')).toContainText('probes[0].probe: expected one of');
  }
  // the other screens still draw, and Study again with the plan as typed
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('screen-library')).toBeVisible();
  await page.getByTestId('nav-study').click();
  await expect(page.getByTestId('study-plan-problem')).toBeVisible();
  await expect(page.getByTestId('screen-failed')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a reload mid-study recomputes no finished run, and the report equals the headless CLI on the same plan', async ({ page }) => {
  test.setTimeout(2 * STUDY_TIMEOUT);
  await page.goto('/');
  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify(PLAN, null, 2));
  await expect(page.getByTestId('study-plan-summary')).toContainText(`${RUNS} runs of 24 questions`);
  await page.getByTestId('study-start').click();
  await expect.poll(() => doneRuns(page), { timeout: STUDY_TIMEOUT }).toBeGreaterThanOrEqual(3);
  const before = await readStore(page);
  const finishedBefore = before.runs.filter((r) => r.status === 'finished');
  expect(finishedBefore.length).toBeGreaterThanOrEqual(3);

  await page.reload();
  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify(PLAN, null, 2));
  await page.getByTestId('study-start').click();
  await expect(page.getByTestId('screen-study-report')).toBeVisible({ timeout: STUDY_TIMEOUT });

  // every run finished before the reload is the same run, untouched: same counters, no new attempts
  const after = await readStore(page);
  for (const r of finishedBefore) {
    const same = after.runs.find((x) => x.id === r.id)!;
    expect(same.status).toBe('finished');
    expect(same.counters.attemptsComputed).toBe(r.counters.attemptsComputed);
    expect(same.counters.recordsDone).toBe(r.counters.recordsDone);
  }
  expect(new Set(after.runs.map((r) => r.manifestKey)).size).toBe(after.runs.length);
  expect(after.runs.filter((r) => r.status === 'finished')).toHaveLength(RUNS);

  // the headless study on the same plan: the same F1/F2/F3 tables, cell for cell
  const dir = mkdtempSync(join(tmpdir(), 'reachlab-e2e-study-'));
  try {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(PLAN));
    const cli = JSON.parse(execFileSync('npx', ['tsx', 'scripts/study-cli.ts', '--plan', join(dir, 'plan.json'), '--records', join(dir, 'runs')], { encoding: 'utf8' })) as {
      plan_key: string;
      settings: { run_keys: string[]; reachable: Record<string, number> }[];
      f1: Record<string, number>;
      verdicts: { f1: { sentence: string } };
    };
    const shown = await page.getByTestId('screen-study-report').innerText();
    expect(shown).toContain(`Plan ${cli.plan_key.slice(0, 12)}`);
    const f1Text = await page.getByTestId('study-f1-summary').innerText();
    expect(f1Text).toContain(cli.verdicts.f1.sentence);
    // the runs the app stored are the CLI's runs: same content-addressed keys
    const appKeys = new Set(after.runs.map((r) => r.manifestKey));
    for (const s of cli.settings) for (const k of s.run_keys) expect(appKeys.has(k)).toBe(true);
    // and the app's report JSON equals the CLI's
    const download = page.waitForEvent('download');
    await page.getByTestId('study-export-json').click();
    const path = await (await download).path();
    type Provenance = { seeds: unknown; runs: { run_key: string; model: { fingerprint: string }; condition_key: string; engine: unknown }[]; app: { version: string } };
    const { provenance: appProv, ...appReport } = JSON.parse(execFileSync('cat', [path!], { encoding: 'utf8' })) as { provenance: Provenance };
    const { computed: _c, reused: _r, provenance: cliProv, ...cliReport } = cli as unknown as { provenance: Provenance; computed?: unknown; reused?: unknown };
    expect(appReport).toEqual(cliReport);
    // the provenance names the same runs, model fingerprints, conditions and engines (the commit each was built at may differ)
    const runsOf = (p: Provenance) => p.runs.map(({ run_key, model, condition_key, engine }) => ({ run_key, fingerprint: model.fingerprint, condition_key, engine })).sort((a, b) => a.run_key.localeCompare(b.run_key));
    expect(runsOf(appProv)).toEqual(runsOf(cliProv));
    expect([appProv.seeds, appProv.app.version]).toEqual([cliProv.seeds, cliProv.app.version]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await page.screenshot({ path: `${SCREENS_DIR}/study-02-after-reload.png`, fullPage: true });
});

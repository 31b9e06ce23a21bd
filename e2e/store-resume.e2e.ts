// Nothing computed is lost (issue 4): an audit on a reference checkpoint (WASM EP, stand-in Hub)
// survives a page reload and a killed engine worker mid-run. After each, running the same setup
// again resumes the stored run under its id; the test then checks the IndexedDB store and what the
// page actually sent the engine: every record finished before the interruption is intact and no
// attempt of it went to the engine again.
import { expect, test, type Page } from '@playwright/test';
import { setupHubRun } from './helpers/app';
import { crashEngine, readStore, startAndWaitForRecords, tapEngineCalls, trackEngineWorkers, type EngineTap, type StoreSnapshot } from './store-support';

const QUESTIONS = 8;
const ROUTE_BUDGET = 2;
const SETUP = { ep: 'wasm' as const, count: QUESTIONS, probes: { 'uniform-routes': ROUTE_BUDGET } };
// deployment + random routes
const PROBES = 2;
const TOTAL = QUESTIONS * PROBES;
const SOURCE = 'hub:reference/tiny-qwen2'; // setupHubRun's default checkpoint

const unit = (r: { doc_id: string; probe: string }) => `${r.probe}/${r.doc_id}`;

/**
 * The engine rows the page sent after the interruption, for the run's own questions, must be
 * exactly the attempts of the records computed after it (plus the fixed-route selector's one
 * uncharged decode where its route was not drawn): a finished record recomputed would show up as
 * rows beyond these.
 */
function expectNothingRecomputed(tap: EngineTap, before: StoreSnapshot, after: StoreSnapshot): void {
  const done = new Set(before.records.map((r) => unit(r)));
  const idsOf = (prompt: string) => {
    const ids = tap.encodes[prompt];
    expect(ids, `the prompt of a record was encoded in the resumed session`).toBeDefined();
    return ids!;
  };
  const testPrompts = new Set(after.records.map((r) => r.prompt));
  const expected: string[] = [];
  for (const r of after.records) {
    if (done.has(unit(r))) continue;
    for (const a of r.attempts) expected.push(rowKey(idsOf(r.prompt), a.route, a.silence));
    if (r.fixedRouteExtra) expected.push(rowKey(idsOf(r.prompt), r.fixedRouteExtra, []));
  }
  const testIds = new Set([...testPrompts].filter((p) => tap.encodes[p]).map((p) => tap.encodes[p]!.join(',')));
  const sent = tap.rows.filter((row) => testIds.has(row.promptIds.join(','))).map((row) => rowKey(row.promptIds, row.route, row.silence));
  expect(sent.sort()).toEqual(expected.sort());
}

function rowKey(promptIds: number[], route: number[], silence: number[]): string {
  return `${promptIds.join(',')}|${route.join(',')}|${silence.join(',')}`;
}

/** Stored records of the first session are still there, byte for byte, once the run is resumed. */
function expectIntact(before: StoreSnapshot, after: StoreSnapshot): void {
  const now = new Map(after.records.map((r) => [r.key, r]));
  for (const r of before.records) expect(now.get(r.key), `record ${r.key}`).toEqual(r);
}

function expectComplete(after: StoreSnapshot, runId: string): void {
  expect(after.runs.map((r) => r.id)).toEqual([runId]);
  const run = after.runs[0];
  expect(run.source).toBe(SOURCE);
  expect(run.status).toBe('finished');
  expect(after.records).toHaveLength(TOTAL);
  expect(new Set(after.records.map(unit)).size).toBe(TOTAL);
  expect(new Set(after.records.map((r) => r.key)).size).toBe(TOTAL);
  for (const r of after.records) expect(r.runIds).toEqual([runId]);
  expect(run.counters.recordsDone).toBe(TOTAL);
  expect(run.counters.recordsTotal).toBe(TOTAL);
  expect(run.counters.reused).toBe(0);
  // attempts counted once per record over both sessions
  expect(run.counters.attemptsComputed).toBe(after.records.reduce((n, r) => n + r.attempts.length, 0));
  expect(run.counters.interruptions).toBe(1);
}

test.describe('a run survives interruptions', () => {
  test.beforeEach(async ({ page }) => {
    await tapEngineCalls(page);
    await trackEngineWorkers(page);
  });

  test('reload mid-run: Resume in the Library continues the run, finished records intact and not recomputed', async ({ page }) => {
    await setupHubRun(page, SETUP);
    const partial = await startAndWaitForRecords(page, 1, TOTAL);
    await page.reload();
    await expect(page.getByTestId('screen-setup')).toBeVisible();

    // What the first session left: an interrupted run (the new page found it abandoned) with its records.
    const before = await readStore(page);
    expect(before.runs).toHaveLength(1);
    const run1 = before.runs[0];
    expect(before.records.length).toBeGreaterThanOrEqual(partial);
    expect(before.records.length).toBeLessThan(TOTAL);
    expect(run1.status).toBe('interrupted');
    expect(run1.counters.interruptions).toBe(1);
    expect(run1.counters.recordsDone).toBe(before.records.length);
    expect(run1.counters.attemptsComputed).toBe(before.records.reduce((n, r) => n + r.attempts.length, 0));

    await page.getByTestId('nav-library').click();
    await expect(page.getByTestId(`library-row-${run1.id}`)).toContainText('interrupted');

    // One click in the Library resumes it: the setup kept at its start is started again, and the
    // stored run goes on under its id.
    await page.getByTestId(`library-resume-${run1.id}`).click();
    await expect(page.getByTestId('screen-run')).toBeVisible();
    await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: 240_000 });
    await expect(page.getByTestId('run-phase')).toHaveText('Finished');

    const after = await readStore(page);
    expectComplete(after, run1.id);
    expectIntact(before, after);
    expectNothingRecomputed(await engineTap(page), before, after);
  });

  test('engine worker killed mid-run: reloading the engine resumes the run, no duplicates', async ({ page }) => {
    await setupHubRun(page, SETUP);
    await startAndWaitForRecords(page, 1, TOTAL);
    // Kill the worker and note how many engine rows were sent before it, in one step.
    const rowsBefore = await crashEngine(page);
    await expect(page.getByTestId('error-message')).toBeVisible();
    await expect(page.getByTestId('run-phase')).toHaveText('Interrupted');
    const before = await readStore(page);
    expect(before.runs).toHaveLength(1);
    const run1 = before.runs[0];
    expect(run1.status).toBe('interrupted');
    expect(before.records.length).toBeGreaterThan(0);
    expect(before.records.length).toBeLessThan(TOTAL);

    // The offered way out: reload the engine, which resumes the same run at once.
    await expect(page.getByTestId('error-action')).toHaveText('Reload the engine');
    await page.getByTestId('error-action').click();
    await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: 240_000 });
    await expect(page.getByTestId('run-phase')).toHaveText('Finished');

    const after = await readStore(page);
    expectComplete(after, run1.id);
    expectIntact(before, after);
    const tap = await engineTap(page);
    expectNothingRecomputed({ encodes: tap.encodes, rows: tap.rows.slice(rowsBefore) }, before, after);
  });
});

async function engineTap(page: Page): Promise<EngineTap> {
  return page.evaluate(() => (window as unknown as { __engineTap: EngineTap }).__engineTap);
}

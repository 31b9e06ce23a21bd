// Two tabs, one audit (issue 4): while tab A runs an audit, tab B shows its live progress in the
// Library (BroadcastChannel), and is refused when it starts the same audit (Web Lock).
// Then the finished run, exported from A's Library and imported into a fresh browser profile, shows
// the same summary tables there. Plus: a larger audit over the same questions reuses the stored
// records and says so.
import { expect, test, type Page } from '@playwright/test';
import { download, setupHubRun, viewResults } from './helpers/app';
import { readStore, startAndWaitForRecords } from './store-support';

const QUESTIONS = 8;
const ROUTE_BUDGET = 4;
const SETUP = { ep: 'wasm' as const, count: QUESTIONS, probes: { 'uniform-routes': ROUTE_BUDGET } };
const TOTAL = QUESTIONS * 2; // deployment + random routes
const PROGRESS_CHANNEL = 'reachlab-progress'; // src/store/tab-lock.ts

interface Heard {
  runId: string;
  status: string;
  recordsDone: number;
  recordsTotal: number;
}

/** Collects the run progress other tabs publish, as a page of the app would hear it. */
async function listenForProgress(page: Page): Promise<void> {
  await page.evaluate((name) => {
    const heard: Heard[] = [];
    (window as unknown as { __heard: Heard[] }).__heard = heard;
    new BroadcastChannel(name).onmessage = (ev: MessageEvent) => {
      const p = (ev.data as { progress?: Heard }).progress;
      if (p) heard.push({ runId: p.runId, status: p.status, recordsDone: p.recordsDone, recordsTotal: p.recordsTotal });
    };
  }, PROGRESS_CHANNEL);
}

const heard = (page: Page) => page.evaluate(() => (window as unknown as { __heard: Heard[] }).__heard);

/** The Results screen's summary: the manifest facts and both summary tables, as text. */
async function summaryText(page: Page): Promise<string[]> {
  return Promise.all(['results-manifest', 'table-rates', 'table-realized-reachable'].map((id) => page.getByTestId(id).innerText()));
}

test('a second tab sees the progress and cannot start the same audit; export → import in a fresh profile gives the same summary', async ({ browser }) => {
  const profile = await browser.newContext();
  const a = await profile.newPage();
  const b = await profile.newPage();
  // Both tabs set up the same audit; B's model is loaded before A starts so B's start comes mid-run.
  await setupHubRun(a, SETUP);
  await setupHubRun(b, SETUP);
  await listenForProgress(b);

  await startAndWaitForRecords(a, 1, TOTAL);
  const [run] = (await readStore(b)).runs;
  // B's start-up recovery did not take A's live run for an abandoned one.
  expect(run.status).toBe('running');
  expect(run.source).toBe('hub:reference/tiny-qwen2');
  await b.getByTestId('start-run').click();
  await expect(b.getByTestId('error-title')).toHaveText('The audit did not start: This audit is already running in another tab; its progress shows in the Library here. Pause it there to run it in this tab.');
  await expect(b.getByTestId('error-action')).toHaveText('Open the Library');
  // B's Library lists the run as running and shows its live progress from A.
  await b.getByTestId('nav-library').click();
  await expect(b.getByTestId(`library-row-${run.id}`)).toContainText('running');
  await expect(b.getByTestId(`library-live-${run.id}`)).toContainText(new RegExp(`in another tab: \\d+ / ${QUESTIONS} questions`));
  expect((await readStore(b)).runs.map((r) => r.id), 'the refused start stored no second run').toEqual([run.id]);

  await expect(a.getByTestId('run-view-results')).toBeVisible({ timeout: 240_000 });
  // B heard A's run go by, record by record, to the end.
  await expect.poll(async () => (await heard(b)).some((p) => p.status === 'finished')).toBe(true);
  const mine = (await heard(b)).filter((p) => p.runId === run.id);
  expect(mine.length).toBeGreaterThan(2);
  const done = mine.map((p) => p.recordsDone);
  expect(done).toEqual([...done].sort((x, y) => x - y));
  expect(mine.at(-1)).toEqual({ runId: run.id, status: 'finished', recordsDone: TOTAL, recordsTotal: TOTAL });
  // B's Library follows: the run is finished there, with no live progress left.
  await expect(b.getByTestId(`library-row-${run.id}`)).toContainText('finished');
  await expect(b.getByTestId(`library-live-${run.id}`)).toHaveCount(0);

  await viewResults(a);
  const summary = await summaryText(a);
  await a.getByTestId('nav-library').click();
  const file = await download(a, a.getByTestId(`library-export-${run.id}`));

  // A fresh profile: nothing stored, then the imported run with the same summary.
  const fresh = await browser.newContext();
  const c = await fresh.newPage();
  await c.goto('/');
  await c.getByTestId('nav-library').click();
  await expect(c.getByTestId('screen-library')).toContainText('No stored runs yet');
  await c.getByTestId('library-import').setInputFiles({ name: file.filename, mimeType: 'application/json', buffer: file.bytes });
  await c.getByTestId(`library-open-${run.id}`).click();
  await expect(c.getByTestId('screen-results')).toBeVisible();
  // the same numbers and manifest; the imported copy also says where it came from
  const [manifestC, ...tablesC] = await summaryText(c);
  expect(manifestC).toContain(`Imported from\n${file.filename} (reachlab-run)`);
  expect([manifestC.replace(`Imported from\n${file.filename} (reachlab-run)\n`, ''), ...tablesC]).toEqual(summary);
  const imported = await readStore(c);
  expect(imported.records).toHaveLength(TOTAL);
  expect(imported.runs.map((r) => [r.id, r.status])).toEqual([[run.id, 'finished']]);
  await fresh.close();

  // Reuse: the same audit over more questions takes the stored records and says how many.
  await a.getByTestId('nav-setup').click();
  await a.getByTestId('task-count').fill(String(QUESTIONS + 2));
  await a.getByTestId('start-run').click();
  await expect(a.getByTestId('run-view-results')).toBeVisible({ timeout: 240_000 });
  await expect(a.getByTestId('run-stats')).toContainText(`(${TOTAL} records reused from earlier runs)`);
  const after = await readStore(a);
  const bigger = after.runs.find((r) => r.id !== run.id)!;
  expect(bigger.counters.reused).toBe(TOTAL);
  expect(bigger.counters.recordsDone).toBe(TOTAL + 4);
  expect(after.records).toHaveLength(TOTAL + 4);
  await profile.close();
});

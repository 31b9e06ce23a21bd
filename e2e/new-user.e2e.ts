// Issue 11, walked as a new user would, on the production build (vite preview: service worker,
// COOP/COEP) in a fresh browser profile: the built-in model after reloads (0), Start on a finished
// setup (1), the Run screen after Resume (3), error headlines that state the cause with a next step
// (4), and Compare / Library saying what differs (6). Screenshots go to SCREENS_DIR as issue11-*.png.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { chooseProbes, download, LOAD_TIMEOUT, RUN_TIMEOUT, screen } from './helpers/app';
import { readStore } from './store-support';

/** A fresh profile on the app, the built-in model loaded (as it does by itself on opening). */
async function freshApp(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  return page;
}

/** The built-in model's audit with these questions and probes (others off); returns when finished. */
async function runBuiltin(page: Page, questions: number, probes: Parameters<typeof chooseProbes>[1]): Promise<void> {
  await page.getByTestId('task-count').fill(String(questions));
  await chooseProbes(page, probes);
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: RUN_TIMEOUT });
}

const numbers = (text: string | null) => (text ?? '').match(/\d+/g)?.map(Number) ?? [];

/** The Run screen's attempts/s, read every 100 ms until `stop()`; "—" (not measured yet) is skipped. */
async function sampleRates(page: Page, stop: () => Promise<boolean>): Promise<number[]> {
  const rates: number[] = [];
  while (!(await stop())) {
    const text = (await page.getByTestId('run-rate').textContent()) ?? '';
    if (/^\d+\.\d$/.test(text)) rates.push(Number(text));
    await page.waitForTimeout(100);
  }
  return rates;
}

test('0, 1: after reloads the built-in model loads again, isolated; Start on a finished setup opens its results', async ({ browser }) => {
  test.setTimeout(420_000);
  const page = await freshApp(browser);
  const failed: string[] = [];
  const logged: string[] = [];
  page.on('requestfailed', (r) => {
    // model files and ORT's wasm (the one-byte size probes are cancelled on purpose once their headers are in)
    if (/\/hub\/|\.wasm$/.test(r.url()) && r.headers().range !== 'bytes=0-0') failed.push(`${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('console', (m) => logged.push(m.text()));
  // the default audit, as a teacher would start it
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: RUN_TIMEOUT });
  await expect(page.getByTestId('run-phase')).toHaveText('Finished');
  const active = await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.active?.state ?? 'none'));
  expect(active).toMatch(/^activat(ing|ed)$/);

  for (const round of [1, 2, 3]) {
    await page.reload();
    await expect(page.getByTestId('model-info'), `reload ${round}`).toBeVisible({ timeout: LOAD_TIMEOUT });
    await expect(page.getByTestId('error-message')).toHaveCount(0);
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null && crossOriginIsolated), `reload ${round}: served by the service worker, isolated`).toBe(true);
  }
  expect(failed).toEqual([]);
  expect(logged.filter((t) => /wasm streaming compile failed|falling back to ArrayBuffer/.test(t))).toEqual([]);
  // the estimate now comes from the rate this device measured
  await expect(page.getByTestId('estimate')).toContainText('measured by your last run of this model with these probes and budgets here');
  await screen(page, 'issue11-0-reload-model-loads');

  // 8: Results works after a reload: it opens the latest finished run
  await page.getByTestId('nav-results').click();
  await expect(page.getByTestId('results-sentence')).toContainText(/^\d+ of 20 questions were answered correctly as deployed; \d+ more were reachable with random routes within \d+ attempts/);
  // 2: a definition where the number is, and all of them on one screen
  await page.getByTestId('rates-explained').getByTestId('term-ceiling').click();
  await expect(page.getByTestId('definition-ceiling')).toContainText('ceiling@B: Share of questions realized or reachable@B');
  await screen(page, 'issue11-2-definition-in-place');
  await page.getByTestId('nav-help').click();
  await expect(page.getByTestId('glossary')).toContainText('retained gain');
  await screen(page, 'issue11-2-how-to-read-this');

  // 1: the same setup again finds the finished run: its results, said to be reused, nothing recomputed
  await page.getByTestId('nav-setup').click();
  const recordsBefore = (await readStore(page)).records.length;
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('screen-results')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('results-reused')).toContainText('had already finished');
  await expect(page.getByTestId('results-sentence')).toContainText('of 20 questions were answered correctly as deployed');
  expect((await readStore(page)).records.length).toBe(recordsBefore);
  expect((await readStore(page)).runs).toHaveLength(1);
  await screen(page, 'issue11-1-finished-setup-reused');
  await page.context().close();
});

test('3: after Resume the Run screen counts what earlier sessions stored, and its rate is this session’s', async ({ browser }) => {
  test.setTimeout(420_000);
  const page = await freshApp(browser);
  const QUESTIONS = 60;
  await page.getByTestId('task-count').fill(String(QUESTIONS));
  await chooseProbes(page, { 'uniform-routes': true, 'sampling-ceiling': true });
  const ATTEMPTS = QUESTIONS * (1 + 100 + 64);
  await page.getByTestId('start-run').click();
  // the first session's pace, sampled until a third of the attempts are done
  const firstRates = await sampleRates(page, async () => Number(await page.getByTestId('run-progress').getAttribute('value')) >= ATTEMPTS / 3);
  expect(firstRates.length, 'the first session measured a rate').toBeGreaterThan(0);
  await page.reload();
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  const before = await readStore(page);
  const deployedBefore = before.records.filter((r) => r.probe === 'deployment').length;
  expect(before.runs.map((r) => r.status)).toEqual(['interrupted']);

  await page.getByTestId('nav-library').click();
  await page.getByTestId(`library-resume-${before.runs[0].id}`).click();
  await expect(page.getByTestId('screen-run')).toBeVisible();
  // the counts include the questions the first session finished, from the start
  await expect(page.getByTestId('run-realized')).toBeVisible({ timeout: 60_000 });
  const [, n] = numbers(await page.getByTestId('run-realized').textContent());
  expect(n).toBeGreaterThanOrEqual(deployedBefore);
  await screen(page, 'issue11-3-resumed-run');
  // the rate counts attempts computed now, never the stored ones over the first second of work: the
  // resumed session goes at the first one's pace (the bug showed 100× it)
  const done = page.getByTestId('run-view-results');
  const rates = await sampleRates(page, () => done.isVisible());
  expect(rates.length).toBeGreaterThan(0);
  expect(Math.max(...rates)).toBeLessThan(3 * Math.max(...firstRates));

  // the Run screen and Results agree
  const runRealized = numbers(await page.getByTestId('run-realized').textContent()).slice(0, 2);
  const runReach = numbers(await page.getByTestId('run-reachable-random-routes').textContent()).slice(0, 2);
  expect(runRealized[1]).toBe(QUESTIONS);
  await screen(page, 'issue11-3-resumed-run-finished');
  await done.click();
  await expect(page.getByTestId('table-rates')).toBeVisible();
  const rows = await page.getByTestId('table-rates').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  const row = (probe: string, measure: string) => rows.find((r) => r[0] === probe && r[1].startsWith(measure))!;
  expect([Number(row('deployment', 'realized')[2]), Number(row('deployment', 'realized')[3])]).toEqual(runRealized);
  expect([Number(row('random routes', 'reachable@')[2]), Number(row('random routes', 'reachable@')[3])]).toEqual(runReach);
  await page.context().close();
});

test('4: error headlines state the cause, with the button that fixes it', async ({ browser }) => {
  test.setTimeout(420_000);
  const page = await freshApp(browser);
  const title = page.getByTestId('error-title');
  const action = page.getByTestId('error-action');

  // task files: malformed JSONL, a broken CSV quote, a binary file, an empty file, a CSV without an answer column
  await page.getByTestId('task-file').check();
  const pick = (name: string, body: string | Buffer) => page.getByTestId('task-file-input').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });
  await pick('broken.jsonl', '{"question":"1+1=","answer":"2"}\n{"question": oops}\n');
  await expect(title).toHaveText(/^This task file cannot be used: JSONL line 2 is not valid JSON: .+\.$/);
  await expect(action).toHaveText('Choose another file');
  await screen(page, 'issue11-4-malformed-jsonl');
  await pick('broken.csv', 'question,answer\n"1+1=,2\n');
  await expect(title).toHaveText('This task file cannot be used: CSV row 2: a quoted field is never closed (a " is missing).');
  await screen(page, 'issue11-4-broken-csv-quote');
  await pick('weights.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x01]));
  await expect(title).toHaveText('This task file cannot be used: the file is not UTF-8 text (it holds binary data): choose a .jsonl, .json or .csv file.');
  await screen(page, 'issue11-4-binary-file');
  await pick('empty.jsonl', '\n\n');
  await expect(title).toHaveText('This task file cannot be used: the JSONL file holds no rows.');
  await pick('noanswer.csv', 'id,question\n1,"1+1="\n');
  await expect(page.getByTestId('error-message')).toHaveCount(0);
  await expect(page.getByTestId('map-answer-missing')).toBeVisible();
  await expect(page.getByTestId('setup-problems')).toContainText('Choose the column of the task file that holds the gold answer');

  // a local folder without config.json: the cause, not "check the repo id"
  const dir = await mkdtemp(join(tmpdir(), 'reachlab-folder-'));
  await writeFile(join(dir, 'tokenizer.json'), '{}');
  await page.getByTestId('model-files').check();
  await page.getByTestId('folder-input').setInputFiles(dir);
  await page.getByTestId('load-model').click();
  await expect(title).toHaveText(/^The model did not load: config\.json is not among the picked files/);
  await expect(page.getByTestId('error-message')).not.toContainText('repo id');
  await expect(action).toHaveText('Choose another folder');
  await screen(page, 'issue11-4-folder-without-config');
  // choosing another model clears the stale error; a disabled Load says why, next to it
  await page.getByTestId('model-hub').check();
  await expect(page.getByTestId('error-message')).toHaveCount(0);
  await expect(page.getByTestId('load-blocked')).toHaveText('Enter a Hub repo id like owner/name to load it.');
  await page.getByTestId('model-builtin').check();
  await page.getByTestId('load-model').click();
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });

  // an offline Hub dataset: the cause on the Run screen, with Retry and Back
  await page.getByTestId('task-hub').check();
  await page.getByTestId('task-count').fill('2');
  await chooseProbes(page, { 'uniform-routes': 2 });
  await page.context().setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await page.getByTestId('start-run').click();
  await expect(title).toHaveText(/^The audit did not start: the Hub dataset server cannot be reached for openai\/gsm8k \(config main, split test\): cannot reach datasets-server\.huggingface\.co: offline or unreachable/);
  await expect(action).toHaveText('Retry');
  await expect(page.getByTestId('run-back')).toBeVisible();
  await screen(page, 'issue11-4-offline-dataset');
  await page.getByTestId('run-back').click();
  await expect(page.getByTestId('screen-setup')).toBeVisible();
  await page.context().setOffline(false);

  // re-importing a stored run: "already in your library", not "not a valid export"
  await page.getByTestId('task-builtin').check();
  await runBuiltin(page, 2, { 'uniform-routes': 2 });
  await page.getByTestId('nav-library').click();
  const [run] = (await readStore(page)).runs;
  const file = await download(page, page.getByTestId(`library-export-${run.id}`));
  await page.getByTestId('library-import').setInputFiles({ name: file.filename, mimeType: 'application/json', buffer: file.bytes });
  await expect(title).toHaveText(/^Not imported: .*this run is already in your library/);
  await expect(page.getByTestId('error-message')).toContainText('Nothing was imported');
  await screen(page, 'issue11-4-reimport');
  await page.context().close();
});

test('6: Compare and the Library say what differs between two runs', async ({ browser }) => {
  test.setTimeout(420_000);
  const page = await freshApp(browser);
  await runBuiltin(page, 4, { 'uniform-routes': 4 });
  await page.getByTestId('nav-setup').click();
  await page.getByTestId('engine-dtype').selectOption('q8');
  await expect(page.getByTestId('dtype-hint')).toContainText('WebAssembly only');
  await page.getByTestId('load-model').click();
  await expect(page.getByTestId('model-info')).toContainText('WebAssembly, q8', { timeout: LOAD_TIMEOUT });
  await screen(page, 'issue22-setup-q8');
  await runBuiltin(page, 4, { 'sampling-ceiling': 4 });

  await page.getByTestId('nav-library').click();
  const runs = (await readStore(page)).runs;
  expect(runs).toHaveLength(2);
  const [f32, q8] = await Promise.all(runs.map(async (r) => ({ id: r.id, engine: await page.getByTestId(`library-engine-${r.id}`).textContent() })))
    .then((xs) => [xs.find((x) => x.engine?.startsWith('f32'))!, xs.find((x) => x.engine?.startsWith('q8, WebAssembly'))!]);
  await expect(page.getByTestId(`library-probes-${f32.id}`)).toHaveText('random routes ×4 · blocks');
  await expect(page.getByTestId(`library-probes-${q8.id}`)).toHaveText('sampling ×4');
  await expect(page.getByTestId(`library-seeds-${f32.id}`)).toHaveText('1, 1');
  await screen(page, 'issue11-6-library-columns');

  await page.getByTestId(`library-select-${f32.id}`).check();
  await page.getByTestId(`library-select-${q8.id}`).check();
  await page.getByTestId('library-compare').click();
  await expect(page.getByTestId('compare-facts')).toContainText('they differ in dtype, probes and budgets');
  await expect(page.getByTestId('compare-fact-dtype')).toContainText('dtype (differs)f32q8');
  await expect(page.getByTestId('compare-fact-probes-and-budgets')).toContainText('random routes ×4 · blockssampling ×4');
  await expect(page.getByTestId('compare-fact-model')).not.toContainText('differs');
  await expect(page.getByTestId('compare-refused')).toHaveText('Not compared. The runs were audited under different conditions: dtype differs. A comparison needs one condition.');
  await screen(page, 'issue11-6-compare-differs');
  await page.context().close();
});

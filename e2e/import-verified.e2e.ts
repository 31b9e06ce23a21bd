// Imports are verified or marked (issue 23, item 2), on the production build: an exported run with
// one record tampered is refused naming the run, the record and the field; the genuine file is
// imported, and a local audit over more questions reuses its records only when "include imported
// records" is ticked, Results then saying how many of its records came from the file.
import { expect, test } from '@playwright/test';
import { download, setupHubRun, startRun, viewResults } from './helpers/app';
import { readStore } from './store-support';

const SETUP = { ep: 'wasm' as const, count: 2, probes: { 'uniform-routes': 2 } };
const TOTAL = 2 * 2; // deployment + random routes

test('a tampered export is refused naming the field; a genuine one is reused only when ticked, and Results says so', async ({ browser }) => {
  test.setTimeout(600_000);
  const source = await browser.newContext();
  const a = await source.newPage();
  await setupHubRun(a, SETUP);
  await startRun(a);
  const [run] = (await readStore(a)).runs;
  await a.getByTestId('nav-library').click();
  const file = await download(a, a.getByTestId(`library-export-${run.id}`));
  await source.close();

  const profile = await browser.newContext();
  const b = await profile.newPage();
  await b.goto('/');
  await b.getByTestId('nav-library').click();
  // one deployment record says it was realized when its attempt was wrong (or the reverse)
  const forged = JSON.parse(file.text);
  const i = forged.records.findIndex((r: { probe: string }) => r.probe === 'deployment');
  const r = forged.records[i];
  r.realized = !r.realized;
  await b.getByTestId('library-import').setInputFiles({ name: 'forged.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(forged)) });
  await expect(b.getByTestId('error-message')).toContainText(
    `forged.json: run ${run.id}, records[${i}] (question ${r.doc_id}, probe deployment): realized says ${r.realized}, but this version computes ${!r.realized} from the record`,
  );
  expect((await readStore(b)).runs, 'nothing of the refused file is stored').toEqual([]);

  await b.getByTestId('library-import').setInputFiles({ name: 'genuine.json', mimeType: 'application/json', buffer: file.bytes });
  await expect(b.getByTestId(`library-open-${run.id}`)).toBeVisible();

  // ticked: an audit over four questions reuses the imported records and Results names the file
  await setupHubRun(b, { ...SETUP, count: 4 });
  await expect(b.getByTestId('include-imported')).not.toBeChecked();
  await b.getByTestId('include-imported').check();
  await startRun(b);
  await viewResults(b);
  await expect(b.getByTestId('results-imported')).toHaveText(`${TOTAL} of the 8 records of this run (4 questions × 2 probes, deployment included) were read from genuine.json, not computed here.`);
  const mixed = (await readStore(b)).runs.find((x) => x.counters.recordsTotal === 8)!;
  expect(mixed.counters.reused).toBe(TOTAL);

  // not ticked: an audit over three questions reuses only what was computed here (question 3's
  // records), computing the imported questions again
  await setupHubRun(b, { ...SETUP, count: 3 });
  await expect(b.getByTestId('include-imported')).not.toBeChecked();
  await startRun(b);
  await viewResults(b);
  await expect(b.getByTestId('results-imported')).toHaveCount(0);
  const local = (await readStore(b)).runs.find((x) => x.counters.recordsTotal === 6)!;
  expect(local.counters.reused).toBe(2);
  await profile.close();
});

// A large lm-eval samples file imports off the page's thread (issue 37, item 7), on the production
// build: the Library shows its progress, the page keeps answering (another screen opens on a click
// while it imports), Cancel leaves nothing stored, and the whole file is then stored as one run.
import { expect, test, type Page } from '@playwright/test';
import { lmEvalSamplesText } from '../src/store/testing/lm-eval-samples';
import { DB_NAME } from './store-support';

const N = 20_000;
const NAME = 'samples_arith_2025-01-01.jsonl';

/** How many runs and records the app's database holds (counted in the page, not copied out). */
function counts(page: Page): Promise<{ runs: number; records: number }> {
  return page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(name);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const count = (store: string) =>
      new Promise<number>((resolve, reject) => {
        const req = db.transaction(store, 'readonly').objectStore(store).count();
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    try {
      return { runs: await count('runs'), records: await count('records') };
    } finally {
      db.close();
    }
  }, DB_NAME);
}

/** Milliseconds the page takes to run a task queued now: its main thread's lag. */
const lag = (page: Page) => page.evaluate(() => new Promise<number>((r) => { const t = performance.now(); setTimeout(() => r(performance.now() - t), 0); }));

test('a 20,000-line samples file: progress, a page that answers, Cancel storing nothing, then one run', async ({ page }) => {
  test.setTimeout(300_000);
  const file = { name: NAME, mimeType: 'application/x-ndjson', buffer: Buffer.from(lmEvalSamplesText(N)) };
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await page.getByTestId('nav-library').click();
  const progress = page.getByTestId('library-import-progress');

  // Cancel once records are being checked: nothing of the file is stored
  await page.getByTestId('library-import').setInputFiles(file);
  await expect(page.getByTestId('library-import-progress-text')).toContainText(/[1-9][\d,]* records checked/);
  await page.getByTestId('library-import-cancel').click();
  await expect(page.getByTestId('library-import-note')).toHaveText(`Import of ${NAME} cancelled: nothing of it was stored.`);
  await expect(progress).toHaveCount(0);
  expect(await counts(page)).toEqual({ runs: 0, records: 0 });

  // the whole file: while it imports, the page answers within a second and opens another screen
  const started = Date.now();
  await page.getByTestId('library-import').setInputFiles(file);
  await expect(progress).toBeVisible();
  const lags: number[] = [];
  for (let i = 0; i < 5 && (await progress.isVisible()); i++) lags.push(await lag(page));
  const clicked = Date.now();
  await page.getByTestId('nav-help').click();
  await expect(page.getByTestId('screen-help')).toBeVisible({ timeout: 2_000 });
  await page.getByTestId('nav-library').click();
  // still importing when the other screen had opened and this one came back
  await expect(progress).toBeVisible({ timeout: 2_000 });
  await expect(page.getByTestId('library-import-progress-text')).toContainText(`of ${N.toLocaleString('en')} stored`, { timeout: 240_000 });
  await expect(page.locator('[data-testid^="library-row-"]')).toHaveCount(1, { timeout: 240_000 });
  const took = Date.now() - started;
  expect(Math.max(...lags), `main-thread lags while importing: ${lags.join(', ')} ms`).toBeLessThan(1_000);
  expect(await counts(page)).toEqual({ runs: 1, records: N });
  await expect(page.locator('[data-testid^="library-row-"]')).toContainText(`${N} questions`);
  expect(errors).toEqual([]);
  console.log(`imported ${N} lines in ${(took / 1000).toFixed(1)} s; the other screen opened ${((clicked - started) / 1000).toFixed(1)} s in; lags ${lags.map((l) => l.toFixed(0)).join(', ')} ms`);
});

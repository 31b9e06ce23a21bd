// Issue 44 item 5 on the production build: Reload model re-asks the Hub for the revision's commit and
// loads anew when it moved, so Start audits the new weights (never "Reused"); Model info and the
// Library show the commit, and Compare's facts carry it for each side. The test runs its own
// stand-in Hub so it can move main between loads.
import { expect, test } from '@playwright/test';
import { startHubServer, type HubServer } from '../test/hub-server';
import { chooseProbes, LOAD_TIMEOUT, RUN_TIMEOUT } from './helpers/app';

const REPO = 'e2e/moving';
let hub: HubServer;

test.beforeAll(async () => {
  hub = await startHubServer({ repos: { [REPO]: 'test/fixtures/reference/tiny-qwen2' }, host: '127.0.0.1', port: 0 });
});
test.afterAll(async () => hub.close());

async function startAndFinish(page: import('@playwright/test').Page): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-view-results').or(page.getByTestId('results-reused'))).toBeVisible({ timeout: RUN_TIMEOUT });
}

test('Reload after the Hub moved main loads the new commit, Start audits it anew, and the commit is shown', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await page.getByTestId('model-hub').check();
  await page.getByTestId('hub-repo').fill(REPO);
  await page.getByTestId('hub-endpoint').fill(hub.url);
  await page.getByTestId('engine-ep').selectOption('wasm');
  await page.getByTestId('load-model').click();
  const first = await hub.commitOf(REPO);
  await expect(page.getByTestId('model-commit')).toHaveText(first.slice(0, 12), { timeout: LOAD_TIMEOUT });
  await page.getByTestId('task-builtin').check();
  await page.getByTestId('task-count').fill('2');
  await chooseProbes(page, { 'uniform-routes': 2 });
  await startAndFinish(page);
  await expect(page.getByTestId('results-reused')).toHaveCount(0);

  hub.moveMain(REPO, 'test/fixtures/reference/tiny-llama');
  const moved = await hub.commitOf(REPO);
  expect(moved).not.toBe(first);
  await page.getByTestId('nav-setup').click();
  await page.getByTestId('load-model').click();
  await expect(page.getByTestId('model-commit')).toHaveText(moved.slice(0, 12), { timeout: LOAD_TIMEOUT });
  await startAndFinish(page);
  await expect(page.getByTestId('results-reused'), 'the moved commit is another model: audited anew').toHaveCount(0);

  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('screen-library')).toContainText(`commit ${first.slice(0, 12)}`);
  await expect(page.getByTestId('screen-library')).toContainText(`commit ${moved.slice(0, 12)}`);
  if (process.env.E2E_SHOTS_DIR) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${process.env.E2E_SHOTS_DIR}/library-commits-${width}.png`, fullPage: true });
    }
  }
  // Compare's facts carry each side's commit: the two loads of main differ there
  const selects = page.locator('[data-testid^="library-select-"]');
  await expect(selects).toHaveCount(2);
  await selects.nth(0).check();
  await selects.nth(1).check();
  await page.getByTestId('library-compare').click();
  const commits = page.getByTestId('compare-fact-commit');
  await expect(commits).toContainText('commit (differs)');
  await expect(commits).toContainText(first.slice(0, 12));
  await expect(commits).toContainText(moved.slice(0, 12));
  await expect(page.getByTestId('compare-facts')).toContainText(/they differ in [^:]*commit/);
  if (process.env.E2E_SHOTS_DIR) await page.screenshot({ path: `${process.env.E2E_SHOTS_DIR}/compare-commits-1280.png`, fullPage: true });
});

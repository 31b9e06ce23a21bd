// Issue 44 item 1, on the production build: a correct attempt looked inside beside the deployment
// is read at the same answer token — where the deployment's answer departs from the gold — on the
// same two tokens, so the columns compare like with like (they read "9"/"9", all zeros, before).
import { expect, test } from '@playwright/test';
import type { AttemptReadout } from '../src/engine/readout';
import { finishedAudit, SCREENS_DIR, screen } from './helpers/app';
import { fitProblems } from './helpers/fit';

test('a correct attempt is read at the deployment\'s departure from the gold, on the same two tokens, at 390 and 1280 px', async ({ page }) => {
  test.setTimeout(600_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await finishedAudit(page, 20, 8);
  // a question reached but not realized: its deployment departs from the gold, a route reached it
  const reached = page.getByTestId('question-list').locator('li.outcome-reachable-only button').first();
  await expect(reached).toBeVisible();
  await reached.click();
  await expect(page.getByTestId('screen-question')).toBeVisible();
  await page.getByTestId('look-inside-deployment').click();
  const suggested = page.getByTestId('look-inside-suggested').first();
  await expect(suggested).toContainText('✓');
  await suggested.click();
  const json = page.getByTestId('look-inside-json');
  await expect(json).toHaveCount(2, { timeout: 180_000 });
  const [dep, att] = (await json.allTextContents()).map((t) => JSON.parse(t) as AttemptReadout);
  expect([att.position, att.prefix, att.gold, att.emitted, att.versus]).toEqual([dep.position, dep.prefix, dep.gold, dep.emitted, 'deployed']);
  expect(att.gold).not.toBe(att.emitted);
  expect(att.route).not.toEqual(dep.route);
  await expect(page.getByTestId('look-inside-column').nth(1).locator('svg[role="img"]')).toHaveCount(2);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.locator('#look-inside-h').scrollIntoViewIfNeeded();
    expect(await fitProblems(page, false), `fits ${width} px`).toEqual([]);
    await page.screenshot({ path: `${SCREENS_DIR}/look-inside-compare-${width}.png`, fullPage: true });
    await page.getByTestId('look-inside').screenshot({ path: `${SCREENS_DIR}/look-inside-columns-${width}.png` });
  }
  await page.getByTestId('nav-help').click();
  await expect(page.getByTestId('glossary-report')).toContainText('route spaces');
  await screen(page, 'help-1280');
});

// Issue 34 items 5 and 8, on the production build as a person sees Setup: the condition is always
// shown, the \boxed{} requirement with it; CoLa's condition on the built-in model is warned of and
// Reset clears it; Start is in view without scrolling; a probe's label says the budget set.
import { expect, test } from '@playwright/test';
import { parsePermalink } from '../src/ui/lib/permalink';
import { LOAD_TIMEOUT, SCREENS_DIR } from './helpers/app';

const linkBoxed = (url: string) => parsePermalink(new URL(url).hash).condition?.requireBoxed === true;

for (const width of [390, 1280]) {
  test(`Setup at ${width} px: condition shown with every control, CoLa's warned of and reset, Start in view, budgets in the labels`, async ({ page }) => {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto('/');
    await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
    // Start is reachable from the top of the long form, and at its foot
    await expect(page.getByTestId('start-run')).toBeInViewport();
    await expect(page.getByTestId('start-run')).toBeEnabled();
    await page.screenshot({ path: `${SCREENS_DIR}/setup-top-${width}.png` });

    const boxed = page.getByTestId('require-boxed');
    await expect(boxed).toBeVisible();
    await expect(boxed).not.toBeChecked();
    await expect(page.getByTestId('condition-warning')).toHaveCount(0);

    // the path: CoLa's protocol and its condition, then CoLa unticked and the template restored by hand
    await page.getByTestId('probe-cola-mcts').check();
    await page.getByTestId('protocol-cola-mcts').click();
    await expect(boxed).toBeChecked();
    await expect(page.getByTestId('condition-warning')).toContainText('never writes \\boxed{}');
    await page.getByTestId('condition').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS_DIR}/setup-condition-warning-${width}.png` });
    await page.getByTestId('probe-cola-mcts').uncheck();
    await page.getByTestId('prompt-template').fill('{{question}}');
    await expect(boxed).toBeChecked();
    await expect(page.getByTestId('condition-warning')).toBeVisible();
    await expect.poll(() => linkBoxed(page.url())).toBe(true);
    await page.getByTestId('condition-reset').click();
    await expect(boxed).not.toBeChecked();
    await expect(page.getByTestId('condition-warning')).toHaveCount(0);
    await expect.poll(() => linkBoxed(page.url())).toBe(false);

    // the budget set is the one the label names
    await page.getByTestId('budget-uniform-routes').fill('16');
    await expect(page.getByTestId('probe-label-uniform-routes')).toHaveText("Random routes (budget 16 distinct routes; the protocol's is 100)");
    await expect(page.getByTestId('start-run')).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `${SCREENS_DIR}/setup-full-${width}.png`, fullPage: true });
  });
}

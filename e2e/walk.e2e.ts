// Issue 21: the guided walk, on the production build, with the keyboard alone: from the home screen
// through every step (each a sentence and its figure) to the real question on the question screen.
import { expect, test, type Page } from '@playwright/test';
import { LOAD_TIMEOUT, RUN_TIMEOUT, screen } from './helpers/app';

/** Tabs until `testId` has focus (at most `max` presses), then presses Enter. */
async function tabTo(page: Page, testId: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.getByTestId(testId).evaluate((el) => el === document.activeElement)) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('Tab');
  }
  throw new Error(`${testId} never took the focus after ${max} tabs`);
}

test('the guided walk completes with the keyboard alone and lands on the real question', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await tabTo(page, 'home-walk');
  await expect(page.getByTestId('screen-walk')).toBeVisible();
  await expect(page).toHaveTitle('Guided walk · ReachLab');
  await tabTo(page, 'walk-start');
  await expect(page.getByTestId('walk-step')).toHaveText('Step 1 of 5', { timeout: RUN_TIMEOUT });

  const sentences: string[] = [];
  for (let step = 1; step <= 5; step++) {
    await expect(page.getByTestId('walk-step')).toHaveText(`Step ${step} of 5`);
    await expect(page.locator('.walk-step h3')).toBeFocused();
    sentences.push((await page.getByTestId('walk-sentence').textContent()) ?? '');
    await screen(page, `walk-${step}`);
    if (step < 5) await tabTo(page, 'walk-next');
  }
  expect(sentences[0]).toMatch(/^Asked .+, the model as deployed answers .+; the right answer is .+\./);
  expect(sentences[1]).toMatch(/Running the same layers in another order — [\d →]+ — the same weights answer .+ \(random route \d+ of 16\)|None of the 16 random routes/);
  expect(sentences[3]).toMatch(/Silencing the MLP block of layer \d+ alone makes the deployed model answer .+ breaks \d+ of the \d+ questions|No single silenced MLP block/);
  await expect(page.getByTestId('figure-route-path')).toHaveCount(0); // step 5 has no figure
  // the figures the steps showed fit the phone's width
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  // the same screens with the real data: the question the walk told
  const asked = sentences[0].match(/^Asked “?(.+?)”?, the model/)?.[1];
  await tabTo(page, 'walk-open-question');
  await expect(page.getByTestId('screen-question')).toBeVisible();
  await expect(page.getByTestId('question-text')).toHaveText(new RegExp(`^\\s*${(asked ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`));
  await expect(page.locator('#question-h')).toBeFocused();
});

// Issues 21 and 34: the guided walk, on the production build, from a fresh profile with the default
// data, with the keyboard alone: from the home screen through every step to the real question on
// the question screen. Each step has content: no figure drawn over an empty set (a failure set of
// n = 0), no "none of the routes reached" followed by figures, and the look inside it opens compares
// two different tokens, at 390 px and at 1280 px.
import { expect, test, type Page } from '@playwright/test';
import type { AttemptReadout } from '../src/engine/readout';
import { LOAD_TIMEOUT, SCREENS_DIR, screen } from './helpers/app';

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

/** Every figure on the page says what it shows over how many questions: none over an empty set. */
async function expectNoEmptyFigure(page: Page, where: string): Promise<void> {
  for (const alt of await page.locator('.figure-plot[role="img"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))) {
    expect(alt, `${where}: a figure over an empty set`).not.toMatch(/\(n = 0\)|identified on 0 failures/);
  }
}

test('the guided walk on the default data tells a question with content at every step, keyboard alone, at 390 and 1280 px', async ({ page }) => {
  test.setTimeout(900_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await tabTo(page, 'home-walk');
  await expect(page.getByTestId('screen-walk')).toBeVisible();
  await expect(page).toHaveTitle('Guided walk · ReachLab');
  await tabTo(page, 'walk-start');
  await expect(page.getByTestId('walk-step').or(page.getByTestId('walk-empty'))).toBeVisible({ timeout: 840_000 });

  if (await page.getByTestId('walk-empty').isVisible()) {
    // no question to tell: one sentence, and no figure at all
    await expect(page.getByTestId('walk-empty')).toHaveText(/^(Of \d+ questions the model answers \d+ wrong as deployed, and on none|The model answered all \d+ questions right)[^.]*\./);
    await expect(page.locator('[data-testid^="figure-"]')).toHaveCount(0);
    await screen(page, 'walk-empty-390');
    return;
  }

  const sentences: string[] = [];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (let step = 1; step <= 5; step++) {
      await expect(page.getByTestId('walk-step')).toHaveText(`Step ${step} of 5`);
      await expect(page.locator('.walk-step h3')).toBeFocused();
      const sentence = (await page.getByTestId('walk-sentence').textContent()) ?? '';
      if (width === 390) sentences.push(sentence);
      await expectNoEmptyFigure(page, `step ${step} at ${width} px`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `step ${step} fits ${width} px`).toBeLessThanOrEqual(width);
      await screen(page, `walk-${step}-${width}`);
      if (step < 5) await tabTo(page, 'walk-next');
    }
    if (width === 390) for (let step = 5; step > 1; step--) await tabTo(page, 'walk-back');
  }
  expect(sentences[0]).toMatch(/^Asked .+, the model as deployed answers .+; the right answer is .+\./);
  // step 2: a route or a sample reached the gold and never the decoy
  expect(sentences[1]).toMatch(/(Running the same weights along another route through the layers — [\d →]+, where deployment runs [\d →]+ — the model answers|Sampling the deployed model .* sample \d+ of 16 answers) .+, and none of the 16 answers the wrong .+ next to it \(the decoy\)/);
  expect(sentences[1]).not.toMatch(/None of the/);
  // step 4: an out-of-sample repair with its figure, or one sentence and no figure
  if (/^Silencing the MLP block of layer/.test(sentences[3])) {
    expect(sentences[3]).toMatch(/chosen on \d+ other failures, not on this one, and repairs [1-9]\d* of the \d+ held out\. It is no free fix: the same silencing breaks \d+ of the \d+ questions/);
  } else {
    expect(sentences[3].split('. ')).toHaveLength(1);
  }

  // step 3's button opens the question at its read-out, which compares two different tokens
  await page.setViewportSize({ width: 390, height: 844 });
  for (let step = 5; step > 3; step--) await tabTo(page, 'walk-back');
  await tabTo(page, 'walk-look-inside');
  await expect(page.getByTestId('screen-question')).toBeVisible();
  await expect(page.locator('#look-inside-h')).toBeFocused();
  await expect(page.locator('#look-inside-h')).toBeInViewport();
  const json = page.getByTestId('look-inside-json');
  await expect(json).toBeAttached({ timeout: 120_000 });
  const shown = JSON.parse((await json.textContent())!) as AttemptReadout;
  expect(shown.gold, `gold ${shown.goldToken} and emitted ${shown.emittedToken}`).not.toBe(shown.emitted);
  expect(shown.logitDiff).not.toBe(0);
  await expect(page.getByTestId('look-inside-summary')).toContainText(`gold token ${JSON.stringify(shown.goldToken)}`);
  await expect(page.getByTestId('look-inside-summary')).toContainText(shown.position > 0 ? `At answer token ${shown.position + 1}, after ${JSON.stringify(shown.prefix)}` : 'At the first answer token');
  await page.screenshot({ path: `${SCREENS_DIR}/walk-look-inside-390.png` });

  // the same screens with the real data: the question the walk told
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await tabTo(page, 'home-walk');
  await tabTo(page, 'walk-start');
  await expect(page.getByTestId('walk-step')).toHaveText('Step 1 of 5', { timeout: 240_000 });
  const asked = sentences[0].match(/^Asked “?(.+?)”?, the model/)?.[1];
  for (let step = 1; step < 5; step++) await tabTo(page, 'walk-next');
  await tabTo(page, 'walk-open-question');
  await expect(page.getByTestId('screen-question')).toBeVisible();
  await expect(page.getByTestId('question-text')).toHaveText(new RegExp(`^\\s*${(asked ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`));
  await expect(page.locator('#question-h')).toBeFocused();

  // Results on the phone: each question's text gets a readable width (three columns squeezed it to 7 px)
  await page.getByTestId('back-to-results').click();
  const list = page.getByTestId('question-list');
  await expect(list).toBeVisible();
  const widths = await list.locator('.q-text').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
  expect(widths.length).toBeGreaterThan(0);
  expect(Math.min(...widths), 'narrowest question text at 390 px').toBeGreaterThanOrEqual(150);
  await list.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS_DIR}/walk-results-list-390.png` });
});

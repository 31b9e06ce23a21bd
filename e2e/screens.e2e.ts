// Issue 21, what a person sees on any screen, on the production build: the title follows the screen,
// focus lands on the screen's heading, returning from a question restores the list; every input has
// a name of its own; at 390, 1280 and 1920 px no screen scrolls sideways, no control is clipped, and
// from 1280 px no table needs sideways scrolling (the study report's: e2e/report-verdicts.e2e.ts).
// Screenshots go to SCREENS_DIR as fit-<width>-*.png.
import { expect, test, type Page } from '@playwright/test';
import { finishedAudit, LOAD_TIMEOUT, screen } from './helpers/app';
import { fitProblems } from './helpers/fit';

/** Inputs without a name, and names two inputs share (check boxes and radio buttons aside). */
async function labelProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const nameOf = (el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string => {
      const aria = el.getAttribute('aria-label');
      if (aria) return aria.trim();
      const by = el.getAttribute('aria-labelledby');
      if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
      return (el.labels?.[0]?.textContent ?? el.title ?? '').replace(/\s+/g, ' ').trim();
    };
    const problems: string[] = [];
    const seen = new Map<string, number>();
    for (const el of document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('main input, main select, main textarea')) {
      if ((el as HTMLElement).offsetParent === null && el.type !== 'file') continue;
      const name = nameOf(el);
      const id = el.getAttribute('data-testid') ?? el.outerHTML.slice(0, 60);
      if (!name) problems.push(`${id} has no name`);
      else if (el.type !== 'checkbox' && el.type !== 'radio') seen.set(name, (seen.get(name) ?? 0) + 1);
    }
    for (const [name, n] of seen) if (n > 1) problems.push(`${n} inputs are named "${name}"`);
    return problems;
  });
}

test('the title follows the screen, focus lands on its heading, and back from a question the list is where it was', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await finishedAudit(page);
  await expect(page).toHaveTitle('Results · ReachLab');
  await expect(page.getByRole('heading', { level: 2, name: 'Results' })).toBeFocused();
  expect(await labelProblems(page), 'Results inputs').toEqual([]);

  // open a question far down the list
  const rows = page.locator('[data-testid^="open-question-"]');
  await expect(rows).toHaveCount(20);
  const row = rows.nth(15);
  const docOf = async (testId: string | null) => (testId ?? '').replace(/^open-question-/, '');
  const first = await docOf(await row.getAttribute('data-testid'));
  await row.scrollIntoViewIfNeeded();
  const listY = await page.evaluate(() => window.scrollY);
  expect(listY).toBeGreaterThan(0);
  await row.click();
  await expect(page).toHaveTitle(`Question ${first} · ReachLab`);
  const heading = page.locator('#question-h');
  await expect(heading).toBeFocused();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page).not.toHaveTitle(`Question ${first} · ReachLab`);
  const second = ((await page.title()).match(/^Question (.+) · ReachLab$/) ?? [])[1];
  expect(second, 'the next question is named in the title').toBeTruthy();
  await expect(heading).toContainText(`Question ${second}`);

  // back: the list where it was, focus on the question it came from
  await page.getByTestId('back-to-results').click();
  await expect(page).toHaveTitle('Results · ReachLab');
  await expect(page.getByTestId(`open-question-${second}`)).toBeFocused();
  expect(Math.abs((await page.evaluate(() => window.scrollY)) - listY)).toBeLessThan(2);

  // progress was announced politely, and every screen's inputs are named
  await expect(page.getByTestId('announcer')).toHaveText(/^Audit finished: 20 of 20 questions\. Results are ready\.$/);
  for (const nav of ['setup', 'library', 'study'] as const) {
    await page.getByTestId(`nav-${nav}`).click();
    await expect(page.getByTestId(`screen-${nav}`)).toBeVisible();
    await expect(page.locator('main h2').first()).toBeFocused();
    expect(await labelProblems(page), `${nav} inputs`).toEqual([]);
  }
  await expect(page).toHaveTitle('Study · ReachLab');
});

test('every screen fits 390, 1280 and 1920 px: no sideways scrolling, no clipped control', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await finishedAudit(page);
  const screens: [string, () => Promise<void>][] = [
    ['setup', async () => { await page.getByTestId('nav-setup').click(); await expect(page.getByTestId('screen-setup')).toBeVisible(); }],
    ['results', async () => { await page.getByTestId('nav-results').click(); await expect(page.getByTestId('screen-results')).toBeVisible(); }],
    ['question', async () => { await page.locator('[data-testid^="open-question-"]').first().click(); await expect(page.getByTestId('screen-question')).toBeVisible(); }],
    ['library', async () => { await page.getByTestId('nav-library').click(); await expect(page.getByTestId('screen-library')).toBeVisible(); }],
    ['study', async () => { await page.getByTestId('nav-study').click(); await expect(page.getByTestId('screen-study')).toBeVisible(); }],
  ];
  const problems: string[] = [];
  for (const width of [390, 1280, 1920]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    for (const [name, open] of screens) {
      await open();
      await page.waitForTimeout(200); // figures re-lay out at the new width
      for (const p of await fitProblems(page, width >= 1280)) problems.push(`${width} px, ${name}: ${p}`);
      await screen(page, `fit-${width}-${name}`);
    }
  }
  expect(problems).toEqual([]);
});

test('"Reproduce the paper" shows its progress at the top of the screen', async ({ page }) => {
  test.setTimeout(900_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await page.getByTestId('home-reproduce').click();
  // the study's progress is on screen without scrolling: runs done, the current run's questions
  const progress = page.getByTestId('study-progress');
  await expect(progress).toBeVisible({ timeout: LOAD_TIMEOUT });
  await expect(progress).toContainText(/Run \d+ of \d+ \(\d+ done\)/);
  await expect(page.getByTestId('study-progress-current')).toContainText(/ — \d+ of \d+ questions$/, { timeout: LOAD_TIMEOUT });
  await expect(progress).toContainText(/Time left: about \S+/, { timeout: 600_000 });
  const box = await progress.boundingBox();
  expect(box && box.y >= 0 && box.y + box.height <= 800, `progress at y ${box?.y}`).toBe(true);
  await screen(page, 'fit-1280-study-running');
});

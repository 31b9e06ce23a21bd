// Issue 36, one table of screens, on the production build: the address holds the screen and its
// parameters (then Setup's permalink), so a reload stays on a question of a run, keeps Setup's
// fields, and Back returns through the screens the person moved through. Screenshots go to SCREENS_DIR as navigation-<width>-*.png.
import { expect, test, type Page } from '@playwright/test';
import { parsePermalink } from '../src/ui/lib/permalink';
import { SCREENS_DIR } from './helpers/app';

/** Two lm-evaluation-harness samples: imported, they are a run with two questions, no model needed. */
const SAMPLES = [0, 1]
  .map((i) => JSON.stringify({
    doc_id: i, doc: { question: `${i} + 2 = ?` }, target: String(i + 2), arguments: { gen_args_0: { arg_0: `${i} + 2 =` } },
    resps: [[String(i + 2)]], filtered_resps: [String(i + 2)], doc_hash: `d${i}`, prompt_hash: `p${i}`, exact_match: 1,
  }))
  .join('\n');

const hashOf = (page: Page) => new URL(page.url()).hash;

for (const width of [390, 1280]) {
  test(`at ${width} px: Setup → Library → a question, reload, then Back through each screen`, async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/');
    await expect(page.getByTestId('screen-setup')).toBeVisible();
    await page.getByTestId('task-count').fill('7');
    await page.getByTestId('task-count').blur();
    await expect.poll(() => hashOf(page)).toMatch(/^#model=.*task=builtin%3A[\w-]+%3A7&/); // Setup's address: its permalink
    const setupHash = hashOf(page);
    const setupPart = setupHash.slice(1);

    await page.getByTestId('nav-library').click();
    await expect(page.getByTestId('screen-library')).toBeVisible();
    expect(hashOf(page)).toBe(`#screen=library&${setupPart}`);
    await page.getByTestId('library-import').setInputFiles({ name: 'samples_nav.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(SAMPLES) });
    const open = page.locator('[data-testid^="library-open-"]').first();
    await expect(open).toBeVisible();
    const runId = (await open.getAttribute('data-testid'))!.slice('library-open-'.length);
    await open.click();
    await expect(page.getByTestId('screen-results')).toBeVisible();
    expect(hashOf(page)).toBe(`#screen=results&run=${runId}&${setupPart}`);
    await page.getByTestId('open-question-1').click();
    await expect(page.getByTestId('screen-question')).toBeVisible();
    expect(hashOf(page)).toBe(`#screen=question&run=${runId}&q=1&${setupPart}`);
    await page.screenshot({ path: `${SCREENS_DIR}/navigation-${width}-question.png`, fullPage: true });

    // a reload (or the address as a bookmark) opens the same question of the same run
    await page.reload();
    await expect(page.getByRole('heading', { level: 2, name: /^Question 1\b/ })).toBeVisible();
    await expect(page).toHaveTitle('Question 1 · ReachLab');
    await expect(page.getByTestId('nav-results')).toHaveAttribute('aria-current', 'page');

    // Back: Results of that run, the Library, then Setup with its permalink
    await page.goBack();
    await expect(page.getByTestId('screen-results')).toBeVisible();
    await expect(page).toHaveTitle('Results · ReachLab');
    await page.goBack();
    await expect(page.getByTestId('screen-library')).toBeVisible();
    await page.goBack();
    await expect(page.getByTestId('screen-setup')).toBeVisible();
    // the same setup, kept through the reload (a condition's members may come back in another order)
    expect(parsePermalink(hashOf(page))).toEqual(parsePermalink(setupHash));
    await expect(page.getByTestId('task-count')).toHaveValue('7');
    await page.screenshot({ path: `${SCREENS_DIR}/navigation-${width}-back-to-setup.png`, fullPage: true });
    // and Forward again
    await page.goForward();
    await expect(page.getByTestId('screen-library')).toBeVisible();

    // an address that cannot open says why, on Setup
    await page.goto('/#screen=results&run=no-such-run');
    await expect(page.getByTestId('screen-setup')).toContainText('run "no-such-run" is not in this browser\'s library');
    await page.screenshot({ path: `${SCREENS_DIR}/navigation-${width}-bad-link.png`, fullPage: true });
    await expect(page.getByTestId('screen-failed')).toHaveCount(0);
    expect(errors).toEqual([]);
  });
}

// The Study screen's state as a person sees it on the production build: a reload mid-study comes
// back to the Study screen with a notice and the Library offers Resume; an edited plan is counted as
// the new plan (its own progress, no report of the old one); the silencing scan run opens question
// by question with each layer's effect and a sentence explaining its count.
import { expect, test, type Page } from '@playwright/test';
import { SCREENS_DIR } from './helpers/app';

const PLAN = {
  name: 'e2e study state',
  models: ['builtin:micro-arith'],
  tasks: ['builtin:arith-2d'],
  probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'mcts-routes', space: 'blocks' }, { probe: 'sampling' }],
  budget: 8,
  questions: 24,
  question_seed: 1,
  seed: 1,
  scan: true,
};
const RUNS = 3 + 1;
const STUDY_TIMEOUT = 600_000;

const doneRuns = (page: Page) => page.getByTestId('study-runs').locator('li[data-state="done"]').count();
const heading = (page: Page) => page.getByTestId('study-runs-heading');

test('reload mid-study, resume from the Library, edit the plan, open the scan run', async ({ page }) => {
  test.setTimeout(2 * STUDY_TIMEOUT);
  await page.goto('/');
  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify(PLAN, null, 2));
  await expect(heading(page)).toContainText(`0 of ${RUNS} done`);
  await page.getByTestId('study-start').click();
  await expect.poll(() => doneRuns(page), { timeout: STUDY_TIMEOUT }).toBeGreaterThanOrEqual(1);

  // a reload mid-study: back on the Study screen, told where the study stopped
  await page.reload();
  await expect(page.getByTestId('screen-study')).toBeVisible();
  const notice = page.getByTestId('study-notice');
  await expect(notice).toContainText('The study “e2e study state”');
  await expect(notice).toContainText('stopped when its page was closed or reloaded');
  // the plan's standing is read from the store (its run keys derived from the plan) once it shows
  await expect(heading(page)).toContainText('interrupted');
  const done = await doneRuns(page);
  expect(done).toBeGreaterThanOrEqual(1);
  expect(done).toBeLessThan(RUNS);
  await expect(notice).toContainText(`with ${done} of ${RUNS} runs done`);
  await expect(heading(page)).toContainText(`(${done} of ${RUNS} done), interrupted`);
  await expect(page.getByTestId('study-start')).toHaveText('Resume the study');
  await page.screenshot({ path: `${SCREENS_DIR}/study-state-01-reloaded.png`, fullPage: true });

  // the Library lists it as interrupted, told apart by plan key and date, and offers Resume
  await page.getByTestId('nav-library').click();
  const row = page.getByTestId('library-studies').locator('li', { hasText: 'e2e study state' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`interrupted, ${done} of ${RUNS} runs done`);
  await expect(row).toContainText(/plan [0-9a-f]{12}, started \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  await page.screenshot({ path: `${SCREENS_DIR}/study-state-02-library.png`, fullPage: true });
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('screen-study-report')).toBeVisible({ timeout: STUDY_TIMEOUT });

  // back on the Study screen: this plan is done; an edited plan is another plan, with no report yet
  await page.getByTestId('nav-study').click();
  await expect(heading(page)).toContainText(`(${RUNS} of ${RUNS} done)`);
  await expect(page.getByTestId('study-open-report')).toBeVisible();
  await page.getByTestId('study-form-budget').fill('5');
  await page.getByTestId('study-form-budget').blur();
  await expect(heading(page)).toContainText(`(0 of ${RUNS} done)`);
  await expect(page.getByTestId('study-open-report')).toHaveCount(0);
  await expect(page.getByTestId('study-start')).toHaveText('Run the study');
  await page.screenshot({ path: `${SCREENS_DIR}/study-state-03-edited.png`, fullPage: true });
  await page.getByTestId('study-form-budget').fill('8');
  await page.getByTestId('study-form-budget').blur();
  await expect(heading(page)).toContainText(`(${RUNS} of ${RUNS} done)`);
  await page.getByTestId('study-open-report').click();
  await expect(page.getByTestId('screen-study-report')).toBeVisible();

  // F2's silencing run opens like any run: the count explained, per question its layer effects
  await page.getByTestId('row-action-study-f2-0-1').click();
  await expect(page.getByTestId('screen-silencing-run')).toBeVisible();
  const count = await page.getByTestId('silencing-run-count').innerText();
  const m = /^(\d+) = the (\d+) failure questions? \(reachable under .+, not realized\) \+ (\d+) realized questions? of the defining run random-routes\/blocks \([0-9a-f]{12}\) of the study “e2e study state”\.$/.exec(count);
  expect(m, count).not.toBeNull();
  const [total, failures, realized] = m!.slice(1).map(Number);
  expect(failures + realized).toBe(total);
  const rows = page.getByTestId('silencing-run-questions').locator('tbody tr');
  await expect(rows).toHaveCount(total);
  await expect(page.getByTestId('silencing-run-questions').locator('tbody tr[data-role="failure"]')).toHaveCount(failures);
  await expect(page.getByTestId('silencing-run-progress')).toContainText(`${total} of ${total} questions scanned`);
  await page.screenshot({ path: `${SCREENS_DIR}/study-state-04-scan-run.png`, fullPage: true });

  // a failure question's screen shows what silencing each layer did to it
  await page.getByTestId('silencing-run-questions').locator('tbody tr[data-role="failure"] button').first().click();
  await expect(page.getByTestId('screen-question')).toBeVisible();
  const effects = page.getByTestId('silencing-effects').locator('tbody tr');
  await expect(effects.first()).toBeVisible();
  const words = await effects.locator('td:last-child').allInnerTexts();
  expect(words.length).toBeGreaterThan(1);
  for (const w of words) expect(['repaired', 'still wrong']).toContain(w);
  await page.screenshot({ path: `${SCREENS_DIR}/study-state-05-question.png`, fullPage: true });
  await page.getByTestId('back-to-results').click();
  await expect(page.getByTestId('screen-silencing-run')).toBeVisible();
});

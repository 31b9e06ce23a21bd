// One definition of a run, as a person meets it on the production build: two runs that differ only
// in their route space are told apart in the Library and refused by Compare, naming the space;
// Setup refuses, in words, presets that cannot run together and a budget past the bound; a task the
// built-in model was not trained on carries a warning on Setup and in the Study form.
import { expect, test, type Page } from '@playwright/test';
import { LOAD_TIMEOUT, SCREENS_DIR } from './helpers/app';

const STUDY_TIMEOUT = 300_000;

/** The run id behind the Library's probes cell that contains `text`. */
async function runIdWith(page: Page, text: string): Promise<string> {
  const cell = page.locator('[data-testid^="library-probes-"]', { hasText: text });
  await expect(cell).toHaveCount(1);
  return (await cell.getAttribute('data-testid'))!.slice('library-probes-'.length);
}

test('Compare refuses two runs that differ in route space, naming the space; the Library shows each space', async ({ page }) => {
  test.setTimeout(STUDY_TIMEOUT + 60_000);
  await page.goto('/');
  await page.getByTestId('nav-study').click();
  const plan = {
    name: 'e2e two spaces',
    models: ['builtin:micro-arith'],
    tasks: ['builtin:arith-2d'],
    probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'random-routes', space: 'neighborhood' }],
    budget: 4,
    questions: 6,
    question_seed: 1,
    seed: 1,
    scan: false,
  };
  await page.getByTestId('study-plan').fill(JSON.stringify(plan, null, 2));
  await page.getByTestId('study-start').click();
  await expect(page.getByTestId('screen-study-report')).toBeVisible({ timeout: STUDY_TIMEOUT });

  await page.getByTestId('nav-library').click();
  const blocks = await runIdWith(page, 'random routes ×4 · blocks');
  const neighborhood = await runIdWith(page, 'random routes ×4 · neighborhood');
  await page.getByTestId(`library-select-${blocks}`).check();
  await page.getByTestId(`library-select-${neighborhood}`).check();
  await page.getByTestId('library-compare').click();
  await expect(page.getByTestId('compare-refused')).toHaveText(
    'Not compared. The runs were probed differently: space (A: blocks, B: neighborhood) differs. A comparison needs the same probe spec (the probe seed aside).',
  );
  await expect(page.getByTestId('compare-fact-probes-and-budgets')).toContainText('probes and budgets (differs)');
  await expect(page.getByTestId('table-transitions')).toHaveCount(0);
  await page.screenshot({ path: `${SCREENS_DIR}/run-definition-compare-space.png`, fullPage: true });
});

test('Setup refuses both MCTS presets and a budget past the bound in words, and warns on an untrained task', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('screen-setup')).toBeVisible();
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  const problems = page.getByTestId('setup-problems');
  const start = page.getByTestId('start-run');
  await expect(start).toBeEnabled();

  await page.getByTestId('probe-cola-mcts').check();
  await page.getByTestId('probe-program-selection-mcts').check();
  await expect(problems).toContainText('CoLa MCTS and Program-selection MCTS both run mcts-routes; choose one.');
  await expect(start).toBeDisabled();
  await page.screenshot({ path: `${SCREENS_DIR}/run-definition-setup-mcts.png`, fullPage: true });
  await page.getByTestId('probe-program-selection-mcts').uncheck();
  await expect(problems).toHaveCount(0);
  await expect(start).toBeEnabled();

  await page.getByTestId('budget-sampling-ceiling').fill('100000000000');
  await expect(problems).toContainText('Sampling ceiling: the budget can be at most 10,000 attempts per question');
  await expect(problems).toContainText('it is 100,000,000,000.');
  await expect(start).toBeDisabled();
  await page.getByTestId('budget-sampling-ceiling').fill('8');
  await expect(start).toBeEnabled();

  await expect(page.getByTestId('untrained-warning')).toHaveCount(0);
  await page.getByTestId('task-builtin-select').selectOption('arith-1d');
  await expect(page.getByTestId('untrained-warning')).toContainText('reachlab/micro-arith was trained only on two-digit arithmetic (arith-2d); on arith-1d it was never trained');
  await page.screenshot({ path: `${SCREENS_DIR}/run-definition-setup-untrained.png`, fullPage: true });

  await page.getByTestId('nav-study').click();
  await page.getByTestId('study-plan').fill(JSON.stringify({ models: ['builtin:micro-arith-rl'], tasks: ['builtin:arith-3d'] }));
  await expect(page.getByTestId('study-form-untrained')).toContainText('reachlab/micro-arith-rl was trained only on two-digit arithmetic (arith-2d); on builtin:arith-3d it was never trained');
});

// Issue 44 item 9 on the production build: a task file's id column is guessed (its questions keep the
// file's ids on Results), and a file whose answers are worked solutions gets a warning on Setup
// naming the condition fields to change. Screenshots go to E2E_SHOTS_DIR (outside the repo) when set.
import { expect, test } from '@playwright/test';
import { chooseProbes, LOAD_TIMEOUT, startRun, viewResults } from './helpers/app';

const ROWS = [
  { id: 'gsm-7', question: '12+30=', answer: 'Twelve and thirty make 12 + 30 = 42 in all.\n#### 42' },
  { id: 'gsm-9', question: '20+21=', answer: 'Twenty and twenty-one make 20 + 21 = 41 in all.\n#### 41' },
];

for (const width of [390, 1280]) {
  test(`a task file's ids are kept and its worked answers bring a warning, ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/');
    await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
    await page.getByTestId('task-file').check();
    const jsonl = ROWS.map((r) => JSON.stringify(r)).join('\n');
    await page.getByTestId('task-file-input').setInputFiles({ name: 'worked.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(jsonl) });
    await expect(page.getByTestId('map-id')).toHaveValue('id');
    const warning = page.getByTestId('file-answer-warning');
    await expect(warning).toContainText('worked solutions in words (row 1');
    await expect(warning).toContainText('Max new tokens (now 8');
    await expect(warning).toContainText('Stop sequences');
    if (process.env.E2E_SHOTS_DIR) await warning.screenshot({ path: `${process.env.E2E_SHOTS_DIR}/task-file-warning-${width}.png` });
    // the fields named: the warning goes once they fit
    await page.getByTestId('max-new-tokens').fill('256');
    await expect(warning).toContainText('Stop sequences');
    await expect(warning).not.toContainText('Max new tokens');

    await page.getByTestId('task-count').fill('2');
    await chooseProbes(page, { 'uniform-routes': 2 });
    await expect(page.getByTestId('setup-problems')).toHaveCount(0);
    await startRun(page);
    await viewResults(page);
    await expect(page.getByTestId('open-question-gsm-7')).toBeVisible();
    await expect(page.getByTestId('open-question-gsm-9')).toBeVisible();
    await expect(page.getByTestId('open-question-row-0')).toHaveCount(0);
  });
}

// The look inside on the production build: the built-in model audited on WebGPU (SwiftShader),
// its deployment attempt read out on the question screen, equals the engine CLI's read-out (Node,
// WASM) of the same prompt, gold answer and response within the logits' tolerance (the reference
// checkpoints' 2e-3): the two runtimes agree, and the page reads the attempt the run made.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { readoutDiff, type AttemptReadout } from '../src/engine/readout';
import { chooseProbes, finishedAudit, LOAD_TIMEOUT, screen, startRun, viewResults } from './helpers/app';

const TOLERANCE = 2e-3;
const BUILTIN_DIR = 'public/hub/reachlab/micro-arith/resolve/main';

test('the look inside for the built-in model\'s deployment attempt equals the engine CLI\'s read-out', async ({ page }) => {
  test.setTimeout(420_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('screen-setup')).toBeVisible();
  await page.getByTestId('model-builtin').check();
  await page.getByTestId('engine-ep').selectOption('webgpu');
  await page.getByTestId('load-model').click();
  await expect(page.getByTestId('model-info')).toContainText('WebGPU', { timeout: LOAD_TIMEOUT });
  await page.getByTestId('task-builtin').check();
  await page.getByTestId('task-count').fill('12');
  await chooseProbes(page, { 'uniform-routes': 2 });
  await startRun(page);
  await viewResults(page);
  // a question the deployment gets wrong: a right answer has no token where it departs from the gold
  await page.getByTestId('question-list').locator('li:not(.outcome-realized) button').first().click();
  await expect(page.getByTestId('screen-question')).toBeVisible();

  await page.getByTestId('look-inside-deployment').click();
  const json = page.getByTestId('look-inside-json');
  await expect(json).toBeAttached({ timeout: 120_000 });
  const shown = JSON.parse((await json.textContent())!) as AttemptReadout;
  await expect(page.getByTestId('look-inside-column').locator('svg[role="img"]')).toHaveCount(2);

  const prompt = (await page.getByTestId('question-prompt').textContent())!;
  const gold = (await page.getByTestId('question-gold').textContent())!;
  const response = (await page.getByTestId('attempts-deployment').locator('pre.response').first().textContent())!;
  const dir = mkdtempSync(join(tmpdir(), 'look-inside-'));
  writeFileSync(join(dir, 'prompt.txt'), prompt);
  const out = execFileSync('npm', ['run', '-s', 'engine', '--', 'readout', '--model', BUILTIN_DIR, '--prompt-file', join(dir, 'prompt.txt'), '--gold', gold, '--response', response, '--route', shown.route.join(',')], { encoding: 'utf8' });
  const cli = JSON.parse(out) as AttemptReadout;

  expect(shown.route).toEqual(cli.route);
  expect(shown.silence).toEqual([]);
  expect([shown.gold, shown.emitted, shown.goldToken, shown.emittedToken]).toEqual([cli.gold, cli.emitted, cli.goldToken, cli.emittedToken]);
  const { maxAbsDiff, ranksEqual } = readoutDiff(shown, cli);
  expect(maxAbsDiff, 'max |page − CLI| over lens logits, probabilities and attributions').toBeLessThanOrEqual(TOLERANCE);
  expect(ranksEqual).toBe(true);
  expect(shown.identityError, 'embed + Σattn + Σmlp − logit difference').toBeLessThanOrEqual(TOLERANCE);
  expect(errors).toEqual([]);
});

test('the silencing scan\'s per-layer view reads out every failure question and shows each layer\'s mean MLP attribution beside its repairs', async ({ page }) => {
  test.setTimeout(420_000);
  // enough questions and routes that some question is reachable without being realized
  await finishedAudit(page, 60, 16);
  await page.getByText('Per-layer scan over the whole failure set (in-sample)').click();
  const table = page.getByTestId('table-silencing-in-sample');
  await expect(table.getByRole('columnheader', { name: 'mean MLP attribution (gold − emitted)' })).toHaveCount(0);
  await page.getByTestId('scan-attribution-start').click();
  await expect(page.getByTestId('scan-attribution-summary')).toBeVisible({ timeout: 240_000 });
  await expect(table.getByRole('columnheader', { name: 'mean MLP attribution (gold − emitted)' })).toBeVisible();
  // every layer of the built-in model ran on every failure question's default route: each layer's
  // mean is a number over all of them, and the count read out is the failure set's size
  const failures = Number((await page.getByTestId('scan-attribution-summary').textContent())!.match(/over the (\d+) failure-set questions/)![1]);
  expect(failures).toBeGreaterThan(0);
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(6);
  for (let i = 0; i < 6; i++) {
    const cells = await rows.nth(i).locator('td').allTextContents();
    expect(cells[2], `layer ${cells[0]} mean`).toMatch(/^-?\d+(\.\d+)?$/);
    expect(Number(cells[3]), `layer ${cells[0]} questions read out`).toBe(failures);
    expect(Number(cells[4]), `layer ${cells[0]} failures`).toBe(failures);
  }
  await table.scrollIntoViewIfNeeded();
  await screen(page, 'scan-attribution');
});

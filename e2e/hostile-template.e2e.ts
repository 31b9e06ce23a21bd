// Issue 43 on the production build: a checkpoint whose chat template loops, or runs one filter for
// hours, ends the audit's start in a named error within the template deadline (plus the page's own
// latency), and the tab stays usable: a second audit in the same tab runs to its end at once.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startHubServer, type HubServer } from '../test/hub-server';
import { HOSTILE_TEMPLATES } from '../src/engine/testing/hostile-templates';
import { TEMPLATE_LIMITS } from '../src/engine/chat-template';
import { KILL_GRACE_MS } from '../src/engine/template-sandbox';
import { chooseProbes, LOAD_TIMEOUT, RUN_TIMEOUT } from './helpers/app';

/** The corpus cases run here: the in-interpreter time check, the outside kill, the range alias. */
const CASES = ['time check assigned away, then nested loops', 'one sort of 65,536 megabyte strings', 'range by alias'].map((name) => HOSTILE_TEMPLATES.find((c) => c.name === name)!);
/** The page's own share (a click, a worker round trip, a render) on a loaded two-core machine. */
const PAGE_SLACK_MS = 2000;

let hub: HubServer;
let root: string;

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'reachlab-hostile-'));
  const repos: Record<string, string> = {};
  CASES.forEach((c, i) => {
    const dir = join(root, `case-${i}`);
    cpSync('test/fixtures/reference/tiny-qwen2', dir, { recursive: true });
    writeFileSync(join(dir, 'chat_template.jinja'), c.source);
    repos[`hostile/case-${i}`] = dir;
  });
  hub = await startHubServer({ repos, host: '127.0.0.1', port: 0 });
});

test.afterAll(async () => {
  await hub?.close();
  rmSync(root, { recursive: true, force: true });
});

for (const [i, c] of CASES.entries()) {
  test(`a hostile chat template (${c.name}) ends in a named error, and a second audit in the same tab runs`, async ({ page }) => {
    await page.goto('/');
    await expect(page.getByTestId('screen-setup')).toBeVisible();
    await page.getByTestId('model-hub').check();
    await page.getByTestId('hub-repo').fill(`hostile/case-${i}`);
    await page.getByTestId('hub-endpoint').fill(hub.url);
    await page.getByTestId('engine-ep').selectOption('wasm');
    await page.getByTestId('load-model').click();
    await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
    await page.getByTestId('task-builtin').check();
    await page.getByTestId('task-count').fill('2');
    await chooseProbes(page, { 'uniform-routes': 2 });
    await page.getByTestId('chat-template').check();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    const t0 = Date.now();
    await page.getByTestId('start-run').click();
    const title = page.getByTestId('error-title');
    await expect(title).toBeVisible({ timeout: 30_000 });
    const ms = Date.now() - t0;
    await expect(title).toHaveText(new RegExp(`^The audit did not start: ${c.error.source.replace(/^\^/, '')}`));
    expect(ms).toBeLessThan(TEMPLATE_LIMITS.timeMs + KILL_GRACE_MS + 1000 + PAGE_SLACK_MS);
    test.info().annotations.push({ type: 'start to named error', description: `${ms} ms` });

    // the same tab, chat template off: the audit starts and finishes (the engine is not left busy)
    await page.getByTestId('run-back').click();
    await page.getByTestId('chat-template').uncheck();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.getByTestId('start-run').click();
    await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: RUN_TIMEOUT });
  });
}

test('Cancel while a hostile template renders returns the tab at once, and a second audit runs', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('model-hub').check();
  await page.getByTestId('hub-repo').fill('hostile/case-0'); // the nested loops: the render takes the full 2 s
  await page.getByTestId('hub-endpoint').fill(hub.url);
  await page.getByTestId('engine-ep').selectOption('wasm');
  await page.getByTestId('load-model').click();
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await page.getByTestId('task-builtin').check();
  await page.getByTestId('task-count').fill('2');
  await chooseProbes(page, { 'uniform-routes': 2 });
  await page.getByTestId('chat-template').check();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.getByTestId('start-run').click();
  // Cancel is offered before the run exists (here: while its prompts are built)
  const cancel = page.getByTestId('run-cancel');
  await expect(cancel).toBeVisible();
  const t0 = Date.now();
  await cancel.click();
  await expect(page.getByTestId('error-title')).toHaveText('The audit did not start: the audit was cancelled before it started.');
  const ms = Date.now() - t0;
  expect(ms).toBeLessThan(TEMPLATE_LIMITS.timeMs);
  test.info().annotations.push({ type: 'cancel to usable', description: `${ms} ms` });
  await page.getByTestId('run-back').click();
  await page.getByTestId('chat-template').uncheck();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: RUN_TIMEOUT });
});

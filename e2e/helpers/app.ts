// Shared e2e steps for the app: load a stand-in Hub checkpoint, fill the Setup screen, run an audit to
// the end, and capture downloads. Ports come from the same environment variables playwright.config.ts reads.
import { expect, type Locator, type Page } from '@playwright/test';

export const HUB_PORT = Number(process.env.E2E_HUB_PORT ?? 8788);
/** The stand-in Hub's base URL, as typed into the 'hub-endpoint' field. */
export const HUB_URL = `http://127.0.0.1:${HUB_PORT}`;
/** The token the stand-in Hub's gated repo (reference/gated-qwen2) accepts. */
export const HUB_TOKEN = 'hf_e2e_token';
/** Folder the app screenshots go to (relative to the repo root, where Playwright runs); E2E_SCREENS_DIR
 * moves it out of test-results/, which every Playwright run empties when it starts. */
export const SCREENS_DIR = process.env.E2E_SCREENS_DIR ?? 'test-results/screens';

/** Loading and running on SwiftShader WebGPU is slow: generous waits for model load and runs. */
export const LOAD_TIMEOUT = 120_000;
export const RUN_TIMEOUT = 240_000;

export type PresetId = 'uniform-routes' | 'cola-mcts' | 'program-selection-mcts' | 'sampling-ceiling' | 'silencing-scan';

export interface HubModelOptions {
  /** Repo id on the stand-in Hub (default reference/tiny-qwen2). */
  repo?: string;
  token?: string;
  /** The 'engine-ep' choice (default webgpu). */
  ep?: 'auto' | 'webgpu' | 'wasm';
}

export interface HubRunOptions extends HubModelOptions {
  /** Number of questions (default 3). */
  count?: number;
  /** Probe presets to turn on, with a budget for those that take one (true keeps the preset's default).
   * Presets not named are turned off. Default: random routes with budget 4. */
  probes?: Partial<Record<PresetId, number | true>>;
  /** Task source: the built-in task (default) or a file already picked by the caller. */
  task?: 'builtin' | 'file';
}

const ALL_PRESETS: PresetId[] = ['uniform-routes', 'cola-mcts', 'program-selection-mcts', 'sampling-ceiling', 'silencing-scan'];

/** Opens the app on the Setup screen, Hub source chosen, without filling anything else. */
export async function openSetup(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('screen-setup')).toBeVisible();
  await page.getByTestId('model-hub').check();
}

/** Fills the Hub model fields and clicks Load; does not wait for the outcome. */
export async function requestHubModel(page: Page, opts: HubModelOptions = {}): Promise<void> {
  await page.getByTestId('hub-repo').fill(opts.repo ?? 'reference/tiny-qwen2');
  await page.getByTestId('hub-endpoint').fill(HUB_URL);
  await page.getByTestId('hub-token').fill(opts.token ?? '');
  await page.getByTestId('engine-ep').selectOption(opts.ep ?? 'webgpu');
  await page.getByTestId('load-model').click();
}

/** Loads a Hub checkpoint and waits until Setup shows its ModelInfo; returns the 'model-info' locator. */
export async function loadHubModel(page: Page, opts: HubModelOptions = {}): Promise<Locator> {
  await requestHubModel(page, opts);
  const info = page.getByTestId('model-info');
  await expect(info).toBeVisible({ timeout: LOAD_TIMEOUT });
  return info;
}

/** Sets the probe checkboxes and budgets on Setup as `probes` says. */
export async function chooseProbes(page: Page, probes: Partial<Record<PresetId, number | true>>): Promise<void> {
  for (const id of ALL_PRESETS) {
    const box = page.getByTestId(`probe-${id}`);
    const want = probes[id];
    if (want === undefined) await box.uncheck();
    else {
      await box.check();
      if (typeof want === 'number') await page.getByTestId(`budget-${id}`).fill(String(want));
    }
  }
}

/** From a fresh page: Setup filled for a Hub run (model loaded, task, count, probes), not started. */
export async function setupHubRun(page: Page, opts: HubRunOptions = {}): Promise<Locator> {
  await openSetup(page);
  const info = await loadHubModel(page, opts);
  if ((opts.task ?? 'builtin') === 'builtin') await page.getByTestId('task-builtin').check();
  await page.getByTestId('task-count').fill(String(opts.count ?? 3));
  await chooseProbes(page, opts.probes ?? { 'uniform-routes': 4 });
  await expect(page.getByTestId('setup-problems')).toHaveCount(0);
  return info;
}

/** Starts the audit and waits for it to finish ('run-view-results' shows); stays on the Run screen. */
export async function startRun(page: Page): Promise<void> {
  // Leave the field being edited first: in headless Chromium, a press on Start that takes focus
  // from a number field while the page is scrolled to its end scrolls the page (96 px here) between
  // press and release, so the click lands elsewhere.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('screen-run')).toBeVisible();
  await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: RUN_TIMEOUT });
}

/** From the finished Run screen to Results. */
export async function viewResults(page: Page): Promise<void> {
  await page.getByTestId('run-view-results').click();
  await expect(page.getByTestId('screen-results')).toBeVisible();
}

export interface Download {
  filename: string;
  bytes: Buffer;
  text: string;
}

/** Clicks `trigger` and returns the file the page downloads. */
export async function download(page: Page, trigger: Locator): Promise<Download> {
  const [d] = await Promise.all([page.waitForEvent('download'), trigger.click()]);
  const stream = await d.createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const bytes = Buffer.concat(chunks);
  return { filename: d.suggestedFilename(), bytes, text: bytes.toString('utf8') };
}

/** A full-page screenshot under SCREENS_DIR. */
/** A fresh profile with the built-in model's audit finished (random routes and the scan), on Results. */
export async function finishedAudit(page: Page, questions = 20, routes = 8): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await page.getByTestId('task-count').fill(String(questions));
  await chooseProbes(page, { 'uniform-routes': routes, 'silencing-scan': true });
  await startRun(page);
  await viewResults(page);
}

export async function screen(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENS_DIR}/${name}.png`, fullPage: true });
}

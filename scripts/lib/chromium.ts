// Benchmarks in headless Chromium: the built app served by `vite preview` (cross-origin isolated,
// so WASM runs threaded), and pages of the self-test entry in a benchmark mode, each in a fresh
// browser with its own on-disk profile (a fresh weight cache: Playwright's default in-memory
// contexts cannot store a GB-sized file in the Cache API). The browser's peak memory is sampled
// from /proc over its process tree.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { samplePeak } from './proc-mem.ts';

export interface PreviewOptions {
  root: string;
  port: number;
  /** Rebuild the app first (vite build), else serve the existing dist/. */
  build: boolean;
  log(line: string): void;
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((ok) => setTimeout(ok, 500));
  }
}

export interface Preview {
  base: string;
  pid?: number;
}

/** Builds (optionally) and serves the app while `fn` runs; the server's process group ends after. */
export async function withPreview<T>(opts: PreviewOptions, fn: (p: Preview) => Promise<T>): Promise<T> {
  if (opts.build) {
    opts.log('building the app (vite build)…');
    const b = spawnSync('npm', ['run', '-s', 'build'], { cwd: opts.root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (b.status !== 0) throw new Error(`vite build failed (exit ${b.status})`);
  }
  const preview = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(opts.port), '--strictPort', '--bypass-lock'], {
    cwd: opts.root,
    stdio: 'ignore',
    detached: true, // its own process group, ended as a whole
  });
  const base = `http://127.0.0.1:${opts.port}`;
  try {
    await waitFor(`${base}/selftest.html`, 60_000);
    return await fn({ base, pid: preview.pid });
  } finally {
    if (preview.pid !== undefined && preview.exitCode === null) process.kill(-preview.pid, 'SIGTERM');
  }
}

/**
 * Opens `url` in a fresh browser and waits for `window[resultKey]` (or the self-test page's error
 * status); returns it with the browser's peak resident memory (MB). Page errors come back too.
 */
export async function runPage<T>(preview: Preview, url: string, resultKey: string, timeoutS: number): Promise<{ result: T; peakMb: number; errors: string[] }> {
  const profile = mkdtempSync(join(tmpdir(), 'reachlab-bench-'));
  const browser = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const mem = samplePeak(process.pid, preview.pid === undefined ? [] : [preview.pid]);
  const errors: string[] = [];
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${preview.base}${url}`);
    const handle = await page.waitForFunction(
      (key) => (window as unknown as Record<string, unknown>)[key] ?? (document.querySelector('[data-done="error"]')?.textContent || null),
      resultKey,
      { timeout: timeoutS * 1000, polling: 1000 },
    );
    const got = (await handle.jsonValue()) as T | string;
    if (typeof got === 'string') throw new Error(got);
    return { result: got, peakMb: mem.stop(), errors };
  } finally {
    mem.stop();
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

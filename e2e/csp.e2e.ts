// The production build's Content-Security-Policy (src/ui/offline/csp.ts): the built pages carry it
// as a meta tag, vite preview and the service worker send it as a header, an audit on the built-in
// model runs without a single violation (WebAssembly, workers and the service worker still work
// without 'unsafe-eval'), and no source map is built or served.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { chooseProbes, LOAD_TIMEOUT, RUN_TIMEOUT } from './helpers/app';
import { cspHeader, cspMeta } from '../src/ui/offline/csp';

const DIST = 'dist';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

test('the build carries the policy: meta tag in every page, header from the server, no eval', async ({ request }) => {
  for (const page of ['index.html', 'selftest.html']) {
    const html = readFileSync(join(DIST, page), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html);
    expect(meta, `${page} has a CSP meta tag`).not.toBeNull();
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
    const policy = meta![1].replaceAll('&#39;', "'");
    expect(policy).toBe(cspMeta()); // the build names no mirror
    expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(policy).not.toMatch(/'unsafe-eval'/);
  }
  const res = await request.get('/');
  const header = res.headers()['content-security-policy'];
  expect(header).toBe(cspHeader());
  expect(header).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(header).not.toMatch(/'unsafe-eval'/);
  expect(header).toContain("frame-ancestors 'none'");
  expect(readFileSync(join(DIST, 'sw.js'), 'utf8')).toContain(JSON.stringify(cspHeader()).slice(1, -1));
});

test('no source map is built or served', async ({ request }) => {
  const files = filesUnder(DIST).filter((f) => !f.startsWith(join(DIST, 'hub')));
  expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  const scripts = files.filter((f) => /assets\/.*\.js$/.test(f));
  expect(scripts.length).toBeGreaterThan(0);
  for (const f of scripts) expect(readFileSync(f, 'utf8')).not.toMatch(/\/\/# sourceMappingURL=(?!data:)/);
  const main = scripts.find((f) => /assets\/main-/.test(f)) ?? scripts[0];
  const res = await request.get(`/${main.slice(DIST.length + 1)}.map`);
  expect(res.status()).toBe(404);
});

test('an audit on the built-in model runs with no CSP violation, then again under the service worker', async ({ browser }) => {
  const context = await browser.newContext();
  const violations: string[] = [];
  await context.exposeFunction('reportCspViolation', (v: string) => violations.push(v));
  await context.addInitScript(() => {
    const report = (e: SecurityPolicyViolationEvent) =>
      (window as unknown as { reportCspViolation: (v: string) => void }).reportCspViolation(`${e.effectiveDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`);
    document.addEventListener('securitypolicyviolation', report);
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(m.text())) violations.push(`console: ${m.text()}`);
  });
  page.on('worker', (w) => w.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(`worker console: ${m.text()}`);
  }));

  await page.goto('/');
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await page.getByTestId('task-count').fill('2');
  await chooseProbes(page, { 'uniform-routes': 2 });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: RUN_TIMEOUT });
  await page.getByTestId('run-view-results').click();
  await expect(page.getByTestId('screen-results')).toBeVisible();

  // the service worker takes over once the first load settled: a reload is served by it, with the policy
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  // the address kept the screen: the reload reopens Results from the store; Setup loads the model
  await expect(page.getByTestId('screen-results')).toBeVisible({ timeout: LOAD_TIMEOUT });
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Setup' }).click();
  await expect(page.getByTestId('model-info')).toBeVisible({ timeout: LOAD_TIMEOUT });
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const header = await page.evaluate(async () => (await fetch('/')).headers.get('content-security-policy'));
  expect(header).toContain("'wasm-unsafe-eval'");
  expect(violations).toEqual([]);
  await context.close();
});

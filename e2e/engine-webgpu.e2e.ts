// Conformance on the native WebGPU EP in headless Chromium (SwiftShader adapter): every case of all
// three reference checkpoints, loaded through the Hub source from the app's own origin.
import { expect, test } from '@playwright/test';

interface Result {
  repo: string;
  info: { ep: string; adapter?: string; dtype: string };
  report: { pass: boolean; cases: { name: string; maxAbsDiff: number; pass: boolean }[]; defaultAllMaxAbsDiff: number; batchedEqualsSingle: boolean };
}

test('reference checkpoints conform on the WebGPU EP', async ({ page }) => {
  test.setTimeout(900_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/selftest.html?ep=webgpu');
  const status = page.getByTestId('selftest-status');
  await expect(status).toHaveAttribute('data-done', /.+/, { timeout: 840_000 });
  const results = (await page.evaluate(() => (window as unknown as { __selftest?: unknown }).__selftest)) as Result[] | undefined;
  expect(errors).toEqual([]);
  expect(await status.textContent()).toBe('all checks pass');
  expect(results?.map((r) => r.repo)).toEqual(['reference/tiny-qwen2', 'reference/tiny-llama', 'reference/tiny-qwen3']);
  for (const r of results!) {
    // The session really ran on WebGPU, on the SwiftShader adapter this machine has.
    expect(r.info.ep).toBe('webgpu');
    expect(r.info.adapter ?? '').toMatch(/swiftshader/i);
    expect(r.report.cases.length).toBeGreaterThanOrEqual(9);
    for (const c of r.report.cases) expect(c.pass, `${r.repo} ${c.name}: max |Δ| ${c.maxAbsDiff}`).toBe(true);
    expect(r.report.batchedEqualsSingle).toBe(true);
  }
});

// WebGPU state on the device, in headless Chromium (SwiftShader): q4 on WebGPU computes the same
// 4-bit model as q4 on WASM (tied embedding through GatherBlockQuantized from the head's weights),
// weights cut into parts give the logits of whole ones, and batched greedy decoding moves at most
// 16 bytes per row and token each way (ids, lengths and positions up; (id, log-prob) down), and a
// decoded token takes a run per span of layers plus the head run, not a run per layer.
import { expect, test } from '@playwright/test';

interface Check {
  repo: string;
  q4: { maxAbsDiff: number; greedyEqual: boolean; argmaxEqual: boolean };
  split: { maxAbsDiff: number; greedyEqual: boolean };
  transfer: { upload: number; download: number; rows: number };
  runs: { defaultRoute: number; batch: number; routeLength: number };
}

test('q4, split weights and decode transfers on the WebGPU EP', async ({ page }) => {
  test.setTimeout(1_500_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/selftest.html?check=gpu-state&repos=reference/tiny-qwen2,reference/tiny-llama');
  const status = page.getByTestId('selftest-status');
  await expect(status).toHaveAttribute('data-done', /.+/, { timeout: 1_440_000 });
  expect(errors).toEqual([]);
  expect(await status.textContent()).toBe('done');
  const checks = (await page.evaluate(() => (window as unknown as { __gpuChecks?: unknown }).__gpuChecks)) as Check[];
  expect(checks.map((c) => c.repo)).toEqual(['reference/tiny-qwen2', 'reference/tiny-llama']);
  for (const c of checks) {
    expect(c.q4.maxAbsDiff, `${c.repo} q4 WebGPU vs WASM`).toBeLessThanOrEqual(2e-3);
    expect(c.q4.argmaxEqual, c.repo).toBe(true);
    expect(c.q4.greedyEqual, c.repo).toBe(true);
    expect(c.split.maxAbsDiff, `${c.repo} split vs whole`).toBeLessThanOrEqual(1e-4);
    expect(c.split.greedyEqual, c.repo).toBe(true);
    expect(c.transfer.download, `${c.repo} bytes down per row and token`).toBeLessThanOrEqual(16);
    expect(c.transfer.upload, `${c.repo} bytes up per row and token`).toBeLessThanOrEqual(16);
    // 6 layers: spans of 4 and 2; 5 layers: 4 and 1; then the head
    expect(c.runs.routeLength, c.repo).toBeGreaterThanOrEqual(5);
    expect(c.runs.defaultRoute, `${c.repo} runs per decoded token, default route`).toBe(3);
  }
});

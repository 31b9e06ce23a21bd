// Issue 23, item 1, on the production build: a cached model.safetensors with flipped bytes is caught
// by its stored hashes when it is read, downloaded again, and the Setup screen says so in one sentence;
// the copy stored afterwards is the Hub's file, and the next load is quiet.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { loadHubModel, openSetup } from './helpers/app';

const REPO = 'reference/tiny-qwen2';
const FIXTURE = 'test/fixtures/reference/tiny-qwen2/model.safetensors';

/** In the page: the weight cache's stored model.safetensors of REPO, either flipped at its middle byte or hashed. */
async function cachedWeights(page: Page, flip: boolean): Promise<{ url: string; sha256: string }> {
  return page.evaluate(
    async ({ repo, flip }) => {
      const cache = await caches.open('reachlab-weights-v2');
      const key = (await cache.keys()).find((r) => r.url.startsWith('https://reachlab.invalid/weights/') && r.url.includes(encodeURIComponent(repo)) && r.url.endsWith('/model.safetensors'));
      if (!key) throw new Error(`no cached model.safetensors of ${repo}`);
      const res = (await cache.match(key))!;
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (flip) {
        bytes[bytes.length >> 1] ^= 0xff;
        await cache.put(key, new Response(bytes, { headers: res.headers }));
      }
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      return { url: key.url, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') };
    },
    { repo: REPO, flip },
  );
}

test('flipped bytes in a cached model.safetensors are detected, downloaded again and reported', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  const hubSha = createHash('sha256').update(await readFile(FIXTURE)).digest('hex');

  await openSetup(page);
  await loadHubModel(page, { ep: 'wasm' });
  await expect(page.getByTestId('weights-notice')).toHaveCount(0);
  const stored = await cachedWeights(page, false);
  expect(stored.sha256).toBe(hubSha);
  expect(stored.url).toMatch(/\/reference%2Ftiny-qwen2\/[0-9a-f]{40}\/model\.safetensors$/); // keyed by the commit

  // one byte of the stored copy changes (a failing disk, another program)
  expect((await cachedWeights(page, true)).sha256).not.toBe(hubSha);
  await page.reload();
  await openSetup(page);
  const info = await loadHubModel(page, { ep: 'wasm' });
  await expect(info.getByTestId('weights-notice')).toHaveText('The cached copy of model.safetensors did not match its hash, so it was downloaded again.');
  await expect(page.getByTestId('error-message')).toHaveCount(0);
  expect((await cachedWeights(page, false)).sha256).toBe(hubSha);

  // the fresh copy was stored: the next load uses it without a word
  await page.reload();
  await openSetup(page);
  await loadHubModel(page, { ep: 'wasm' });
  await expect(page.getByTestId('weights-notice')).toHaveCount(0);
});

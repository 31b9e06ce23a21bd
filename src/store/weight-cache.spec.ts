import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../util/hash.ts';
import { isStoreError, StoreError } from './errors.ts';
import { MemoryCaches } from './test-helpers.ts';
import { cacheKey, HASH_BLOCK_BYTES, WEIGHT_CACHE_NAME, WeightCache, type StorageManagerLike } from './weight-cache.ts';

function bytes(n: number, seed = 1): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
}

/** A fake Hub: serves `files` by URL, counts requests; `cut` truncates, `breakAt` errors mid-body. */
function hub(files: Record<string, Uint8Array>, opts: { cut?: number; breakAt?: number; status?: number; unsized?: boolean } = {}) {
  const calls: string[] = [];
  const fetchFn = (async (input: RequestInfo | URL) => {
    const url = String(input);
    calls.push(url);
    const body = files[url];
    if (!body || opts.status) return new Response('nope', { status: opts.status ?? 404 });
    const data = opts.cut !== undefined ? body.slice(0, opts.cut) : body;
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        if (opts.breakAt !== undefined) {
          ctl.enqueue(data.slice(0, opts.breakAt));
          ctl.error(new TypeError('network connection lost'));
          return;
        }
        for (let i = 0; i < data.length; i += 1000) ctl.enqueue(data.slice(i, i + 1000));
        ctl.close();
      },
    });
    return new Response(stream, { status: 200, headers: opts.unsized ? {} : { 'content-length': String(data.length) } });
  }) as typeof fetch;
  return { fetchFn, calls };
}

const storage = (quota = 10e9, usage = 0): StorageManagerLike & { persistCalls: number } => ({
  persistCalls: 0,
  async estimate() {
    return { quota, usage };
  },
  async persisted() {
    return false;
  },
  async persist() {
    this.persistCalls++;
    return true;
  },
});

const URL_A = 'https://hub.test/org/model/resolve/main/model.safetensors';
const ref = { repo: 'org/model', commit: 'main', file: 'model.safetensors' };

async function failure(p: Promise<unknown>): Promise<StoreError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(isStoreError(e), `expected a StoreError, got ${String(e)}`).toBe(true);
  return e as StoreError;
}

describe('WeightCache', () => {
  it('downloads once, then serves a sliceable Blob from the cache', async () => {
    const data = bytes(5000);
    const { fetchFn, calls } = hub({ [URL_A]: data });
    const st = storage();
    const wc = await WeightCache.open({ caches: new MemoryCaches(), storage: st, fetch: fetchFn });
    const seen: number[] = [];
    const copy = await wc.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 5000, onBytes: (n) => seen.push(n) });
    expect(copy.size).toBe(5000);
    expect(seen.at(-1)).toBe(5000);
    expect(await copy.read(1234, 1240)).toEqual(data.slice(1234, 1240));
    const again = await wc.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 5000 });
    expect(await again.read(0, 5000)).toEqual(data);
    expect(calls).toHaveLength(1);
    expect(st.persistCalls).toBe(1);
  });

  it('fetches again when the cached size differs from the expected one', async () => {
    const caches = new MemoryCaches();
    const old = await WeightCache.open({ caches, storage: storage(), fetch: hub({ [URL_A]: bytes(3000) }).fetchFn });
    await old.getCachedOrFetch({ ...ref, url: URL_A });
    const { fetchFn, calls } = hub({ [URL_A]: bytes(4000, 9) });
    const wc = await WeightCache.open({ caches, storage: storage(), fetch: fetchFn });
    const copy = await wc.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 4000 });
    expect(calls).toHaveLength(1);
    expect(await copy.read(0, 4000)).toEqual(bytes(4000, 9));
  });

  it('checks the SHA-256 as it streams and refetches a copy stored under another hash', async () => {
    const data = bytes(2500);
    const good = await sha256Hex(data);
    const caches = new MemoryCaches();
    const { fetchFn, calls } = hub({ [URL_A]: data });
    const wc = await WeightCache.open({ caches, storage: storage(), fetch: fetchFn });
    const wrong = 'f'.repeat(64);
    await expect(wc.getCachedOrFetch({ ...ref, url: URL_A, sha256: wrong })).rejects.toMatchObject({
      code: 'integrity',
      message: `model.safetensors of org/model@main arrived with SHA-256 ${good}, the Hub states ${wrong}`,
    });
    expect((await caches.open(WEIGHT_CACHE_NAME)).entries.size).toBe(0);
    await wc.getCachedOrFetch({ ...ref, url: URL_A, sha256: good });
    expect((await wc.list())[0].files[0].sha256).toBe(good);
    await wc.getCachedOrFetch({ ...ref, url: URL_A, sha256: good });
    expect(calls).toHaveLength(2);
    // a newer upstream file (another hash) replaces the cached one
    await expect(wc.getCachedOrFetch({ ...ref, url: URL_A, sha256: wrong })).rejects.toThrow(/SHA-256/);
    expect(calls).toHaveLength(3);
  });

  it('stores nothing from a truncated or broken download', async () => {
    const caches = new MemoryCaches();
    const cut = await WeightCache.open({ caches, storage: storage(), fetch: hub({ [URL_A]: bytes(5000) }, { cut: 4000 }).fetchFn });
    const e1 = await failure(cut.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 5000 }));
    expect(e1.message).toMatch(/arrived with 4000 bytes, 5000 expected/);
    const broken = await WeightCache.open({ caches, storage: storage(), fetch: hub({ [URL_A]: bytes(5000) }, { breakAt: 1500 }).fetchFn });
    const e2 = await failure(broken.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 5000 }));
    expect(e2.code).toBe('download-failed');
    expect(e2.message).toMatch(/broke off/);
    expect((await caches.open(WEIGHT_CACHE_NAME)).entries.size).toBe(0);
  });

  it('stops a download past its size check or past the stated size as the bytes arrive, storing nothing', async () => {
    const caches = new MemoryCaches();
    const limit = (bytes: number) => {
      if (bytes > 2500) throw new Error(`past 2500 bytes (${bytes})`);
    };
    const seen: number[] = [];
    // no Content-Length: cut off by the bytes received (chunks of 1000)
    const unsized = await WeightCache.open({ caches, storage: storage(), fetch: hub({ [URL_A]: bytes(50_000) }, { unsized: true }).fetchFn });
    await expect(unsized.getCachedOrFetch({ ...ref, url: URL_A, checkSize: limit, onBytes: (n) => seen.push(n) })).rejects.toThrow('past 2500 bytes (3000)');
    expect(seen).toEqual([1000, 2000]);
    // a stated size past the check: refused before anything is fetched
    const { fetchFn, calls } = hub({ [URL_A]: bytes(5000) });
    const sized = await WeightCache.open({ caches, storage: storage(), fetch: fetchFn });
    await expect(sized.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 5000, checkSize: limit })).rejects.toThrow('past 2500 bytes (5000)');
    expect(calls).toHaveLength(0);
    // from its Content-Length
    await expect(sized.getCachedOrFetch({ ...ref, url: URL_A, checkSize: limit })).rejects.toThrow('past 2500 bytes (5000)');
    // more bytes than the source stated: refused at the first byte past it
    const e = await failure(sized.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 1500 }));
    expect(e.message).toBe('model.safetensors of org/model@main arrived with more than the 1500 bytes expected');
    expect((await caches.open(WEIGHT_CACHE_NAME)).entries.size).toBe(0);
  });

  it('refuses a download that would not fit, before fetching', async () => {
    const { fetchFn, calls } = hub({ [URL_A]: bytes(500) });
    const wc = await WeightCache.open({ caches: new MemoryCaches(), storage: storage(1000, 900), fetch: fetchFn });
    const e = await failure(wc.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 2_500_000_000 }));
    expect(e.code).toBe('insufficient-space');
    expect(e.message).toBe('model.safetensors of org/model@main needs 2.50 GB, 100 B free in browser storage; delete cached models or free disk space');
    expect(calls).toHaveLength(0);
    // size unknown up front: the Content-Length decides, and the body is not read
    const e2 = await failure(wc.getCachedOrFetch({ ...ref, url: URL_A }));
    expect(e2.message).toMatch(/needs 500 B, 100 B free/);
  });

  it('names the HTTP status of a failed download', async () => {
    const wc = await WeightCache.open({ caches: new MemoryCaches(), storage: storage(), fetch: hub({}, { status: 401 }).fetchFn });
    const e = await failure(wc.getCachedOrFetch({ ...ref, url: URL_A }));
    expect(e.message).toBe('cannot download model.safetensors of org/model@main: HTTP 401');
  });

  it('lists cached models with sizes and deletes one', async () => {
    const urls = {
      a1: 'https://hub.test/a/config.json',
      a2: 'https://hub.test/a/weights/model-00001.safetensors',
      b1: 'https://hub.test/b/model.safetensors',
    };
    const { fetchFn } = hub({ [urls.a1]: bytes(10), [urls.a2]: bytes(3000), [urls.b1]: bytes(700) });
    const wc = await WeightCache.open({ caches: new MemoryCaches(), storage: storage(), fetch: fetchFn });
    await wc.getCachedOrFetch({ repo: 'org/a', commit: 'abc123', file: 'config.json', url: urls.a1 });
    await wc.getCachedOrFetch({ repo: 'org/a', commit: 'abc123', file: 'weights/model-00001.safetensors', url: urls.a2, expectedSize: 3000 });
    await wc.getCachedOrFetch({ repo: 'org/b', commit: 'main', file: 'model.safetensors', url: urls.b1 });
    const list = await wc.list();
    expect(list.map((m) => [m.repo, m.commit, m.totalBytes, m.files.map((f) => [f.file, f.size])])).toEqual([
      ['org/a', 'abc123', 3010, [['config.json', 10], ['weights/model-00001.safetensors', 3000]]],
      ['org/b', 'main', 700, [['model.safetensors', 700]]],
    ]);
    expect(await wc.deleteModel('org/a', 'abc123')).toBe(2);
    expect((await wc.list()).map((m) => m.repo)).toEqual(['org/b']);
    expect(await wc.lookup({ repo: 'org/a', commit: 'abc123', file: 'config.json' })).toBeNull();
  });

  it('deletes caches of earlier layouts on open, and says when there is no Cache API', async () => {
    const caches = new MemoryCaches();
    await caches.open('reachlab-weights-v0');
    await caches.open('someone-else');
    await WeightCache.open({ caches, storage: storage(), fetch: hub({}).fetchFn });
    expect((await caches.keys()).sort()).toEqual([WEIGHT_CACHE_NAME, 'someone-else']);
    const g = globalThis as { caches?: unknown };
    expect(g.caches).toBeUndefined();
    expect((await failure(WeightCache.open())).code).toBe('unavailable');
  });

  it('verifies every block of a cached copy as it is read, and names the file and bytes that do not match', async () => {
    const data = bytes(HASH_BLOCK_BYTES * 2 + 100, 3);
    const caches = new MemoryCaches();
    const { fetchFn } = hub({ [URL_A]: data });
    const wc = await WeightCache.open({ caches, storage: storage(), fetch: fetchFn });
    const copy = await wc.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: data.length });
    expect(copy.meta.blockSha256).toEqual([
      await sha256Hex(data.subarray(0, HASH_BLOCK_BYTES)),
      await sha256Hex(data.subarray(HASH_BLOCK_BYTES, 2 * HASH_BLOCK_BYTES)),
      await sha256Hex(data.subarray(2 * HASH_BLOCK_BYTES)),
    ]);
    expect(copy.meta.sha256).toBe(await sha256Hex(data));
    // one byte of the stored copy flipped in the second block (as a disk or another program might)
    const entry = (await caches.open(WEIGHT_CACHE_NAME)).entries.get(cacheKey(ref))!;
    entry.bytes[HASH_BLOCK_BYTES + 7] ^= 0xff;
    const damaged = await wc.lookup(ref, { size: data.length });
    expect(await damaged!.read(10, 20)).toEqual(data.slice(10, 20)); // the first block is intact
    await expect(damaged!.read(HASH_BLOCK_BYTES - 4, HASH_BLOCK_BYTES + 4)).rejects.toMatchObject({
      code: 'integrity',
      message: `the cached copy of model.safetensors of org/model@main did not match its SHA-256 (bytes ${HASH_BLOCK_BYTES}–${2 * HASH_BLOCK_BYTES}, block 2 of 3)`,
    });
    await expect(damaged!.text()).rejects.toMatchObject({ code: 'integrity' });
  });

  it('remembers which commit a revision resolved to', async () => {
    const wc = await WeightCache.open({ caches: new MemoryCaches(), storage: storage(), fetch: hub({}).fetchFn });
    expect(await wc.getRef('org/a', 'main')).toBeNull();
    await wc.setRef('org/a', 'main', 'c'.repeat(40));
    expect(await wc.getRef('org/a', 'main')).toMatchObject({ commit: 'c'.repeat(40) });
    await wc.setRef('org/a', 'main', 'd'.repeat(40));
    expect((await wc.getRef('org/a', 'main'))?.commit).toBe('d'.repeat(40));
  });

  it('times out a download that stalls, and stores nothing', async () => {
    const caches = new MemoryCaches();
    const stalled = (async () => new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(bytes(10)) }), { status: 200 })) as unknown as typeof fetch;
    const wc = await WeightCache.open({ caches, storage: storage(), fetch: stalled });
    await expect(wc.getCachedOrFetch({ ...ref, url: URL_A, expectedSize: 100, timeouts: { stallMs: 100 } })).rejects.toMatchObject({
      code: 'timeout',
      message: 'the Hub, sending model.safetensors of org/model@main, sent no bytes for 0.1 s',
    });
    expect((await caches.open(WEIGHT_CACHE_NAME)).entries.size).toBe(0);
  });

  it('keys files by repo, commit and path', () => {
    expect(cacheKey({ repo: 'org/m', commit: 'main', file: 'a b/c.json' })).toBe('https://reachlab.invalid/weights/org%2Fm/main/a%20b/c.json');
  });
});

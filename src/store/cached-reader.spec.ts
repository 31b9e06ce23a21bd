import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../test/hub-server.ts';
import { MODEL_WEIGHTS, openCheckpoint, requiredTensors } from '../engine/checkpoint.ts';
import { HubReader } from '../engine/sources/hub.ts';
import type { CheckpointReader } from '../engine/sources/reader.ts';
import { CachedHubReader } from './cached-reader.ts';
import { MemoryCaches } from './test-helpers.ts';
import { cacheKey, WEIGHT_CACHE_NAME, WeightCache } from './weight-cache.ts';

const QWEN2 = new URL('../../test/fixtures/reference/tiny-qwen2/', import.meta.url).pathname;
const storage = { estimate: async () => ({ quota: 1e9, usage: 0 }), persist: async () => true };

/** Opens a checkpoint, reads every tensor its architecture uses; its fingerprint and embedding. */
async function loadAll(reader: CheckpointReader) {
  const ckpt = await openCheckpoint(reader);
  for (const r of requiredTensors(ckpt.config)) await ckpt.readF32(r.name);
  return { fingerprint: await ckpt.fingerprint(), embed: Array.from(await ckpt.readF32(MODEL_WEIGHTS.embed)) };
}

let servers: HubServer[] = [];
const serve = async (repos: Record<string, string>, opts: { noRevisionApi?: boolean } = {}) => {
  const s = await startHubServer({ repos, ...opts });
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** A copy of the tiny Qwen2 folder with one weight byte changed: same size, other weights. */
let moved: string;
beforeAll(async () => {
  moved = await mkdtemp(join(tmpdir(), 'reachlab-moved-'));
  await cp(QWEN2, moved, { recursive: true });
  const weights = await readFile(join(moved, 'model.safetensors'));
  weights[weights.length >> 1] ^= 0x01;
  await writeFile(join(moved, 'model.safetensors'), weights);
});
afterAll(async () => {
  await rm(moved, { recursive: true, force: true });
});

describe('CachedHubReader', () => {
  it('loads a checkpoint through the cache at the resolved commit, then again with the Hub offline, with identical tensors', async () => {
    const server = await serve({ 'org/tiny': QWEN2 });
    const commit = await server.commitOf('org/tiny');
    const direct = await loadAll(new HubReader({ repo: 'org/tiny', endpoint: server.url }));

    const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
    const start = server.requests.length;
    const downloads: string[] = [];
    const first = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache, {
      onBytes: (file, loaded, total) => loaded === total && downloads.push(file),
    });
    expect(await loadAll(first)).toEqual(direct);
    expect(await first.commit()).toBe(commit);
    expect(first.notices()).toEqual([]);
    expect(downloads).toContain('model.safetensors');
    const list = await cache.list();
    expect(list.map((m) => [m.repo, m.commit, m.revisions])).toEqual([['org/tiny', commit, ['main']]]);
    expect(list[0].files.find((f) => f.file === 'model.safetensors')).toMatchObject({ size: 612304, blockSha256: [expect.stringMatching(/^[0-9a-f]{64}$/)] });
    // files were read at the commit, never under the moving name
    expect(server.requests.slice(start).filter((r) => r.path.includes('/resolve/')).every((r) => r.path.includes(`/resolve/${commit}/`))).toBe(true);

    // a second session: one revision lookup reaches the Hub, every byte comes from the cache
    const from = server.requests.length;
    expect(await loadAll(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache))).toEqual(direct);
    expect(server.requests.slice(from).map((r) => r.path)).toEqual(['/api/models/org/tiny/revision/main']);

    await server.close();
    const offline = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache);
    expect(await loadAll(offline)).toEqual(direct);
    expect(offline.notices()).toEqual([
      expect.stringMatching(new RegExp(`^The Hub could not be reached, so org/tiny@main was loaded as it resolved here last on \\d{4}-\\d\\d-\\d\\d \\(commit ${commit.slice(0, 12)}\\)\\.$`)),
    ]);
    // offline with nothing cached: the Hub reader's own network error
    await cache.deleteModel('org/tiny', commit);
    await expect(openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache))).rejects.toMatchObject({
      name: 'EngineError',
      code: 'network',
    });
  });

  it('detects flipped bytes in a cached copy, downloads the file again and says so', async () => {
    const server = await serve({ 'org/tiny': QWEN2 });
    const caches = new MemoryCaches();
    const cache = await WeightCache.open({ caches, storage });
    const want = await loadAll(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache));
    const ref = { repo: 'org/tiny', commit: await server.commitOf('org/tiny'), file: 'model.safetensors' };
    const entry = (await caches.open(WEIGHT_CACHE_NAME)).entries.get(cacheKey(ref))!;
    entry.bytes[entry.bytes.length >> 1] ^= 0x10;

    const from = server.requests.length;
    const again = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache);
    expect(await loadAll(again)).toEqual(want);
    expect(again.notices()).toEqual(['The cached copy of model.safetensors did not match its hash, so it was downloaded again.']);
    expect(server.requests.slice(from).filter((r) => r.path.endsWith('/model.safetensors') && r.range === undefined)).toHaveLength(1);
    // the fresh copy is stored: the next load is quiet
    const third = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache);
    expect(await loadAll(third)).toEqual(want);
    expect(third.notices()).toEqual([]);
  });

  it('gets the new weights and a new fingerprint when main moves, and keeps the old commit apart', async () => {
    const server = await serve({ 'org/tiny': QWEN2 });
    const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
    const before = await loadAll(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache));
    const oldCommit = await server.commitOf('org/tiny');
    server.moveMain('org/tiny', moved);
    const newCommit = await server.commitOf('org/tiny');
    expect(newCommit).not.toBe(oldCommit);

    const direct = await loadAll(new HubReader({ repo: 'org/tiny', endpoint: server.url }));
    const after = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache);
    expect(await loadAll(after)).toEqual(direct);
    expect(direct.fingerprint).not.toBe(before.fingerprint);
    expect((await cache.list()).map((m) => [m.commit, m.revisions]).sort()).toEqual(
      [
        [oldCommit, []],
        [newCommit, ['main']],
      ].sort(),
    );
    // the old commit, asked for by its sha, is still the old weights
    const pinned = new CachedHubReader(new HubReader({ repo: 'org/tiny', revision: oldCommit, endpoint: server.url }), cache);
    expect((await loadAll(pinned)).fingerprint).toBe(before.fingerprint);
  });

  it('on a mirror without a revision API, a config.json changed at the same size on main is read again: a new fingerprint', async () => {
    const changed = await mkdtemp(join(tmpdir(), 'reachlab-rope-'));
    try {
      await cp(QWEN2, changed, { recursive: true });
      const config = await readFile(join(QWEN2, 'config.json'), 'utf8');
      const edited = config.replace('"rope_theta": 1000000.0', '"rope_theta": 5000000.0');
      expect(edited).not.toBe(config);
      expect(edited.length).toBe(config.length);
      await writeFile(join(changed, 'config.json'), edited);

      const server = await serve({ 'org/mirror': QWEN2 }, { noRevisionApi: true });
      const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
      const open = () => new CachedHubReader(new HubReader({ repo: 'org/mirror', endpoint: server.url }), cache);
      const first = await loadAll(open());
      // the same content again: the weights (an LFS file, its SHA-256 stated) come from the cache
      const from = server.requests.length;
      expect(await loadAll(open())).toEqual(first);
      expect(server.requests.slice(from).filter((r) => r.method === 'GET' && r.path.endsWith('/model.safetensors') && r.range === undefined)).toEqual([]);

      server.moveMain('org/mirror', changed);
      const second = open();
      const after = await loadAll(second);
      expect(JSON.parse(await second.text('config.json')).rope_theta).toBe(5000000);
      expect(after.fingerprint).not.toBe(first.fingerprint);
      expect(after.fingerprint).toBe((await loadAll(new HubReader({ repo: 'org/mirror', endpoint: server.url }))).fingerprint);
    } finally {
      await rm(changed, { recursive: true, force: true });
    }
  });

  it('refuses a download whose bytes do not match the SHA-256 the Hub states, naming the file', async () => {
    const server = await serve({ 'org/tiny': QWEN2 });
    server.setFaults([{ file: 'model.safetensors', flipAt: 1000 }]);
    const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
    await expect(openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache))).rejects.toMatchObject({
      code: 'integrity',
      message: expect.stringMatching(/^model\.safetensors of org\/tiny@[0-9a-f]{12} arrived with SHA-256 [0-9a-f]{64}, the Hub states [0-9a-f]{64}$/),
    });
    expect(await cache.list()).toEqual([expect.objectContaining({ files: expect.not.arrayContaining([expect.objectContaining({ file: 'model.safetensors' })]) })]);
  });

  it('fails a stalled weight download in words, and a cancelled load as cancelled', async () => {
    const server = await serve({ 'org/tiny': QWEN2 });
    server.setFaults([{ file: 'model.safetensors', stallAfter: 4096 }]);
    const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
    const stalled = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }, undefined, undefined, { timeouts: { stallMs: 200 } }), cache, {
      timeouts: { stallMs: 200 },
    });
    const t0 = Date.now();
    await expect(openCheckpoint(stalled)).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/^the Hub, sending model\.safetensors of org\/tiny@[0-9a-f]{12}, sent no bytes for 0\.2 s$/),
    });
    expect(Date.now() - t0).toBeLessThan(10_000);

    const ctl = new AbortController();
    const cancelled = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }, undefined, undefined, { signal: ctl.signal }), cache);
    const load = openCheckpoint(cancelled);
    setTimeout(() => ctl.abort(), 300);
    await expect(load).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('CachedHubReader, a damaged checkpoint', () => {
  it('refuses a 2 MB config.json and a 65 MB tokenizer.json by their stated size, downloading and caching neither', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reachlab-big-'));
    try {
      await cp(QWEN2, dir, { recursive: true });
      const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
      await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, padding: 'x'.repeat(2 * 2 ** 20) }));
      const server = await serve({ 'org/big': dir });
      const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
      await expect(openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/big', endpoint: server.url }), cache))).rejects.toMatchObject({
        name: 'EngineError',
        code: 'bad-checkpoint',
        message: expect.stringMatching(/^config\.json in org\/big@main is 2\.0 MB, more than the 1\.0 MB read for it \(a model config is a few KB\)$/),
      });
      // sizes came from the revision API and HEAD; no GET of the file, nothing cached
      expect(server.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/config.json'))).toEqual([]);
      expect(await cache.list()).toEqual([]);

      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      await writeFile(join(dir, 'tokenizer.json'), ' '.repeat(65 * 2 ** 20));
      const server2 = await serve({ 'org/big': dir });
      await expect(openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/big', endpoint: server2.url }), cache))).rejects.toMatchObject({
        code: 'bad-checkpoint',
        message: expect.stringMatching(/^tokenizer\.json in org\/big@main is 65\.0 MB, more than the 64\.0 MB read for it/),
      });
      expect(server2.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/tokenizer.json'))).toEqual([]);
      expect((await cache.list()).flatMap((m) => m.files.map((f) => f.file))).not.toContain('tokenizer.json');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a truncated config.json as the checkpoint problem it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reachlab-cut-'));
    try {
      await cp(QWEN2, dir, { recursive: true });
      const config = await readFile(join(dir, 'config.json'), 'utf8');
      await writeFile(join(dir, 'config.json'), config.slice(0, config.length >> 1));
      const server = await serve({ 'org/cut': dir });
      const cache = await WeightCache.open({ caches: new MemoryCaches(), storage });
      await expect(openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/cut', endpoint: server.url }), cache))).rejects.toMatchObject({
        name: 'EngineError',
        code: 'bad-checkpoint',
        message: expect.stringMatching(/^config\.json is not JSON \(/),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

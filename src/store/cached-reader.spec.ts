import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../test/hub-server.ts';
import { MODEL_WEIGHTS, openCheckpoint, requiredTensors } from '../engine/checkpoint.ts';
import { HubReader } from '../engine/sources/hub.ts';
import { CachedHubReader } from './cached-reader.ts';
import { MemoryCaches } from './test-helpers.ts';
import { WeightCache } from './weight-cache.ts';

const QWEN2 = new URL('../../test/fixtures/reference/tiny-qwen2/', import.meta.url).pathname;
const storage = { estimate: async () => ({ quota: 1e9, usage: 0 }), persist: async () => true };

let server: HubServer;
beforeAll(async () => {
  server = await startHubServer({ repos: { 'org/tiny': QWEN2 } });
});
afterAll(async () => {
  await server?.close();
});

describe('CachedHubReader', () => {
  it('loads a checkpoint through the cache, then again with the Hub offline, with identical tensors', async () => {
    const caches = new MemoryCaches();
    const direct = await openCheckpoint(new HubReader({ repo: 'org/tiny', endpoint: server.url }));
    const want = await direct.readF32(MODEL_WEIGHTS.embed); // [vocab, hidden]
    for (const r of requiredTensors(direct.config)) await direct.readF32(r.name);

    const cache = await WeightCache.open({ caches, storage });
    const downloads: string[] = [];
    const first = new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache, {
      onBytes: (file, loaded, total) => loaded === total && downloads.push(file),
    });
    const viaCache = await openCheckpoint(first);
    expect(Array.from(await viaCache.readF32(MODEL_WEIGHTS.embed))).toEqual(Array.from(want));
    for (const r of requiredTensors(viaCache.config)) await viaCache.readF32(r.name);
    expect(await viaCache.fingerprint()).toBe(await direct.fingerprint());
    expect(downloads).toContain('model.safetensors');
    const list = await cache.list();
    expect(list).toHaveLength(1);
    expect(list[0].files.find((f) => f.file === 'model.safetensors')?.size).toBe(612304);

    // a second session: every weight byte comes from the cache, only size probes reach the Hub
    const from = server.requests.length;
    const second = await openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache));
    expect(Array.from(await second.readF32(MODEL_WEIGHTS.embed))).toEqual(Array.from(want));
    expect(server.requests.slice(from).every((r) => r.range === 'bytes=0-0')).toBe(true);

    await server.close();
    const offline = await openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache));
    expect(Array.from(await offline.readF32(MODEL_WEIGHTS.embed))).toEqual(Array.from(want));
    // offline with nothing cached: the Hub reader's own network error
    await cache.deleteModel('org/tiny', 'main');
    await expect(openCheckpoint(new CachedHubReader(new HubReader({ repo: 'org/tiny', endpoint: server.url }), cache))).rejects.toMatchObject({
      name: 'EngineError',
      code: 'network',
    });
  });
});

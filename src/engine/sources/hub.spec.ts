import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../../test/hub-server.ts';
import { openCheckpoint } from '../checkpoint.ts';
import { HubReader, checkRepoId, fetchRepoInfo, hubFetch, hubStatusMeaning } from './hub.ts';

const QWEN2 = new URL('../../../test/fixtures/reference/tiny-qwen2/', import.meta.url).pathname;

let open: HubServer;
let gated: HubServer;
let noRange: HubServer;
beforeAll(async () => {
  open = await startHubServer({ repos: { 'org/open': QWEN2 } });
  gated = await startHubServer({ repos: { 'meta/gated': QWEN2, 'org/open': QWEN2 }, token: 'hf_good', gated: ['meta/gated'] });
  noRange = await startHubServer({ repos: { 'org/open': QWEN2 }, ignoreRange: true });
});
afterAll(async () => {
  await Promise.all([open.close(), gated.close(), noRange.close()]);
});

const SHA = '0123456789abcdef0123456789abcdef01234567';
const LFS = 'a'.repeat(64);

describe('HubReader', () => {
  it('builds resolve URLs with the revision and sends the token as a Bearer header', async () => {
    const r = new HubReader({ repo: 'meta/gated', revision: 'refs/pr/1', token: 'hf_good', endpoint: `${gated.url}/` });
    expect(r.url('config.json')).toBe(`${gated.url}/meta/gated/resolve/refs%2Fpr%2F1/config.json`);
    expect(r.label).toBe('meta/gated@refs/pr/1');
    expect(new HubReader({ repo: 'a/b' }).url('x.json')).toBe('https://huggingface.co/a/b/resolve/main/x.json');
    const from = gated.requests.length;
    expect(JSON.parse(await r.text('config.json')).model_type).toBe('qwen2');
    expect(gated.requests.slice(from)).toMatchObject([{ path: '/meta/gated/resolve/refs%2Fpr%2F1/config.json', authorization: 'Bearer hf_good', status: 200 }]);
  });

  it('takes sizes from a one-byte range and reads exact ranges', async () => {
    const r = new HubReader({ repo: 'org/open', endpoint: open.url });
    const from = open.requests.length;
    expect(await r.size('model.safetensors')).toBe(612304);
    expect(open.requests[from]).toMatchObject({ range: 'bytes=0-0', status: 206 });
    const bytes = await r.range('model.safetensors', 0, 8);
    expect(open.requests.at(-1)).toMatchObject({ range: 'bytes=0-7', status: 206 });
    expect(new DataView(bytes.buffer).getBigUint64(0, true)).toBe(7624n);
    await expect(r.range('model.safetensors', 612300, 612310)).rejects.toThrow(/model\.safetensors in org\/open@main is truncated: bytes \[612300, 612310\) requested, file has 612304/);
  });

  it('works against a server that ignores Range (keeps only the bytes asked for)', async () => {
    const ranged = new HubReader({ repo: 'org/open', endpoint: open.url });
    const plain = new HubReader({ repo: 'org/open', endpoint: noRange.url });
    expect(await plain.size('model.safetensors')).toBe(612304);
    expect(await plain.range('model.safetensors', 9000, 9100)).toEqual(await ranged.range('model.safetensors', 9000, 9100));
    expect(noRange.requests.at(-1)).toMatchObject({ status: 200 });
  });

  it('retries transient failures of range reads, then gives up naming the status', async () => {
    const flaky = await startHubServer({ repos: { 'org/open': QWEN2 }, failFirst: 2 });
    const down = await startHubServer({ repos: { 'org/open': QWEN2 }, failFirst: 99 });
    try {
      const loads: number[] = [];
      const r = new HubReader({ repo: 'org/open', endpoint: flaky.url }, (_f, loaded) => loads.push(loaded));
      expect(await r.range('model.safetensors', 9000, 9100)).toEqual(await new HubReader({ repo: 'org/open', endpoint: open.url }).range('model.safetensors', 9000, 9100));
      expect(flaky.requests.map((q) => q.status)).toEqual([206, 503, 503, 206]);
      expect(loads).toEqual([100]);
      await expect(new HubReader({ repo: 'org/open', endpoint: down.url }).range('model.safetensors', 0, 8)).rejects.toMatchObject({
        code: 'network',
        message: 'model.safetensors of org/open@main: the server failed; retry later (HTTP 503)',
      });
      expect(down.requests.filter((q) => q.status === 503)).toHaveLength(3);
    } finally {
      await Promise.all([flaky.close(), down.close()]);
    }
  });

  it('reports a gated repo without a token, naming the repo and asking for a token', async () => {
    const r = new HubReader({ repo: 'meta/gated', endpoint: gated.url });
    await expect(openCheckpoint(r)).rejects.toMatchObject({
      code: 'gated',
      message: expect.stringMatching(/of meta\/gated@main: gated or private: a Hugging Face token with access to it is needed \(HTTP 401\)/),
    });
  });

  it('reports a token without access, and loads with the right one', async () => {
    const bad = new HubReader({ repo: 'meta/gated', token: 'hf_wrong', endpoint: gated.url });
    await expect(bad.text('config.json')).rejects.toMatchObject({
      code: 'gated',
      message: 'config.json of meta/gated@main: the token given has no access to this gated or private repo (HTTP 403)',
    });
    const ck = await openCheckpoint(new HubReader({ repo: 'meta/gated', token: 'hf_good', endpoint: gated.url }));
    expect(ck.config.modelType).toBe('qwen2');
    expect((await ck.readF32('model.norm.weight')).length).toBe(64);
  });

  it('reports a missing file as not-found, naming repo and file', async () => {
    const r = new HubReader({ repo: 'org/open', endpoint: open.url });
    expect(await r.exists('pytorch_model.bin')).toBe(false);
    await expect(r.text('nope.json')).rejects.toMatchObject({ code: 'not-found', message: 'nope.json of org/open@main: not found (check the name and the revision) (HTTP 404)' });
    await expect(r.range('nope.safetensors', 0, 8)).rejects.toMatchObject({ code: 'not-found' });
  });

  it('reports an unreachable endpoint as a network error', async () => {
    const dead = await startHubServer({ repos: {} });
    const url = dead.url;
    await dead.close();
    await expect(new HubReader({ repo: 'org/open', endpoint: url }).text('config.json')).rejects.toMatchObject({
      code: 'network',
      message: expect.stringMatching(/^config\.json of org\/open@main: cannot reach 127\.0\.0\.1:\d+: offline or unreachable/),
    });
  });

  it('keeps the bytes asked for when a 206 answer starts earlier than asked, refuses one that starts later', async () => {
    const body = new Uint8Array(100).map((_, i) => i);
    const wide = async (_url: string, init: RequestInit) => {
      const range = (init.headers as Record<string, string>).Range;
      // a server that answers every range from byte 0 (as sirv does for bytes=0-0)
      if (range === 'bytes=0-0' || range === 'bytes=10-19') return new Response(body, { status: 206, headers: { 'content-range': 'bytes 0-99/100' } });
      return new Response(body.slice(50), { status: 206, headers: { 'content-range': 'bytes 50-99/100' } });
    };
    const r = new HubReader({ repo: 'org/open' }, undefined, wide);
    expect(await r.size('w.bin')).toBe(100);
    expect([...(await r.range('w.bin', 10, 20))]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    await expect(r.range('w.bin', 20, 30)).rejects.toMatchObject({ code: 'network', message: 'the server answered w.bin of org/open@main from byte 50, byte 20 was asked for' });
  });

  it('never reads through the HTTP cache, and sends the token only when there is one', async () => {
    const seen: RequestInit[] = [];
    const spy = async (_url: string, init: RequestInit) => (seen.push(init), new Response('{}'));
    await hubFetch('https://hub.example/a', { fetch: spy });
    await hubFetch('https://hub.example/b', { fetch: spy, token: 'hf_x', headers: { Range: 'bytes=0-0' } });
    expect(seen.map(({ signal: _, ...init }) => init)).toEqual([
      { method: 'GET', headers: undefined, cache: 'no-store' },
      { method: 'GET', headers: { Range: 'bytes=0-0', Authorization: 'Bearer hf_x' }, cache: 'no-store' },
    ]);
  });

  it('reads every Hub status one way', () => {
    expect(hubStatusMeaning(200, false)).toBeNull();
    expect(hubStatusMeaning(206, false)).toBeNull();
    expect(hubStatusMeaning(401, false)).toMatchObject({ code: 'gated', transient: false, reason: expect.stringMatching(/token with access to it is needed/) });
    expect(hubStatusMeaning(403, true)).toMatchObject({ code: 'gated', reason: expect.stringMatching(/the token given has no access/) });
    expect(hubStatusMeaning(404, false)).toMatchObject({ code: 'not-found', transient: false });
    expect(hubStatusMeaning(429, false)).toMatchObject({ code: 'network', transient: true, reason: expect.stringMatching(/limiting requests/) });
    expect(hubStatusMeaning(502, false)).toMatchObject({ code: 'network', transient: true });
    expect(hubStatusMeaning(400, false)).toMatchObject({ code: 'network', transient: false });
  });

  it('reads the model API: size of the safetensors, licence, gating, through the same status mapping', async () => {
    const urls: string[] = [];
    const api = (status: number, json: object) => async (url: string) => (urls.push(url), new Response(JSON.stringify(json), { status }));
    const info = await fetchRepoInfo(
      { repo: 'Qwen/Qwen2.5-0.5B', revision: 'refs/pr/1', endpoint: 'https://mirror.example/' },
      {
        fetch: api(200, {
          sha: SHA,
          gated: false,
          cardData: { license: 'apache-2.0' },
          config: { model_type: 'qwen2' },
          siblings: [{ rfilename: 'a.safetensors', size: 10, lfs: { sha256: LFS, size: 10 } }, { rfilename: 'b.safetensors', size: 5 }, { rfilename: 'README.md', size: 1 }],
        }),
      },
    );
    expect(urls).toEqual(['https://mirror.example/api/models/Qwen/Qwen2.5-0.5B/revision/refs%2Fpr%2F1?blobs=true']);
    expect(info).toEqual({
      sha: SHA,
      license: 'apache-2.0',
      gated: false,
      weightBytes: 15,
      modelType: 'qwen2',
      files: { 'a.safetensors': { size: 10, sha256: LFS }, 'b.safetensors': { size: 5 }, 'README.md': { size: 1 } },
    });
    await expect(fetchRepoInfo({ repo: 'meta-llama/Llama-3.2-1B' }, { fetch: api(401, {}) })).rejects.toMatchObject({
      code: 'gated',
      message: 'meta-llama/Llama-3.2-1B@main on huggingface.co: gated or private: a Hugging Face token with access to it is needed (HTTP 401)',
    });
    await expect(fetchRepoInfo({ repo: 'no/such' }, { fetch: api(404, {}) })).rejects.toMatchObject({ code: 'not-found' });
  });

  it('names a revision API answer that is not JSON, not a description, or not a commit', async () => {
    const answer = (body: string) => async () => new Response(body, { status: 200 });
    await expect(fetchRepoInfo({ repo: 'a/b' }, { fetch: answer('{"sha": "0123') })).rejects.toMatchObject({ code: 'network', message: expect.stringMatching(/^the revision API for a\/b@main on huggingface.co answered with text that is not JSON/) });
    await expect(fetchRepoInfo({ repo: 'a/b' }, { fetch: answer('[1]') })).rejects.toMatchObject({ message: expect.stringMatching(/JSON that is not a model description/) });
    await expect(fetchRepoInfo({ repo: 'a/b' }, { fetch: answer('{"sha": "main"}') })).rejects.toMatchObject({ message: expect.stringMatching(/gave "main" as the commit, not a 40-digit hex sha/) });
  });

  it('times out a Hub that sends no headers, and a body that stalls, in words', async () => {
    const silent = (_url: string, init: RequestInit) => new Promise<Response>((_, fail) => init.signal?.addEventListener('abort', () => fail(new DOMException('aborted', 'AbortError'))));
    await expect(hubFetch('https://hub.example/a', { fetch: silent, timeouts: { headersMs: 50 } })).rejects.toMatchObject({ code: 'timeout', message: 'the request to hub.example: no answer within 0.1 s' });
    // a reply whose body sends 4 bytes, then nothing
    const stalled = async (_url: string, init: RequestInit) => {
      if (init.headers && (init.headers as Record<string, string>).Range === 'bytes=0-0') return new Response(new Uint8Array(1), { status: 206, headers: { 'content-range': 'bytes 0-0/100' } });
      const body = new ReadableStream<Uint8Array>({ start: (ctl) => ctl.enqueue(new Uint8Array(4)) });
      return new Response(body, { status: 206, headers: { 'content-range': 'bytes 0-99/100' } });
    };
    const reader = new HubReader({ repo: 'a/b', endpoint: 'https://hub.example' }, undefined, stalled, { timeouts: { stallMs: 100 } });
    const t0 = Date.now();
    await expect(reader.range('model.safetensors', 0, 100)).rejects.toMatchObject({
      code: 'timeout',
      message: 'the Hub, sending model.safetensors of a/b@main, sent no bytes for 0.1 s',
    });
    expect(Date.now() - t0).toBeLessThan(5000);
    await expect(reader.text('config.json')).rejects.toMatchObject({ code: 'timeout', message: expect.stringMatching(/sending config.json of a\/b@main, sent no bytes for 0.1 s/) });
  });

  it('cancels a stalled read when its signal aborts', async () => {
    const ctl = new AbortController();
    const stalled = async (_url: string, init: RequestInit) => {
      if ((init.headers as Record<string, string> | undefined)?.Range === 'bytes=0-0') return new Response(new Uint8Array(1), { status: 206, headers: { 'content-range': 'bytes 0-0/100' } });
      return new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array(4)) }), { status: 206, headers: { 'content-range': 'bytes 0-99/100' } });
    };
    const reader = new HubReader({ repo: 'a/b', endpoint: 'https://hub.example' }, undefined, stalled, { signal: ctl.signal });
    const read = reader.range('model.safetensors', 0, 100);
    setTimeout(() => ctl.abort(), 50);
    await expect(read).rejects.toMatchObject({ code: 'cancelled' });
    await expect(reader.text('config.json')).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('resolves a revision to its commit and then reads files at that commit', async () => {
    const urls: string[] = [];
    const fetchFn = async (url: string) => {
      urls.push(url);
      if (url.includes('/api/models/')) return new Response(JSON.stringify({ sha: SHA, siblings: [{ rfilename: 'config.json', size: 2 }] }));
      return new Response('{}', { status: 200 });
    };
    const reader = new HubReader({ repo: 'a/b', endpoint: 'https://hub.example' }, undefined, fetchFn);
    expect(await reader.resolveRevision()).toEqual({ commit: SHA, files: { 'config.json': { size: 2 } } });
    reader.pin(SHA);
    await reader.text('config.json');
    expect(urls).toEqual(['https://hub.example/api/models/a/b/revision/main?blobs=true', `https://hub.example/a/b/resolve/${SHA}/config.json`]);
    // a stated commit asks nothing
    const stated = new HubReader({ repo: 'a/b', endpoint: 'https://hub.example', commit: 'build-1' }, undefined, fetchFn);
    expect(await stated.resolveRevision()).toEqual({ commit: 'build-1', files: {}, stated: true });
    expect(urls).toHaveLength(2);
    // an endpoint without the API (404): nothing to pin
    const bare = new HubReader({ repo: 'a/b', endpoint: 'https://hub.example' }, undefined, async () => new Response('no', { status: 404 }));
    expect(await bare.resolveRevision()).toBeNull();
  });

  it('refuses malformed repo ids, revisions and file names', () => {
    for (const bad of ['noslash', 'a/b/c', '../etc', 'a/..', 'a/b?x=1', '/a/b', 'a/ b', '']) {
      expect(() => checkRepoId(bad), bad).toThrow(/is not a Hub repo id: expected "owner\/name"/);
    }
    expect(() => checkRepoId('Qwen/Qwen2.5-0.5B-Instruct')).not.toThrow();
    expect(() => new HubReader({ repo: 'a/b', revision: '../x' })).toThrow(/"\.\.\/x" is not a revision/);
    expect(() => new HubReader({ repo: 'a/b' }).url('../secret')).toThrow(/refusing file name "\.\.\/secret"/);
  });
});

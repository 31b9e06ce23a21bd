import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../../test/hub-server.ts';
import { openCheckpoint } from '../checkpoint.ts';
import { HubReader, checkRepoId } from './hub.ts';

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
        message: 'the Hub answered HTTP 503 for model.safetensors of org/open@main',
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
      message: expect.stringMatching(/meta\/gated is gated, private or missing \(HTTP 401\): a Hub token with access to it is needed/),
    });
  });

  it('reports a token without access, and loads with the right one', async () => {
    const bad = new HubReader({ repo: 'meta/gated', token: 'hf_wrong', endpoint: gated.url });
    await expect(bad.text('config.json')).rejects.toMatchObject({
      code: 'gated',
      message: expect.stringMatching(/refused config\.json of meta\/gated \(HTTP 403\): the token given has no access/),
    });
    const ck = await openCheckpoint(new HubReader({ repo: 'meta/gated', token: 'hf_good', endpoint: gated.url }));
    expect(ck.config.modelType).toBe('qwen2');
    expect((await ck.readF32('model.norm.weight')).length).toBe(64);
  });

  it('reports a missing file as not-found, naming repo and file', async () => {
    const r = new HubReader({ repo: 'org/open', endpoint: open.url });
    expect(await r.exists('pytorch_model.bin')).toBe(false);
    await expect(r.text('nope.json')).rejects.toMatchObject({ code: 'not-found', message: 'nope.json not found in org/open@main (HTTP 404)' });
    await expect(r.range('nope.safetensors', 0, 8)).rejects.toMatchObject({ code: 'not-found' });
  });

  it('reports an unreachable endpoint as a network error', async () => {
    const dead = await startHubServer({ repos: {} });
    const url = dead.url;
    await dead.close();
    await expect(new HubReader({ repo: 'org/open', endpoint: url }).text('config.json')).rejects.toMatchObject({
      code: 'network',
      message: expect.stringMatching(/cannot fetch config\.json from org\/open@main: offline or unreachable/),
    });
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

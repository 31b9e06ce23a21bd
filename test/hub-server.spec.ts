import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHubServerArgs, startHubServer, type HubServer } from './hub-server.ts';

const QWEN3 = new URL('./fixtures/reference/tiny-qwen3/', import.meta.url).pathname;

let hub: HubServer;
beforeAll(async () => {
  hub = await startHubServer({ repos: { 'org/m': QWEN3 }, token: 't0k' });
});
afterAll(() => hub.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${hub.url}${path}`, { method, headers });
const auth = { Authorization: 'Bearer t0k' };

describe('test hub server', () => {
  it('serves ranges with Content-Range, and whole files', async () => {
    const r = await get('/org/m/resolve/main/model.safetensors', { ...auth, Range: 'bytes=2-5' });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe('bytes 2-5/354024');
    expect((await r.arrayBuffer()).byteLength).toBe(4);
    const whole = await get('/org/m/resolve/v1.0/config.json', auth);
    expect([whole.status, (await whole.json()).model_type]).toEqual([200, 'qwen3']);
    const past = await get('/org/m/resolve/main/config.json', { ...auth, Range: 'bytes=99999-' });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${statSync(`${QWEN3}config.json`).size}`]);
  });

  it('gates with 401 / 403, answers 404, and never leaves the repo folder', async () => {
    expect((await get('/org/m/resolve/main/config.json')).status).toBe(401);
    expect((await get('/org/m/resolve/main/config.json', { Authorization: 'Bearer nope' })).status).toBe(403);
    expect((await get('/org/m/resolve/main/missing.json', auth)).status).toBe(404);
    expect((await get('/org/other/resolve/main/config.json', auth)).status).toBe(404);
    expect((await get('/org/m/resolve/main/..%2F..%2F..%2Fpackage.json', auth)).status).toBe(404);
  });

  it('answers CORS preflights and exposes range headers', async () => {
    const pre = await get('/org/m/resolve/main/config.json', { Origin: 'http://127.0.0.1:4173' }, 'OPTIONS');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization, Range/);
    const r = await get('/org/m/resolve/main/config.json', { ...auth, Range: 'bytes=0-0' });
    expect(r.headers.get('access-control-expose-headers')).toMatch(/Content-Range/);
  });

  it('parses its command line', () => {
    expect(parseHubServerArgs(['--port', '8788', '--map', 'org/a=test/x', '--map', 'org/b=y=z', '--token', 'T', '--gated', 'org/b'])).toEqual({
      port: 8788,
      repos: { 'org/a': 'test/x', 'org/b': 'y=z' },
      token: 'T',
      gated: ['org/b'],
    });
    expect(() => parseHubServerArgs([])).toThrow(/give at least one --map/);
    expect(() => parseHubServerArgs(['--map', 'nofolder'])).toThrow(/--map wants org\/name=folder/);
    expect(() => parseHubServerArgs(['--bogus', '1'])).toThrow(/unknown option --bogus/);
  });
});

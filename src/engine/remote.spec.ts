import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectEngine, exposeEngine } from './remote';
import { EngineError, type Engine, type LoadProgress, type ReadoutRow } from './types';

// A minimal engine whose behaviour the tests script; only what crosses the boundary matters here.
function scriptedEngine(): Engine {
  const notUsed = () => Promise.reject(new Error('not used in this test'));
  return {
    async load(_source, _opts, onProgress) {
      onProgress?.({ phase: 'weights', loadedBytes: 5, totalBytes: 10 });
      throw new EngineError('gated', 'org/model is gated: a token with access is needed');
    },
    info: async () => null,
    encode: async (text) => Array.from(text, (c) => c.charCodeAt(0)),
    decode: notUsed,
    applyChatTemplate: notUsed,
    logits: async () => [new Float32Array([1, 2, 3])],
    generate: () => new Promise(() => {}), // never settles: stands for a call in flight
    score: notUsed,
    readout: async (name, row) => {
      if (name !== 'look-inside') throw new EngineError('bad-input', `unknown read-out ${name}`);
      const r = row as unknown as ReadoutRow;
      return {
        route: r.route, silence: r.silence, gold: r.gold, emitted: 7, embed: 0.5, logitDiff: 1, sum: 1, identityError: 0,
        lens: [{ position: -1, layer: null, gold: { id: r.gold, rank: 2, prob: 0.25, logit: 1 }, emitted: { id: 7, rank: 1, prob: 0.5, logit: 2 } }],
        attribution: [{ position: 0, layer: r.route[0], attn: 0.25, mlp: 0.25 }],
      } as never;
    },
    cancel: async () => {},
    dispose: async () => {},
  };
}

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

function connect() {
  const ch = new MessageChannel();
  channels.push(ch);
  exposeEngine(scriptedEngine(), ch.port1 as never);
  const port = ch.port2 as unknown as Worker & { start(): void };
  const engine = connectEngine(Object.assign(port, { terminate: () => ch.port2.close() }));
  port.start();
  return { engine, port };
}

describe('engine over the worker boundary', () => {
  it('returns plain results and typed arrays', async () => {
    const { engine } = connect();
    expect(await engine.encode('ab')).toEqual([97, 98]);
    const [logits] = await engine.logits({ promptIds: [1], route: [0], silence: [] });
    expect(Array.from(logits)).toEqual([1, 2, 3]);
  });

  it('carries a read-out across as plain data', async () => {
    const { engine } = connect();
    const r = await engine.readout!('look-inside', { promptIds: [1], route: [3], silence: [], gold: 4 });
    expect(r).toMatchObject({ route: [3], gold: 4, emitted: 7, attribution: [{ position: 0, layer: 3, attn: 0.25, mlp: 0.25 }] });
    expect(r.lens[0].gold).toEqual({ id: 4, rank: 2, prob: 0.25, logit: 1 });
  });

  it('keeps the EngineError code and delivers progress callbacks', async () => {
    const { engine } = connect();
    const seen: LoadProgress[] = [];
    const err = await engine.load({ kind: 'hub', repo: 'org/model' }, {}, (p) => seen.push(p)).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('gated');
    expect(err.message).toMatch(/org\/model is gated/);
    // progress travels on its own proxied channel, so it may land after the rejection
    await vi.waitFor(() => expect(seen).toEqual([{ phase: 'weights', loadedBytes: 5, totalBytes: 10 }]));
  });

  it('rejects pending and later calls with worker-crashed when the worker dies', async () => {
    const { engine } = connect();
    const inFlight = engine.generate([], { maxNewTokens: 1 });
    engine.terminate();
    await expect(inFlight).rejects.toMatchObject({ code: 'worker-crashed' });
    await expect(engine.encode('x')).rejects.toMatchObject({ code: 'worker-crashed' });
  });
});

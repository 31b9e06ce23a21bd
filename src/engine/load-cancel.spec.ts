// A load can be cancelled: dispose() or cancel() during a load whose Hub reply stalls ends it with
// 'cancelled' at once (it hung before), and the engine loads again afterwards (Node, WASM EP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../test/hub-server.ts';
import { createEngine } from './engine.ts';

const QWEN2 = new URL('../../test/fixtures/reference/tiny-qwen2/', import.meta.url).pathname;

let hub: HubServer;
beforeAll(async () => {
  hub = await startHubServer({ repos: { 'org/tiny': QWEN2 } });
});
afterAll(async () => {
  await hub.close();
});

const source = () => ({ kind: 'hub' as const, repo: 'org/tiny', endpoint: hub.url });
/** Resolves once the stand-in Hub has been asked for `file`. */
async function asked(file: string): Promise<void> {
  while (!hub.requests.some((r) => r.path.endsWith(`/${file}`))) await new Promise((ok) => setTimeout(ok, 20));
}

describe('engine load cancellation', () => {
  it('dispose() during a stalled load ends it as cancelled, within a second', async () => {
    hub.setFaults([{ file: 'tokenizer.json', stallAfter: 100 }]);
    const engine = createEngine();
    const load = engine.load(source(), { ep: 'wasm', maxSeqLen: 32 });
    const outcome = load.then(() => null, (e: unknown) => e);
    await asked('tokenizer.json');
    const t0 = Date.now();
    await engine.dispose();
    expect(await outcome).toMatchObject({ name: 'EngineError', code: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await engine.info()).toBeNull();
  });

  it('cancel() ends a stalled load; the same engine then loads', async () => {
    hub.requests.length = 0;
    hub.setFaults([{ file: 'model.safetensors', stallAfter: 4096 }]);
    const engine = createEngine();
    const outcome = engine.load(source(), { ep: 'wasm', maxSeqLen: 32 }).then(() => null, (e: unknown) => e);
    await asked('model.safetensors');
    await engine.cancel();
    expect(await outcome).toMatchObject({ code: 'cancelled' });
    hub.setFaults([]);
    const info = await engine.load(source(), { ep: 'wasm', maxSeqLen: 32 });
    expect(info.numLayers).toBe(6);
    await engine.dispose();
  });
});

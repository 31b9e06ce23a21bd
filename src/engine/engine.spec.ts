// Engine behaviour beyond the reference numbers: prefix sharing, seeded sampling in batches,
// stop conditions, capacity limits, cancellation, NaN detection (Node, WASM EP, tiny-qwen2).
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalEngine } from './engine.ts';
import { maxAbsDiff } from './conformance.ts';
import type { GenerateRow } from './types.ts';

const fixture = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url).pathname;
const expected = JSON.parse(readFileSync(`${fixture('tiny-qwen2')}expected.json`, 'utf8')) as { input_ids: number[] };
const prompt = expected.input_ids;
const full = [0, 1, 2, 3, 4, 5];

describe('engine (tiny-qwen2)', () => {
  let engine: LocalEngine;
  beforeAll(async () => {
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: fixture('tiny-qwen2') }, { ep: 'wasm', maxSeqLen: 48 });
  });
  afterAll(async () => engine.dispose());

  it('shares the prefill of rows with a common prompt and route prefix', async () => {
    const routes = [full, [0, 1, 2, 2, 3, 4, 5], [0, 1, 2, 4, 5]];
    const rows = routes.map((route) => ({ promptIds: prompt, route, silence: [], sampling: { kind: 'greedy' as const } }));
    const r0 = engine.runs;
    const t0 = (await engine.stats()).layerTokens;
    const shared = await engine.generate(rows, { maxNewTokens: 1 });
    const sharedRuns = engine.runs - r0;
    // one embedding run; layers 0,1,2 run once for all three rows; then 2 (repeat), 3 (two rows), 4, 5, and one head run
    expect(sharedRuns).toBe(1 + 3 + 1 + 1 + 1 + 1 + 1);
    // the prompt goes through the shared positions 0–2 once, then through each row's own 3, 4 and 2
    // positions: 12 prompts' worth of layer work instead of 6 + 7 + 5 = 18
    expect((await engine.stats()).layerTokens - t0).toBe(prompt.length * (3 + 3 + 4 + 2));
    for (const [i, row] of rows.entries()) {
      const [one] = await engine.generate([row], { maxNewTokens: 1 });
      expect(shared[i].tokens).toEqual(one.tokens);
      expect(Math.abs(shared[i].tokenLogprobs[0] - one.tokenLogprobs[0])).toBeLessThan(1e-5);
    }
  });

  it('samples reproducibly per seed, batched or alone', async () => {
    const row = (seed: number) => ({ promptIds: prompt, route: full, silence: [], sampling: { kind: 'sample' as const, temperature: 1.5, topP: 0.95, seed } });
    const opts = { maxNewTokens: 10, eosTokenIds: [] };
    const batched = await engine.generate([row(1), row(2), row(1)], opts);
    const [alone] = await engine.generate([row(2)], opts);
    expect(batched[0].tokens).toEqual(batched[2].tokens);
    expect(batched[1].tokens).toEqual(alone.tokens);
    expect(batched[0].tokens).not.toEqual(batched[1].tokens);
    expect(maxAbsDiff(batched[1].tokenLogprobs, alone.tokenLogprobs)).toBeLessThan(1e-4);
  });

  it('stops on an eos id (kept as the last token) and on a stop string (text cut before it)', async () => {
    const base = { promptIds: prompt, route: full, silence: [], sampling: { kind: 'greedy' as const } };
    const [free] = await engine.generate([base], { maxNewTokens: 8, eosTokenIds: [] });
    expect(free.stop).toBe('max-tokens');
    expect(free.tokens).toHaveLength(8);
    const [eos] = await engine.generate([base], { maxNewTokens: 8, eosTokenIds: [free.tokens[3]] });
    expect(eos.stop).toBe('eos');
    expect(eos.tokens).toEqual(free.tokens.slice(0, free.tokens.indexOf(free.tokens[3]) + 1));
    const text = free.text;
    const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 2);
    expect(stop.length).toBe(2);
    const [cut] = await engine.generate([base], { maxNewTokens: 8, eosTokenIds: [], stopStrings: [stop] });
    expect(cut.stop).toBe('stop-string');
    expect(cut.text).toBe(text.slice(0, text.indexOf(stop)));
  });

  it('greedy rows read back (id, log-prob) per token, sampled rows the logits', async () => {
    const V = (await engine.info())!.vocabSize;
    const decodeBytes = async (sampling: GenerateRow['sampling']) => {
      const row = { promptIds: prompt, route: full, silence: [], sampling };
      const gen = (n: number) => engine.generate([row, row], { maxNewTokens: n, eosTokenIds: [] });
      const s0 = await engine.stats();
      await gen(1);
      const s1 = await engine.stats();
      await gen(5);
      const s2 = await engine.stats();
      return (s2.downloadBytes - s1.downloadBytes - (s1.downloadBytes - s0.downloadBytes)) / (2 * 4); // per row and decoded token
    };
    const greedy = await decodeBytes({ kind: 'greedy' });
    const sampled = await decodeBytes({ kind: 'sample', temperature: 1, topP: 1, seed: 3 });
    // the same runs either way (on WASM hidden states and KV caches come back from every run), except
    // that a sampled row reads V f32 logits where a greedy one reads an i64 id and an f32 log-prob
    expect(sampled - greedy).toBe(V * 4 - 12);
  });

  it('refuses sequences beyond maxSeqLen', async () => {
    const row = { promptIds: prompt, route: full, silence: [], sampling: { kind: 'greedy' as const } };
    await expect(engine.generate([row], { maxNewTokens: 48 })).rejects.toMatchObject({ code: 'bad-input', message: expect.stringMatching(/maxSeqLen 48/) });
  });

  it('cancel() rejects the call in flight and leaves the engine usable', async () => {
    const rows = Array.from({ length: 8 }, (_, i) => ({ promptIds: prompt, route: full, silence: [], sampling: { kind: 'sample' as const, temperature: 1, topP: 1, seed: i } }));
    const running = engine.generate(rows, { maxNewTokens: 30, eosTokenIds: [] });
    await engine.cancel();
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    const [again] = await engine.generate([rows[0]], { maxNewTokens: 2, eosTokenIds: [] });
    expect(again.tokens).toHaveLength(2);
  });

  it('reports an unknown engine dtype and an unloaded engine', async () => {
    const fresh = createEngine();
    await expect(fresh.logits({ promptIds: [1], route: [0], silence: [] })).rejects.toMatchObject({ code: 'not-loaded' });
    const bad = fresh.load({ kind: 'fs', dir: fixture('tiny-qwen2') }, { ep: 'wasm', dtype: 'f8' as never });
    await expect(bad).rejects.toMatchObject({ code: 'unsupported-dtype', message: expect.stringMatching(/"f8" is unknown/) });
  });
});

describe('NaN detection', () => {
  let dir: string;
  beforeAll(() => {
    // tiny-qwen3 is stored as F32: poison model.norm.weight[0] with +Inf
    dir = mkdtempSync(join(tmpdir(), 'reachlab-nan-'));
    for (const f of readdirSync(fixture('tiny-qwen3'))) copyFileSync(join(fixture('tiny-qwen3'), f), join(dir, f));
    const bytes = readFileSync(join(dir, 'model.safetensors'));
    const headerLen = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLen).toString('utf8')) as Record<string, { data_offsets: [number, number] }>;
    bytes.writeFloatLE(Infinity, 8 + headerLen + header['model.norm.weight'].data_offsets[0]);
    writeFileSync(join(dir, 'model.safetensors'), bytes);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails with nan-logits naming the row and step, the checkpoint, and where the NaN or Inf first appears', async () => {
    const engine = createEngine();
    const info = await engine.load({ kind: 'fs', dir }, { ep: 'wasm', maxSeqLen: 32 });
    const row = { promptIds: [5, 6, 7], route: [0, 1, 2, 3], silence: [], sampling: { kind: 'greedy' as const } };
    await expect(engine.generate([row, row], { maxNewTokens: 3 })).rejects.toMatchObject({
      code: 'nan-logits',
      row: 0,
      message: expect.stringMatching(new RegExp(`^row 0, step 0: .* in ${info.name}: the prompt's hidden state is finite after every layer of the route, so the final norm or the head makes them`)),
    });
    await engine.dispose();
  });

  it('names the layer whose weights hold Inf, for generate and score alike', async () => {
    const layered = mkdtempSync(join(tmpdir(), 'reachlab-nan-layer-'));
    try {
      for (const f of readdirSync(fixture('tiny-qwen3'))) copyFileSync(join(fixture('tiny-qwen3'), f), join(layered, f));
      const bytes = readFileSync(join(layered, 'model.safetensors'));
      const headerLen = Number(bytes.readBigUInt64LE(0));
      const header = JSON.parse(bytes.subarray(8, 8 + headerLen).toString('utf8')) as Record<string, { data_offsets: [number, number] }>;
      const at = 8 + headerLen + header['model.layers.2.mlp.down_proj.weight'].data_offsets[0];
      for (let i = 0; i < 64; i++) bytes.writeFloatLE(Infinity, at + 4 * i);
      writeFileSync(join(layered, 'model.safetensors'), bytes);
      const engine = createEngine();
      await engine.load({ kind: 'fs', dir: layered }, { ep: 'wasm', maxSeqLen: 32 });
      const ok = { promptIds: [5, 6, 7], route: [0, 1], silence: [], sampling: { kind: 'greedy' as const } };
      const bad = { ...ok, route: [0, 1, 2, 3] };
      const where = /after layer 2 \(blocks\.2, route position 2\)/;
      await expect(engine.generate([ok, bad], { maxNewTokens: 2 })).rejects.toMatchObject({ code: 'nan-logits', row: 1, message: expect.stringMatching(where) });
      await expect(engine.score([{ ...bad, continuations: [[1]] }])).rejects.toMatchObject({ code: 'nan-logits', row: 0, message: expect.stringMatching(where) });
      await engine.dispose();
    } finally {
      rmSync(layered, { recursive: true, force: true });
    }
  });
});

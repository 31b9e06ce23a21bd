// Engine-format weights: conversion chunk by chunk into parts (weights.ts), and the same logits
// whether a model's matrices are whole or cut into parts as WebGPU's buffer limits force.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMatrix, type DensePart, type Q4Part } from './weights.ts';
import { quantizeQ4 } from './quantize.ts';
import { WeightArena } from './arena.ts';
import { memoryRowSource } from './testing/row-source.ts';
import { createEngine } from './engine.ts';
import { maxAbsDiff, type Expected } from './conformance.ts';
import { createPrng } from '../util/prng.ts';

const fixture = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url).pathname;

function random(n: number, seed: number): Float32Array {
  const rng = createPrng(seed);
  return Float32Array.from({ length: n }, () => rng.next() * 2 - 1);
}

// two tensors stacked row-wise: a [5, 70] and b [9, 70] -> [14, 70]; chunks of 3 rows
const a = random(5 * 70, 1);
const b = random(9 * 70, 2);
const stacked = new Float32Array([...a, ...b]);
const src = memoryRowSource({ a: { data: a, shape: [5, 70] }, b: { data: b, shape: [9, 70] } }, 3);

describe('readMatrix', () => {
  it('stacks and transposes into parts no larger than the limit', async () => {
    const m = await readMatrix(src, ['a', 'b'], { kind: 'dense', layout: 'in-out', act: 'float32' }, 4 * 70 * 4); // 4 rows per part
    expect(m).toMatchObject({ inF: 70, outF: 14 });
    expect(m.parts.map((p) => p.rows)).toEqual([4, 4, 4, 2]);
    let row0 = 0;
    for (const p of m.parts as DensePart[]) {
      expect(p.data.byteLength).toBeLessThanOrEqual(4 * 70 * 4);
      for (let r = 0; r < p.rows; r++) for (let c = 0; c < 70; c++) expect(p.data[c * p.rows + r]).toBe(stacked[(row0 + r) * 70 + c]);
      row0 += p.rows;
    }
  });

  it('keeps the stored layout for out-in and converts to f16 bits', async () => {
    const m = await readMatrix(src, ['a', 'b'], { kind: 'dense', layout: 'out-in', act: 'float16' }, Infinity);
    expect(m.parts).toHaveLength(1);
    const p = m.parts[0] as DensePart;
    expect(p.data).toBeInstanceOf(Uint16Array);
    expect(p.data.length).toBe(14 * 70);
  });

  it('converts into an arena exactly as into fresh arrays, the arena reused matrix after matrix', async () => {
    const arena = new WeightArena();
    for (const format of [{ kind: 'dense', layout: 'out-in', act: 'float32' }, { kind: 'dense', layout: 'in-out', act: 'float32' }, { kind: 'q8', act: 'float32' }] as const) {
      arena.reset();
      const fresh = await readMatrix(src, ['a', 'b'], format, 4 * 70 * 4);
      const reused = await readMatrix(src, ['a', 'b'], format, 4 * 70 * 4, arena);
      expect(reused).toEqual(fresh);
    }
  });

  it('quantizes parts exactly as quantizeQ4 does the whole matrix', async () => {
    const whole = quantizeQ4(stacked, 14, 70);
    const kBlocks = 3; // ceil(70 / 32)
    const m = await readMatrix(src, ['a', 'b'], { kind: 'q4', act: 'float32' }, 5 * (kBlocks * 16 + kBlocks * 4 + 2)); // 5 rows per part
    expect(m.parts.map((p) => p.rows)).toEqual([5, 5, 4]);
    let row0 = 0;
    for (const p of m.parts as Q4Part[]) {
      expect(Array.from(p.packed)).toEqual(Array.from(whole.packed.subarray(row0 * kBlocks * 16, (row0 + p.rows) * kBlocks * 16)));
      expect(Array.from(p.scales)).toEqual(Array.from(whole.scales.subarray(row0 * kBlocks, (row0 + p.rows) * kBlocks)));
      expect(Array.from(p.zeroPoints)).toEqual(Array.from(whole.zeroPoints.subarray(row0 * 2, (row0 + p.rows) * 2)));
      row0 += p.rows;
    }
  });

  it('refuses to stack tensors of different widths', async () => {
    const bad = memoryRowSource({ a: { data: a, shape: [5, 70] }, c: { data: random(10, 3), shape: [1, 10] } });
    await expect(readMatrix(bad, ['a', 'c'], { kind: 'q4', act: 'float32' }, Infinity)).rejects.toMatchObject({ code: 'bad-checkpoint' });
  });
});

describe('matrices cut into parts (as for WebGPU buffer limits)', () => {
  // tiny-qwen2: tied head (embedding read from the split head); tiny-llama: untied head and embedding
  it.each([
    ['tiny-qwen2', 'f32'],
    ['tiny-qwen2', 'q4'],
    ['tiny-llama', 'f32'],
    ['tiny-llama', 'q4'],
  ] as const)('give the logits and greedy tokens of whole matrices: %s %s', async (m, dtype) => {
    const e = JSON.parse(readFileSync(`${fixture(m)}expected.json`, 'utf8')) as Expected;
    const whole = createEngine();
    const split = createEngine();
    await whole.load({ kind: 'fs', dir: fixture(m) }, { ep: 'wasm', dtype, maxSeqLen: 32 });
    await split.load({ kind: 'fs', dir: fixture(m) }, { ep: 'wasm', dtype, maxSeqLen: 32, maxWeightPartBytes: 4096 });
    for (const c of e.cases) {
      const row = { promptIds: e.input_ids, route: c.route, silence: c.silence };
      const [w, s] = [await whole.logits(row, { allPositions: true }), await split.logits(row, { allPositions: true })];
      w.forEach((l, p) => expect(maxAbsDiff(l, s[p]), `${c.name} position ${p}`).toBeLessThan(1e-5));
      const gen = { maxNewTokens: 4, eosTokenIds: [] };
      const [gw] = await whole.generate([{ ...row, sampling: { kind: 'greedy' } }], gen);
      const [gs] = await split.generate([{ ...row, sampling: { kind: 'greedy' } }], gen);
      expect(gs.tokens).toEqual(gw.tokens);
    }
    await Promise.all([whole.dispose(), split.dispose()]);
  });
});

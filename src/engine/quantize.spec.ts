import { describe, expect, it } from 'vitest';
import { dequantizeQ4, dequantizeQ8Blocks, quantizeQ4, quantizeQ8BlockRows } from './quantize.ts';
import { GraphBuilder } from './graph/onnx.ts';
import { linear } from './graph/linear.ts';
import { getOrt } from './ort.ts';
import { readMatrix } from './weights.ts';
import { memoryRowSource } from './testing/row-source.ts';
import { createPrng } from '../util/prng.ts';

const q4Matrix = (w: Float32Array, n: number, k: number) =>
  readMatrix(memoryRowSource({ w: { data: w, shape: [n, k] } }), ['w'], { kind: 'q4', act: 'float32' }, Infinity);

function randomMatrix(n: number, seed: number): Float32Array {
  const rng = createPrng(seed);
  return Float32Array.from({ length: n }, () => rng.next() * 2 - 1);
}

describe('quantizeQ4', () => {
  it('round-trips within half a quantization step per block', () => {
    const [n, k] = [5, 70]; // k not a multiple of 32: the last block is padded
    const w = randomMatrix(n * k, 1);
    const q = quantizeQ4(w, n, k);
    const back = dequantizeQ4(q);
    const kBlocks = Math.ceil(k / 32);
    for (let r = 0; r < n; r++) {
      for (let i = 0; i < k; i++) {
        const scale = q.scales[r * kBlocks + Math.floor(i / 32)];
        expect(Math.abs(back[r * k + i] - w[r * k + i])).toBeLessThanOrEqual(scale / 2 + 1e-6);
      }
    }
  });

  it('is read by MatMulNBits exactly as dequantizeQ4 reads it', async () => {
    const ort = await getOrt();
    const [m, n, k] = [3, 6, 40];
    const w = randomMatrix(n * k, 2);
    const x = randomMatrix(m * k, 3);
    const g = new GraphBuilder('q4');
    g.input('x', 'float32', [m, k]);
    g.node('Identity', [linear(g, 'x', 'proj', await q4Matrix(w, n, k))], { outputs: ['y'] });
    g.output('y', 'float32', [m, n]);
    const built = g.build();
    const session = await ort.InferenceSession.create(built.bytes, { executionProviders: ['wasm'], externalData: built.externalData });
    const y = (await session.run({ x: new ort.Tensor('float32', x, [m, k]) })).y.data as Float32Array;
    await session.release();
    const wq = dequantizeQ4(quantizeQ4(w, n, k));
    for (let r = 0; r < m; r++) {
      for (let c = 0; c < n; c++) {
        let want = 0;
        for (let i = 0; i < k; i++) want += x[r * k + i] * wq[c * k + i];
        expect(Math.abs(y[r * n + c] - want), `y[${r}][${c}]`).toBeLessThan(1e-4);
      }
    }
  });
});

describe('quantizeQ8BlockRows', () => {
  it('round-trips within half a step per block of 32, padding and zero blocks exact', () => {
    const [n, k] = [4, 70]; // the last block of each row is padded
    const w = randomMatrix(n * k, 4);
    w.fill(0, k, k + 32); // row 1's first block is all zero
    const kBlocks = Math.ceil(k / 32);
    const packed = new Uint8Array(n * kBlocks * 32);
    const scales = new Float32Array(n * kBlocks);
    quantizeQ8BlockRows(w.subarray(0, 2 * k), 2, k, packed, scales, 0); // two chunks, as a load reads them
    quantizeQ8BlockRows(w.subarray(2 * k), 2, k, packed, scales, 2);
    const back = dequantizeQ8Blocks(packed, scales, n, k);
    for (let i = 0; i < n * k; i++) expect(Math.abs(back[i] - w[i])).toBeLessThanOrEqual(scales[Math.floor(i / k) * kBlocks + Math.floor((i % k) / 32)] / 2 + 1e-7);
    expect(Array.from(back.subarray(k, k + 32))).toEqual(Array(32).fill(0));
    expect(packed[kBlocks * 32 - 1]).toBe(128); // padding past k reads as zero
    expect(Math.max(...packed)).toBeLessThanOrEqual(255);
    expect(Math.min(...packed)).toBeGreaterThanOrEqual(1); // ±127 around 128
  });
});

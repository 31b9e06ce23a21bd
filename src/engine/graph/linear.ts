// A projection y = x · Wᵀ for a Hugging Face weight W [out, in]: f32 MatMul over the transposed
// weight, or com.microsoft MatMulNBits (4-bit, block 32) over the quantized weight.
import { quantizeQ4, Q4_BLOCK } from '../quantize.ts';
import { MS_DOMAIN, type GraphBuilder } from './onnx.ts';

export type WeightFormat = 'f32' | 'q4';

/** Transpose a row-major [rows, cols] matrix. */
export function transpose(w: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = w[r * cols + c];
  return t;
}

/** Adds the projection of `x` [..., inF] by `w` [outF, inF]; returns the [..., outF] value. */
export function linear(g: GraphBuilder, x: string, name: string, w: Float32Array, outF: number, inF: number, format: WeightFormat): string {
  if (format === 'f32') {
    const wt = g.init(`${name}.weight`, 'float32', [inF, outF], transpose(w, outF, inF));
    return g.op('MatMul', [x, wt]);
  }
  const q = quantizeQ4(w, outF, inF);
  const kBlocks = Math.ceil(inF / Q4_BLOCK);
  const b = g.init(`${name}.q4`, 'uint8', [outF, kBlocks, Q4_BLOCK / 2], q.packed);
  const s = g.init(`${name}.scales`, 'float32', [outF * kBlocks], q.scales);
  const z = g.init(`${name}.zp`, 'uint8', [q.zeroPoints.length], q.zeroPoints);
  return g.op('MatMulNBits', [x, b, s, z], { K: inF, N: outF, bits: 4, block_size: Q4_BLOCK }, MS_DOMAIN);
}

/** Row-wise concatenation of [rows_i, cols] matrices (fusing q/k/v or gate/up projections). */
export function concatRows(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

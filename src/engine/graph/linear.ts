// A projection y = x · Wᵀ for a Hugging Face weight W [out, in]: a dense MatMul over the
// transposed weight, or com.microsoft MatMulNBits (4-bit, block 32) over the quantized weight;
// activations, dense weights and q4 scales in the precision's float type.
import { quantizeQ4, Q4_BLOCK } from '../quantize.ts';
import type { EngineDtype } from '../types.ts';
import { MS_DOMAIN, type FloatType, type GraphBuilder } from './onnx.ts';

/** How an engine dtype computes: the activation type and whether projections are 4-bit. */
export interface Precision {
  act: FloatType;
  q4: boolean;
}

export function precisionOf(dtype: EngineDtype): Precision {
  return { act: dtype === 'f16' || dtype === 'q4f16' ? 'float16' : 'float32', q4: dtype === 'q4' || dtype === 'q4f16' };
}

/** The same weights with f32 activations (where f16 cannot run). */
export function withF32Activations(dtype: EngineDtype): EngineDtype {
  return dtype === 'f16' ? 'f32' : dtype === 'q4f16' ? 'q4' : dtype;
}

/** Transpose a row-major [rows, cols] matrix. */
export function transpose(w: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = w[r * cols + c];
  return t;
}

/** Adds the projection of `x` [..., inF] by `w` [outF, inF]; returns the [..., outF] value. */
export function linear(g: GraphBuilder, x: string, name: string, w: Float32Array, outF: number, inF: number, p: Precision, output?: string): string {
  if (!p.q4) {
    const wt = g.floats(`${name}.weight`, p.act, [inF, outF], transpose(w, outF, inF));
    return g.node('MatMul', [x, wt], { outputs: output ? [output] : 1 })[0];
  }
  return matMulQ4(g, x, name, w, outF, inF, p.act, output);
}

/** MatMulNBits over `w` [outF, inF] quantized on load; scales in the activation type. */
export function matMulQ4(g: GraphBuilder, x: string, name: string, w: Float32Array, outF: number, inF: number, act: FloatType, output?: string): string {
  const q = quantizeQ4(w, outF, inF);
  const kBlocks = Math.ceil(inF / Q4_BLOCK);
  const b = g.init(`${name}.q4`, 'uint8', [outF, kBlocks, Q4_BLOCK / 2], q.packed);
  const s = g.floats(`${name}.scales`, act, [outF * kBlocks], q.scales);
  const z = g.init(`${name}.zp`, 'uint8', [q.zeroPoints.length], q.zeroPoints);
  return g.node('MatMulNBits', [x, b, s, z], { outputs: output ? [output] : 1, attrs: { K: inF, N: outF, bits: 4, block_size: Q4_BLOCK }, domain: MS_DOMAIN })[0];
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

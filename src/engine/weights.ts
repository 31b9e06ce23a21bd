// Checkpoint tensors in the engine's formats, converted row chunk by row chunk as the bytes arrive
// (checkpoint.ts rowChunks): no whole-tensor f32 copy, no transpose or quantize pass over a second
// copy. A matrix is cut into parts along its output features so that no part exceeds
// `maxPartBytes` (WebGPU's max buffer / binding size; a browser ArrayBuffer's ~2 GiB).
//
//   dense 'in-out'  [inF, outF] (MatMul's B: a projection y = x·Wᵀ of a Hugging Face W [outF, inF])
//   dense 'out-in'  [outF, inF] (as stored: the LM head for Gemm transB=1 and Gather)
//   q4              com.microsoft MatMulNBits blocks of a [outF, inF] weight (quantize.ts)
//   q8              int8 [inF, outF] (MatMulInteger's B) with one f32 scale per output feature
//   q8-blocks       com.microsoft MatMulNBits 8-bit blocks of a [outF, inF] weight (q8b)
// Dense values and q4 scales are in the activation type (f16 as bit patterns in a Uint16Array).

import { f32ToF16 } from './dtype.ts';
import { allocQ4, quantizeQ4Rows, quantizeQ8BlockRows, quantizeQ8Rows, Q4_BLOCK, type Q4Weight } from './quantize.ts';
import type { RowChunk } from './checkpoint.ts';
import type { FloatType } from './graph/onnx.ts';
import type { Precision } from './graph/linear.ts';
import { takeArray, type WeightArena } from './arena.ts';
import { EngineError, type ExecutionProvider } from './types.ts';

export type FloatArray = Float32Array | Uint16Array;

export type MatrixFormat =
  | { kind: 'dense'; layout: 'in-out' | 'out-in'; act: FloatType }
  | { kind: 'q4'; act: FloatType }
  | { kind: 'q8'; act: 'float32' }
  | { kind: 'q8-blocks'; act: 'float32' };

export interface DensePart {
  kind: 'dense';
  rows: number; // output features in this part
  data: FloatArray; // [inF, rows] ('in-out') or [rows, inF] ('out-in')
}

export interface Q4Part {
  kind: 'q4';
  rows: number;
  packed: Uint8Array; // [rows, kBlocks, 16]
  scales: FloatArray; // [rows, kBlocks]
  zeroPoints: Uint8Array; // [rows, ceil(kBlocks / 2)]
}

export interface Q8Part {
  kind: 'q8';
  rows: number;
  values: Int8Array; // [inF, rows]
  scales: Float32Array; // [rows]
}

export interface Q8BlocksPart {
  kind: 'q8-blocks';
  rows: number;
  packed: Uint8Array; // [rows, kBlocks, 32]
  scales: Float32Array; // [rows, kBlocks]
}

export type MatrixPart = DensePart | Q4Part | Q8Part | Q8BlocksPart;

export interface Matrix {
  inF: number;
  outF: number;
  format: MatrixFormat;
  parts: MatrixPart[];
}

/** How a layer's projections are stored in `p` on `ep`. Dense ones stay as Hugging Face stores them
 *  on the CPU EPs (wasm, cpu) and cuda, where a transB product reads them as they are
 *  (graph/linear.ts): no transpose on load, and onnxruntime creates the session several times
 *  faster than over a transposed copy; WebGPU's MatMul takes them transposed. */
export function projectionFormat(p: Precision, ep: ExecutionProvider): MatrixFormat {
  if (p.q8) return { kind: 'q8', act: 'float32' };
  if (p.q8Blocks) return { kind: 'q8-blocks', act: 'float32' };
  if (p.q4) return { kind: 'q4', act: p.act };
  return { kind: 'dense', layout: ep === 'webgpu' ? 'in-out' : 'out-in', act: p.act };
}

/** How the LM head is stored in `p`: as Hugging Face stores it (for Gemm transB), or 4-bit. With
 *  8-bit projections the head stays f32, as LLM.int8() keeps it: on the trained micro model an
 *  8-bit head alone flips the top token at 6% of positions (src/engine/q8.spec.ts). */
export function headFormat(p: Precision): MatrixFormat {
  return p.q4 ? { kind: 'q4', act: p.act } : { kind: 'dense', layout: 'out-in', act: p.act };
}

/** What the conversion needs from a checkpoint (checkpoint.ts Checkpoint satisfies it). */
export interface RowSource {
  tensorInfo(name: string): { shape: number[] };
  rowChunks(name: string): AsyncGenerator<RowChunk>;
}

/** Bytes of one output feature (row) of a matrix with `inF` inputs in `format`. */
export function rowBytes(inF: number, format: MatrixFormat): number {
  const actBytes = format.act === 'float16' ? 2 : 4;
  if (format.kind === 'dense') return inF * actBytes;
  if (format.kind === 'q8') return inF + 4;
  const kBlocks = Math.ceil(inF / Q4_BLOCK);
  if (format.kind === 'q8-blocks') return kBlocks * (Q4_BLOCK + 4);
  return kBlocks * (Q4_BLOCK / 2) + kBlocks * actBytes + Math.ceil(kBlocks / 2);
}

/** Bytes of a whole [outF, inF] matrix in `format` (memory planning). */
export function matrixBytes(outF: number, inF: number, format: MatrixFormat): number {
  return outF * rowBytes(inF, format);
}

/**
 * The row-wise stack of `names` (each [rows_i, inF]) as one [Σ rows_i, inF] matrix in `format`,
 * e.g. q, k and v as one fused projection. Dense and 8-bit values go into `arena` where given.
 */
export async function readMatrix(src: RowSource, names: string[], format: MatrixFormat, maxPartBytes: number, arena?: WeightArena): Promise<Matrix> {
  const shapes = names.map((n) => src.tensorInfo(n).shape);
  const inF = shapes[0][1];
  if (shapes.some((s) => s.length !== 2 || s[1] !== inF)) {
    throw new EngineError('bad-checkpoint', `cannot stack ${names.join(', ')}: shapes ${shapes.map((s) => `[${s}]`).join(', ')}`);
  }
  const outF = shapes.reduce((n, s) => n + s[0], 0);
  const perRow = rowBytes(inF, format);
  if (perRow > maxPartBytes) throw new EngineError('out-of-memory', `one row of ${names[0]} (${perRow} bytes) exceeds the largest buffer (${maxPartBytes} bytes)`);
  const nParts = Math.max(1, Math.ceil((outF * perRow) / maxPartBytes));
  const partRows = Math.ceil(outF / nParts);
  const builders = Array.from({ length: nParts }, (_, i) => partBuilder(Math.min(partRows, outF - i * partRows), inF, format, arena));
  let base = 0;
  for (const [i, name] of names.entries()) {
    for await (const chunk of src.rowChunks(name)) {
      // rows [r0, r0 + count) of the stacked matrix, possibly across parts
      let done = 0;
      while (done < chunk.count) {
        const r = base + chunk.row0 + done;
        const p = Math.floor(r / partRows);
        const n = Math.min(chunk.count - done, (p + 1) * partRows - r);
        builders[p].put(chunk.data.subarray(done * inF, (done + n) * inF), n, r - p * partRows);
        done += n;
      }
    }
    base += shapes[i][0];
  }
  return { inF, outF, format, parts: builders.map((b) => b.done()) };
}

/** A 1-D tensor (or several, concatenated) in the activation type. */
export async function readVector(src: RowSource, names: string[], act: FloatType): Promise<FloatArray> {
  const parts: Float32Array[] = [];
  for (const name of names) for await (const chunk of src.rowChunks(name)) parts.push(chunk.data.slice());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return act === 'float16' ? f32ToF16(out) : out;
}

interface PartBuilder {
  /** `n` rows ([n, inF] f32) that become rows [row, row + n) of the part. */
  put(rows: Float32Array, n: number, row: number): void;
  done(): MatrixPart;
}

function partBuilder(rows: number, inF: number, format: MatrixFormat, arena?: WeightArena): PartBuilder {
  if (format.kind === 'q8') {
    const values = takeArray(arena, Int8Array, inF * rows);
    const scales = takeArray(arena, Float32Array, rows);
    let scratch = new Int8Array(0); // one chunk's [n, inF] values, reused chunk after chunk
    return {
      put: (w, n, row) => {
        if (scratch.length < n * inF) scratch = new Int8Array(n * inF);
        const q = scratch.subarray(0, n * inF); // [n, inF], then transposed into columns [row, row + n)
        quantizeQ8Rows(w, n, inF, q, scales.subarray(row, row + n));
        transposeInto(q, n, inF, values, rows, row);
      },
      done: () => ({ kind: 'q8', rows, values, scales }),
    };
  }
  if (format.kind === 'q8-blocks') {
    const kBlocks = Math.ceil(inF / Q4_BLOCK);
    const packed = takeArray(arena, Uint8Array, rows * kBlocks * Q4_BLOCK);
    const scales = takeArray(arena, Float32Array, rows * kBlocks);
    return {
      put: (w, n, row) => quantizeQ8BlockRows(w, n, inF, packed, scales, row),
      done: () => ({ kind: 'q8-blocks', rows, packed, scales }),
    };
  }
  if (format.kind === 'q4') {
    const q: Q4Weight = allocQ4(rows, inF);
    return {
      put: (w, n, row) => quantizeQ4Rows(w, n, q, row),
      done: () => ({ kind: 'q4', rows, packed: q.packed, scales: format.act === 'float16' ? f32ToF16(q.scales) : q.scales, zeroPoints: q.zeroPoints }),
    };
  }
  const f16 = format.act === 'float16';
  const data: FloatArray = f16 ? takeArray(arena, Uint16Array, rows * inF) : takeArray(arena, Float32Array, rows * inF);
  if (format.layout === 'out-in') {
    return {
      put: (w, _n, row) => data.set(f16 ? f32ToF16(w) : w, row * inF),
      done: () => ({ kind: 'dense', rows, data }),
    };
  }
  return {
    put: (w, n, row) => transposeInto(f16 ? f32ToF16(w) : w, n, inF, data, rows, row),
    done: () => ({ kind: 'dense', rows, data }),
  };
}

/** Writes src [n, cols] transposed into columns [col0, col0 + n) of dst [cols, dstCols]. */
function transposeInto<T extends FloatArray | Int8Array>(src: T, n: number, cols: number, dst: T, dstCols: number, col0: number): void {
  const TILE = 64; // rows of src per pass: their values for one column sit in cache together
  for (let r0 = 0; r0 < n; r0 += TILE) {
    const r1 = Math.min(n, r0 + TILE);
    for (let c = 0; c < cols; c++) {
      const d = c * dstCols + col0;
      for (let r = r0; r < r1; r++) dst[d + r] = src[r * cols + c];
    }
  }
}

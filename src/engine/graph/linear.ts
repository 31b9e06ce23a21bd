// A projection y = x · Wᵀ of a Hugging Face weight W [out, in], from an engine-format Matrix
// (weights.ts): a dense MatMul over the 'in-out' (transposed) weight, over the 'out-in' one a
// Gemm transB=1 (2-D x: the LM head, prepacked) or a com.microsoft FusedMatMul transB=1 (any x:
// WASM projections), com.microsoft MatMulNBits (4-bit, block 32; 8-bit blocks for q8b), or
// MatMulInteger over int8 weights with x quantized row by row (q8). A matrix stored in several
// parts (buffer limits) runs one node per part and concatenates the outputs.
import type { EngineDtype } from '../types.ts';
import type { Matrix, Q4Part, Q8BlocksPart, Q8Part } from '../weights.ts';
import { Q4_BLOCK, Q8_MAX } from '../quantize.ts';
import { MS_DOMAIN, ONNX_TYPE_CODE, type FloatType, type GraphBuilder } from './onnx.ts';

/** How an engine dtype computes: the activation type and whether projections are 4-bit, 8-bit
 *  columns (MatMulInteger) or 8-bit blocks (MatMulNBits). */
export interface Precision {
  act: FloatType;
  q4: boolean;
  q8: boolean;
  q8Blocks: boolean;
}

export function precisionOf(dtype: EngineDtype): Precision {
  return { act: dtype === 'f16' || dtype === 'q4f16' ? 'float16' : 'float32', q4: dtype === 'q4' || dtype === 'q4f16', q8: dtype === 'q8', q8Blocks: dtype === 'q8b' };
}

/** The same weights with f32 activations (where f16 cannot run). */
export function withF32Activations(dtype: EngineDtype): EngineDtype {
  return dtype === 'f16' ? 'f32' : dtype === 'q4f16' ? 'q4' : dtype;
}

/** How the graph declares 4-bit weights: MatMulNBits' [N, kBlocks, 16], or the [N, kBlocks·16]
 *  view GatherBlockQuantized reads too (one buffer for a tied head and embedding on WebGPU, whose
 *  MatMulNBits takes it; the CPU kernel wants the 3-D form and prepacks its own copy anyway). */
export type Q4Layout = '3d' | '2d';

/** Adds the projection of `x` [..., m.inF] by `m` (`x2d`: x is [n, m.inF]); returns the [..., m.outF] value. */
export function linear(g: GraphBuilder, x: string, name: string, m: Matrix, output?: string, x2d = false): string {
  let xq: QuantizedRows | undefined; // shared by every 8-bit part
  const ys = m.parts.map((part, i) => {
    const pname = m.parts.length > 1 ? `${name}.part${i}` : name;
    const out = m.parts.length === 1 ? output : undefined;
    if (part.kind === 'q8') return matMulQ8(g, (xq ??= quantizeRows(g, x, name)), q8Inits(g, pname, part, m.inF), out);
    if (part.kind === 'q8-blocks') return matMulQ8Blocks(g, x, q8BlockInits(g, pname, part, m.inF), m.inF, part.rows, out);
    if (part.kind === 'q4') return matMulQ4(g, x, q4Inits(g, pname, part, m.inF, m.format.act, '3d'), m.inF, part.rows, out);
    if (m.format.kind === 'dense' && m.format.layout === 'out-in') {
      const w = g.weight(`${pname}.weight`, m.format.act, [part.rows, m.inF], part.data);
      if (x2d) return g.node('Gemm', [x, w], { outputs: out ? [out] : 1, attrs: { transB: 1 } })[0]; // [n, rows]
      return g.node('FusedMatMul', [x, w], { outputs: out ? [out] : 1, attrs: { transB: 1 }, domain: MS_DOMAIN })[0]; // [..., rows]
    }
    const w = g.weight(`${pname}.weight`, m.format.act, [m.inF, part.rows], part.data);
    return g.node('MatMul', [x, w], { outputs: out ? [out] : 1 })[0]; // [..., rows]
  });
  return ys.length === 1 ? ys[0] : concatParts(g, ys, output);
}

/** Inputs per Concat node: a WebGPU kernel binds one storage buffer per input, and adapters allow
 *  as few as 8 per shader stage (past that, outputs silently read as zeros: docs/ARCHITECTURE.md "Engine"). */
const CONCAT_FAN_IN = 4;

/** Concatenates part outputs along the last axis, as a tree of Concats of at most CONCAT_FAN_IN inputs. */
export function concatParts(g: GraphBuilder, parts: string[], output?: string): string {
  let level = parts;
  while (level.length > CONCAT_FAN_IN) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += CONCAT_FAN_IN) {
      const group = level.slice(i, i + CONCAT_FAN_IN);
      next.push(group.length === 1 ? group[0] : g.op('Concat', group, { axis: -1 }));
    }
    level = next;
  }
  return g.node('Concat', level, { outputs: output ? [output] : 1, attrs: { axis: -1 } })[0];
}

export interface Q4Inits {
  /** MatMulNBits' weight input. */
  weight: string;
  /** The [rows, kBlocks·16] form GatherBlockQuantized reads (with `gather`). */
  gatherView?: string;
  scales: string; // [rows, kBlocks]
  zeroPoints: string; // [rows, ceil(kBlocks / 2)]
}

/** Initializers of one 4-bit part; `gather` adds the form GatherBlockQuantized reads. */
export function q4Inits(g: GraphBuilder, name: string, part: Q4Part, inF: number, act: FloatType, layout: Q4Layout, gather = false): Q4Inits {
  const kBlocks = Math.ceil(inF / Q4_BLOCK);
  const dims3 = [part.rows, kBlocks, Q4_BLOCK / 2];
  const dims2 = [part.rows, kBlocks * (Q4_BLOCK / 2)];
  let weight: string;
  let gatherView: string | undefined;
  if (layout === '2d') weight = gatherView = g.weight(`${name}.q4`, 'uint8', dims2, part.packed);
  else {
    weight = g.weight(`${name}.q4`, 'uint8', dims3, part.packed);
    if (gather) gatherView = g.alias(`${name}.q4_2d`, 'uint8', dims2, weight);
  }
  return {
    weight,
    gatherView,
    scales: g.weight(`${name}.scales`, act, [part.rows, kBlocks], part.scales),
    zeroPoints: g.weight(`${name}.zp`, 'uint8', [part.rows, Math.ceil(kBlocks / 2)], part.zeroPoints),
  };
}

export function matMulQ4(g: GraphBuilder, x: string, w: Q4Inits, inF: number, rows: number, output?: string): string {
  return g.node('MatMulNBits', [x, w.weight, w.scales, w.zeroPoints], {
    outputs: output ? [output] : 1,
    attrs: { K: inF, N: rows, bits: 4, block_size: Q4_BLOCK },
    domain: MS_DOMAIN,
  })[0]; // [..., rows]
}

/** x [..., K] f32 as signed 8-bit rows: q = round(x / s) with s = max|row| / 127 per row.
 *  Each row's scale depends on that row alone, and the integer product is exact, so a row computes
 *  the same bits whatever else is in the batch (records must not depend on batching). Signed, not
 *  unsigned with an offset of 128: the same integers, but native x86 AVX2 kernels multiply u8 × s8
 *  through a saturating 16-bit pair sum (255 · 127 · 2 > 2^15), where s8 × s8 widens first. */
interface QuantizedRows {
  q: string; // [..., K] i8
  scale: string; // [..., 1] f32
  zeroPoint: string; // [] i8: 0
}

function quantizeRows(g: GraphBuilder, x: string, name: string): QuantizedRows {
  const f = (suffix: string, v: number) => g.init(`${name}.${suffix}`, 'float32', [], Float32Array.of(v));
  const amax = g.op('ReduceMax', [g.op('Abs', [x])], { axes: [-1], keepdims: 1 }); // [..., 1]
  // an all-zero row gets the smallest normal scale: its q is 0 everywhere
  const scale = g.op('Max', [g.op('Mul', [amax, f('inv_q8_max', 1 / Q8_MAX)]), f('min_scale', 2 ** -126)]); // [..., 1]
  const rounded = g.op('Round', [g.op('Div', [x, scale])]); // [..., K] in [-127, 127]
  const q = g.op('Cast', [rounded], { to: 3 /* INT8 */ });
  return { q, scale, zeroPoint: g.init(`${name}.x_zero_point`, 'int8', [], Int8Array.of(0)) };
}

interface Q8Inits {
  values: string; // [K, rows] i8
  scales: string; // [rows] f32
}

function q8Inits(g: GraphBuilder, name: string, part: Q8Part, inF: number): Q8Inits {
  return {
    values: g.weight(`${name}.q8`, 'int8', [inF, part.rows], part.values),
    scales: g.weight(`${name}.q8_scales`, 'float32', [part.rows], part.scales),
  };
}

/** x_q · W_q, exact in int32, then times the row's and the output feature's scales: [..., rows] f32. */
function matMulQ8(g: GraphBuilder, x: QuantizedRows, w: Q8Inits, output?: string): string {
  const acc = g.op('MatMulInteger', [x.q, w.values, x.zeroPoint]); // [..., rows] i32
  const rowScaled = g.op('Mul', [g.op('Cast', [acc], { to: ONNX_TYPE_CODE.float32 }), x.scale]);
  return g.node('Mul', [rowScaled, w.scales], { outputs: output ? [output] : 1 })[0];
}

/** MatMulNBits' 8-bit weight and scales for one part (no zero-point input: the default 128). */
function q8BlockInits(g: GraphBuilder, name: string, part: Q8BlocksPart, inF: number): { weight: string; scales: string } {
  const kBlocks = Math.ceil(inF / Q4_BLOCK);
  return {
    weight: g.weight(`${name}.q8b`, 'uint8', [part.rows, kBlocks, Q4_BLOCK], part.packed),
    scales: g.weight(`${name}.q8b_scales`, 'float32', [part.rows, kBlocks], part.scales),
  };
}

/** x · Wᵀ over 8-bit blocks at accuracy_level 4: the kernel quantizes x to int8 block by block
 *  within each row (a row's result does not depend on the batch) and multiplies in int8. */
function matMulQ8Blocks(g: GraphBuilder, x: string, w: { weight: string; scales: string }, inF: number, rows: number, output?: string): string {
  return g.node('MatMulNBits', [x, w.weight, w.scales], {
    outputs: output ? [output] : 1,
    attrs: { K: inF, N: rows, bits: 8, block_size: Q4_BLOCK, accuracy_level: 4 },
    domain: MS_DOMAIN,
  })[0]; // [..., rows]
}

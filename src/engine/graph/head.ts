// The ONNX graph of the model's two ends: token embedding, and final norm + LM head. One graph so a
// tied model holds its embedding matrix once: Gather (or GatherBlockQuantized for 4-bit weights)
// reads the very initializer the head's Gemm (or MatMulNBits) reads. Inputs and outputs are
// graph/contract.ts GRAPH.head's: a run embeds `m` ids and/or projects `n` hidden states (either
// count may be 0), computing logits in the precision's activation type and casting them back, and
// fetches only what it needs: greedy decoding takes (id, log-prob) per row, not V logits.
// The head weight stays in Hugging Face layout [V, H] ('out-in'), in vocabulary parts when it
// exceeds the largest buffer; the embedding of an id is looked up in the part that holds it.
import type { ModelConfig } from '../types.ts';
import type { FloatArray, Matrix } from '../weights.ts';
import { GraphBuilder, MS_DOMAIN, ONNX_TYPE_CODE, type BuiltGraph, type FloatType } from './onnx.ts';
import { concatParts, linear, matMulQ4, q4Inits, type Precision, type Q4Layout } from './linear.ts';
import { Q4_BLOCK } from '../quantize.ts';
import { GRAPH } from './contract.ts';

const { in: IN, out: OUT } = GRAPH.head;

export interface HeadWeights {
  norm: FloatArray; // [H]
  head: Matrix; // [V, H]: 'out-in' dense or q4
  /** The embedding when it is not read from `head` (untied checkpoints), 'out-in' dense. */
  embed?: Matrix; // [V, H]
}

export interface HeadGraphOptions {
  precision: Precision;
  /** How 4-bit head parts are declared (see linear.ts Q4Layout): '2d' on WebGPU, '3d' on WASM.
   *  It also picks how a tied 4-bit embedding is looked up: com.microsoft GatherBlockQuantized on
   *  WebGPU; standard ops on WASM, whose browser build (the WebGPU bundle's) lacks that kernel. */
  q4Layout: Q4Layout;
}

export function buildHeadGraph(config: ModelConfig, w: HeadWeights, opts: HeadGraphOptions): BuiltGraph {
  const { hiddenSize: H, vocabSize: V } = config;
  const act = opts.precision.act;
  const f32 = act === 'float32';
  const g = new GraphBuilder('head');
  const ids = g.input(IN.ids, 'int32', ['m']);
  const hiddenIn = g.input(IN.hidden, 'float32', ['n', H]);

  // LM head
  const hidden = f32 ? hiddenIn : g.op('Cast', [hiddenIn], { to: ONNX_TYPE_CODE[act] }); // [n, H] act
  const normW = g.init('model.norm.weight', act, [H], w.norm);
  const x = g.node('SimplifiedLayerNormalization', [hidden, normW], { outputs: f32 ? [OUT.lnFinal] : 1, attrs: { axis: -1, epsilon: { float: config.rmsNormEps } } })[0]; // [n, H]
  if (!f32) g.node('Cast', [x], { outputs: [OUT.lnFinal], attrs: { to: ONNX_TYPE_CODE.float32 } });
  const logitsAct = f32 ? OUT.logits : 'logits_act';
  const head = w.head;
  let gathers: Array<(idx: string) => string>; // per part: [k] ids within the part -> [k, H] act
  if (head.format.kind === 'q4') {
    const q4 = head.parts.map((part, i) => {
      if (part.kind !== 'q4') throw new Error('mixed head parts');
      return { part, inits: q4Inits(g, head.parts.length > 1 ? `lm_head.part${i}` : 'lm_head', part, H, act, opts.q4Layout, !w.embed) };
    });
    const ys = q4.map(({ part, inits }) => matMulQ4(g, x, inits, H, part.rows, q4.length === 1 ? logitsAct : undefined));
    if (ys.length > 1) concatParts(g, ys, logitsAct);
    const gatherQ4 = opts.q4Layout === '2d' ? gatherQ4Contrib : gatherQ4Standard;
    gathers = q4.map(({ inits }) => (idx) => gatherQ4(g, inits.gatherView!, idx, inits.scales, inits.zeroPoints, H, act));
  } else {
    linear(g, x, 'lm_head', head, logitsAct, true); // [n, V]
    gathers = head.parts.map((_part, i) => (idx) => g.op('Gather', [head.parts.length > 1 ? `lm_head.part${i}.weight` : 'lm_head.weight', idx], { axis: 0 }));
  }
  if (!f32) g.node('Cast', [logitsAct], { outputs: [OUT.logits], attrs: { to: ONNX_TYPE_CODE.float32 } });

  // embedding: from the head's initializers, or from the untied embedding matrix
  if (w.embed) {
    const e = w.embed;
    gathers = e.parts.map((part, i) => {
      if (part.kind !== 'dense') throw new Error('the untied embedding is dense');
      const name = g.init(e.parts.length > 1 ? `embed_tokens.part${i}` : 'embed_tokens', act, [part.rows, H], part.data);
      return (idx: string) => g.op('Gather', [name, idx], { axis: 0 });
    });
  }
  const rowsOf = (w.embed ?? head).parts.map((p) => p.rows);
  const zero = gathers.length > 1 ? g.floats('zero', act, [], Float32Array.of(0)) : '';
  const embed = (idx: string, output: string) => {
    const rows = gathers.length === 1 ? gathers[0](idx) : gatherParts(g, idx, gathers, rowsOf, zero, output); // [k, H] act
    g.node(f32 ? 'Identity' : 'Cast', [rows], { outputs: [output], attrs: f32 ? {} : { to: ONNX_TYPE_CODE.float32 } });
  };
  embed(ids, OUT.embedded);

  // greedy choice in the graph: the argmax (lowest id on ties, as sampling.ts) and its log-prob
  // log softmax = max − logsumexp; Σ (logits − logits) is 0, or NaN when any logit is NaN or ±Inf.
  // The reductions run over the logits plus one zero row, dropped after: a run that only embeds
  // (n = 0) would hand WebGPU's reduce kernels an empty input, which they refuse. (ArgMax takes an
  // empty input, and slicing its int64 output would move it to the CPU.)
  const i64 = (name: string, v: number[]) => g.init(name, 'int64', [v.length], BigInt64Array.from(v.map(BigInt)));
  g.node('ArgMax', [OUT.logits], { outputs: [OUT.nextIds], attrs: { axis: 1, keepdims: 0, select_last_index: 0 } }); // [n] i64
  const zeroRow = g.op('ConstantOfShape', [i64('one_by_vocab', [1, V])]); // [1, V] f32 zeros
  const padded = g.op('Concat', [OUT.logits, zeroRow], { axis: 0 }); // [n + 1, V]
  const max = g.op('ReduceMax', [padded], { axes: [1], keepdims: 0 }); // [n + 1]
  const lse = g.op('ReduceLogSumExp', [padded], { axes: [1], keepdims: 0 }); // [n + 1]
  const nonFinite = g.op('ReduceSum', [g.op('Sub', [padded, padded]), i64('axis1', [1])], { keepdims: 0 }); // [n + 1]
  const logprobs = g.op('Add', [g.op('Sub', [max, lse]), nonFinite]); // [n + 1]
  g.node('Slice', [logprobs, i64('first_n.start', [0]), i64('first_n.end', [-1]), i64('first_n.axis', [0])], { outputs: [OUT.nextLogprobs] }); // [n]
  embed(OUT.nextIds, OUT.nextEmbedded); // [n, H]: the next step's input when every row decodes greedily

  g.output(OUT.embedded, 'float32', ['m', H]);
  g.output(OUT.logits, 'float32', ['n', V]);
  g.output(OUT.nextIds, 'int64', ['n']);
  g.output(OUT.nextLogprobs, 'float32', ['n']);
  g.output(OUT.nextEmbedded, 'float32', ['n', H]);
  g.output(OUT.lnFinal, 'float32', ['n', H]);
  return g.build();
}

/** Dequantized rows of a 4-bit [rows, kBlocks·16] weight by GatherBlockQuantized: [k, H]. */
function gatherQ4Contrib(g: GraphBuilder, data: string, idx: string, scales: string, zeroPoints: string, H: number): string {
  const rows = g.node('GatherBlockQuantized', [data, idx, scales, zeroPoints], {
    attrs: { gather_axis: 0, quantize_axis: 1, block_size: Q4_BLOCK, bits: 4 },
    domain: MS_DOMAIN,
  })[0]; // [k, kBlocks·32]
  return H % Q4_BLOCK === 0 ? rows : sliceColumns(g, rows, H, `${data}.${idx}.rows`);
}

/** The same rows with standard ops: gather the packed bytes, split the nibbles (element 2j in the
 *  low nibble of byte j, see quantize.ts), then (q − zero point) · scale per block of 32. */
function gatherQ4Standard(g: GraphBuilder, data: string, idx: string, scales: string, zeroPoints: string, H: number, act: FloatType): string {
  const kBlocks = Math.ceil(H / Q4_BLOCK);
  const at = `${data}.${idx}`; // this lookup's constants
  const i64 = (name: string, v: number[]) => g.init(`${at}.${name}`, 'int64', [v.length], BigInt64Array.from(v.map(BigInt)));
  const four = g.init(`${at}.four`, 'uint8', [], Uint8Array.of(4));
  const last = i64('last_axis', [-1]);
  /** [k, n] bytes -> [k, n, 2] nibbles, low first */
  const nibbles = (bytes: string) => {
    const hi = g.op('BitShift', [bytes, four], { direction: 'RIGHT' });
    const lo = g.op('Sub', [bytes, g.op('BitShift', [hi, four], { direction: 'LEFT' })]);
    return g.op('Concat', [g.op('Unsqueeze', [lo, last]), g.op('Unsqueeze', [hi, last])], { axis: -1 });
  };
  const q = g.op('Reshape', [nibbles(g.op('Gather', [data, idx], { axis: 0 })), i64('blocks_shape', [0, kBlocks, Q4_BLOCK])]); // [k, kBlocks, 32] u8
  const zpPairs = g.op('Reshape', [nibbles(g.op('Gather', [zeroPoints, idx], { axis: 0 })), i64('zp_shape', [0, 2 * Math.ceil(kBlocks / 2)])]); // [k, 2·ceil(kBlocks/2)] u8
  const zp = g.op('Unsqueeze', [sliceColumns(g, zpPairs, kBlocks, `${at}.zp`), last]); // [k, kBlocks, 1]
  const scale = g.op('Unsqueeze', [g.op('Gather', [scales, idx], { axis: 0 }), last]); // [k, kBlocks, 1]
  const to = ONNX_TYPE_CODE[act];
  const w = g.op('Mul', [g.op('Sub', [g.op('Cast', [q], { to }), g.op('Cast', [zp], { to })]), scale]); // [k, kBlocks, 32]
  return sliceColumns(g, g.op('Reshape', [w, i64('rows_shape', [0, kBlocks * Q4_BLOCK])]), H, `${at}.rows`); // [k, H]
}

/** Columns [0, n) of a [k, m] value. */
function sliceColumns(g: GraphBuilder, x: string, n: number, name: string): string {
  const i64 = (suffix: string, v: number) => g.init(`${name}.${suffix}`, 'int64', [1], BigInt64Array.of(BigInt(v)));
  return g.op('Slice', [x, i64('slice_start', 0), i64('slice_end', n), i64('slice_axis', 1)]);
}

/** Rows `ids` of a matrix stored in parts of `rows[i]` rows: each id read from the part holding it.
 *  The index arithmetic is in f32 (ids < 2^24 are exact): WebGPU kernels take no 64-bit integers,
 *  so int64 arithmetic would run on the CPU (as the Cast of ArgMax's int64 next_ids still does). */
function gatherParts(g: GraphBuilder, ids: string, gathers: Array<(idx: string) => string>, rows: number[], zero: string, name: string): string {
  const f32 = (suffix: string, v: number) => g.init(`${name}.${suffix}`, 'float32', [], Float32Array.of(v));
  const idsF = g.op('Cast', [ids], { to: ONNX_TYPE_CODE.float32 }); // [m]
  const axis = g.init(`${name}.axis`, 'int64', [1], BigInt64Array.of(1n));
  let sum = '';
  let offset = 0;
  gathers.forEach((gather, i) => {
    const lo = f32(`part${i}.lo`, offset);
    const hi = f32(`part${i}.hi`, offset + rows[i] - 1);
    const local = g.op('Min', [g.op('Max', [g.op('Sub', [idsF, lo]), f32(`part${i}.zero`, 0)]), f32(`part${i}.last`, rows[i] - 1)]); // [m]
    const index = g.op('Cast', [local], { to: 6 /* INT32 */ });
    const inPart = g.op('And', [g.op('GreaterOrEqual', [idsF, lo]), g.op('LessOrEqual', [idsF, hi])]); // [m]
    const picked = g.op('Where', [g.op('Unsqueeze', [inPart, axis]), gather(index), zero]); // [m, H]
    sum = sum ? g.op('Add', [sum, picked]) : picked;
    offset += rows[i];
  });
  return sum;
}

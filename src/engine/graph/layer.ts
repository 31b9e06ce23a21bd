// The ONNX graph of a span: one or more decoder layers in sequence ("slots"), the hidden state of
// one slot feeding the next. Each slot has its own KV cache (the cache of the route position it
// runs) and its own silence flag; lengths and positions are shared. Inputs and outputs are
// graph/contract.ts GRAPH.span's.
//  - On WASM every model layer gets its own one-slot graph with its weights as initializers, so
//    one copy of the weights however often a route runs the layer (a graph input would be copied
//    into the WASM heap on every run).
//  - On WebGPU graphs of 1, 2, 4, ... slots take the weights as inputs too (slot k's named with its
//    prefix, as `layerWeightInputs` gives them): a run feeds each slot the GPU-resident weight
//    tensors of the layer that route position runs, so a route of L layers takes about log-many
//    runs instead of L (runtime/model.ts, runtime/scheduler.ts).
// With f16 activations the graph casts the hidden state to f16 on entry and back on exit (exact,
// so the residual stream is f16 as in a Hugging Face f16 model) and computes everything in f16;
// the KV cache stays f16 (half the memory).
import type { ModelConfig } from '../types.ts';
import type { FloatArray, Matrix } from '../weights.ts';
import { GraphBuilder, MS_DOMAIN, ONNX_TYPE_CODE, type BuiltGraph, type FloatType, type WeightInput } from './onnx.ts';
import { linear, type Precision } from './linear.ts';
import { rotaryCaches } from './rope.ts';
import { GRAPH, type SlotPoint, type SpanSlot } from './contract.ts';

const SPAN = GRAPH.span;
/** The rotary caches' initializers. */
const COS = 'cos_cache';
const SIN = 'sin_cache';

/** One layer's weights in engine formats (weights.ts); q/k/v and gate/up fused row-wise. */
export interface LayerWeights {
  inputNorm: FloatArray; // [H]
  qkv: Matrix; // [qDim + 2 kvDim, H]
  qkvBias?: FloatArray; // [qDim + 2 kvDim] (qwen2)
  qNorm?: FloatArray; // [headDim] (qwen3)
  kNorm?: FloatArray; // [headDim] (qwen3)
  o: Matrix; // [H, qDim]
  postNorm: FloatArray; // [H]
  gateUp: Matrix; // [2I, H]
  down: Matrix; // [H, I]
}

export interface LayerGraphOptions {
  precision: Precision;
  /** KV-cache capacity bound and rotary cache length. */
  maxPositions: number;
}

/** Model layer `layer` alone, its weights as initializers. */
export function buildLayerGraph(config: ModelConfig, layer: number, w: LayerWeights, opts: LayerGraphOptions): BuiltGraph {
  return buildSpan(new GraphBuilder(`layer_${layer}`), config, [w], opts);
}

/** A graph of `slots` layers whose weights are inputs, shaped like `template`'s (every layer's). */
export function buildSpanGraph(config: ModelConfig, template: LayerWeights, slots: number, opts: LayerGraphOptions): BuiltGraph {
  return buildSpan(new GraphBuilder(`span_${slots}`, 'inputs'), config, Array.from({ length: slots }, () => template), opts);
}

/** The weight inputs of one slot holding `w`, named without the slot prefix. */
export function layerWeightInputs(config: ModelConfig, w: LayerWeights, opts: LayerGraphOptions): WeightInput[] {
  const g = new GraphBuilder('weights', 'inputs');
  const slot = SPAN.slot(0);
  const { hidden, positionIds, seqlensK, totalSeqLen } = SPAN.in;
  layerBody(g, config, w, opts.precision.act, slot, { hidden, positionIds, seqlensK, totalSeqLen, cos: COS, sin: SIN });
  return g.weights().map((x) => ({ ...x, name: x.name.slice(slot.prefix.length) }));
}

function buildSpan(g: GraphBuilder, config: ModelConfig, slots: LayerWeights[], opts: LayerGraphOptions): BuiltGraph {
  const H = config.hiddenSize;
  const act = opts.precision.act;
  const hiddenIn = g.input(SPAN.in.hidden, 'float32', ['batch', 'seq', H]);
  const seqlensK = g.input(SPAN.in.seqlensK, 'int32', ['batch']);
  const totalSeqLen = g.input(SPAN.in.totalSeqLen, 'int32', [1]);
  const positionIds = g.input(SPAN.in.positionIds, 'int64', ['batch', 'seq']);
  const { cos, sin } = rotaryCaches(config, opts.maxPositions);
  const cosC = g.floats(COS, act, [opts.maxPositions, config.headDim / 2], cos);
  const sinC = g.floats(SIN, act, [opts.maxPositions, config.headDim / 2], sin);
  let hidden = act === 'float32' ? hiddenIn : g.op('Cast', [hiddenIn], { to: ONNX_TYPE_CODE[act] }); // [batch, seq, H] act
  slots.forEach((w, k) => {
    hidden = layerBody(g, config, w, act, SPAN.slot(k), { hidden, positionIds, seqlensK, totalSeqLen, cos: cosC, sin: sinC });
  });
  const out = SPAN.out.hidden;
  if (act === 'float32') g.node('Identity', [hidden], { outputs: [out] });
  else g.node('Cast', [hidden], { outputs: [out], attrs: { to: ONNX_TYPE_CODE.float32 } });
  g.output(out, 'float32', ['batch', 'seq', H]);
  return g.build();
}

/** Values a slot reads that the span shares. */
interface Shared {
  hidden: string; // [batch, seq, H] act: the slot's input
  positionIds: string; // [batch, seq] i64
  seqlensK: string; // [batch] i32
  totalSeqLen: string; // [1] i32
  cos: string; // [maxPositions, headDim / 2] act
  sin: string; // [maxPositions, headDim / 2] act
}

/** One decoder layer over `v.hidden` (a route position of reference.ts: attention, then the MLP
 *  unless silenced); declares the slot's KV and silence inputs, KV outputs and read-out point
 *  outputs. Returns the layer's output [batch, seq, H] act. */
function layerBody(g: GraphBuilder, config: ModelConfig, w: LayerWeights, act: FloatType, slot: SpanSlot, v: Shared): string {
  const { hiddenSize: H, numHeads: nH, numKvHeads: nKv, headDim: hd, intermediateSize: I } = config;
  const qDim = nH * hd;
  const kvDim = nKv * hd;
  const p = slot.prefix;
  const eps = { float: config.rmsNormEps };
  const f32 = act === 'float32';
  const pastKey = g.input(slot.in.pastKey, act, ['batch', nKv, 'cap', hd]);
  const pastValue = g.input(slot.in.pastValue, act, ['batch', nKv, 'cap', hd]);
  const mlpKeep = g.input(slot.in.mlpKeep, 'bool', ['batch', 1, 1]);

  // attention block
  const ln1 = g.weight(`${p}input_layernorm.weight`, act, [H], w.inputNorm);
  const x = g.op('SimplifiedLayerNormalization', [v.hidden, ln1], { axis: -1, epsilon: eps }); // [batch, seq, H]
  let qkv = linear(g, x, `${p}qkv_proj`, w.qkv); // [batch, seq, qDim + 2 kvDim]
  if (w.qkvBias) qkv = g.op('Add', [qkv, g.weight(`${p}qkv_proj.bias`, act, [qDim + 2 * kvDim], w.qkvBias)]);
  const split = g.init(`${p}qkv_split`, 'int64', [3], BigInt64Array.from([qDim, kvDim, kvDim].map(BigInt)));
  const [qRaw, kRaw, val] = g.node('Split', [qkv, split], { outputs: 3, attrs: { axis: -1 } }); // q [batch, seq, qDim], k/v [batch, seq, kvDim]
  let q = qRaw;
  let k = kRaw;
  if (w.qNorm && w.kNorm) {
    q = headNorm(g, q, `${p}q_norm`, w.qNorm, nH, hd, eps, act); // [batch, seq, qDim]
    k = headNorm(g, k, `${p}k_norm`, w.kNorm, nKv, hd, eps, act); // [batch, seq, kvDim]
  }
  const qr = g.op('RotaryEmbedding', [q, v.positionIds, v.cos, v.sin], { interleaved: 0, num_heads: nH }, MS_DOMAIN);
  const kr = g.op('RotaryEmbedding', [k, v.positionIds, v.cos, v.sin], { interleaved: 0, num_heads: nKv }, MS_DOMAIN);
  const [attn] = g.node('GroupQueryAttention', [qr, kr, val, pastKey, pastValue, v.seqlensK, v.totalSeqLen], {
    outputs: [`${p}attn`, slot.out.presentKey, slot.out.presentValue],
    attrs: { num_heads: nH, kv_num_heads: nKv, scale: { float: 1 / Math.sqrt(hd) }, do_rotary: 0 },
    domain: MS_DOMAIN,
  }); // attn [batch, seq, qDim]
  g.output(slot.out.presentKey, act, ['batch', nKv, 'cap', hd]);
  g.output(slot.out.presentValue, act, ['batch', nKv, 'cap', hd]);
  const named = slot.out.points;
  const o = linear(g, attn, `${p}o_proj`, w.o, f32 ? named.attn_out : undefined); // [batch, seq, H]
  const h1 = g.node('Add', [v.hidden, o], { outputs: f32 ? [named.resid_mid] : 1 })[0]; // [batch, seq, H]

  // MLP block: down(silu(gate(x)) * up(x)), replaced by 0 (not multiplied: 0·Inf = NaN) where silenced
  const ln2 = g.weight(`${p}post_attention_layernorm.weight`, act, [H], w.postNorm);
  const x2 = g.op('SimplifiedLayerNormalization', [h1, ln2], { axis: -1, epsilon: eps });
  const gu = linear(g, x2, `${p}gate_up_proj`, w.gateUp); // [batch, seq, 2I]
  const guSplit = g.init(`${p}gate_up_split`, 'int64', [2], BigInt64Array.from([BigInt(I), BigInt(I)]));
  const [gate, up] = g.node('Split', [gu, guSplit], { outputs: 2, attrs: { axis: -1 } });
  const silu = g.op('Mul', [gate, g.op('Sigmoid', [gate])]);
  const down = linear(g, g.op('Mul', [silu, up]), `${p}down_proj`, w.down); // [batch, seq, H]
  const zero = g.floats(`${p}zero`, act, [], new Float32Array([0]));
  const mlp = g.node('Where', [mlpKeep, down, zero], { outputs: f32 ? [named.mlp_out] : 1 })[0]; // [batch, seq, H]
  const out = g.node('Add', [h1, mlp], { outputs: f32 ? [named.resid_post] : 1 })[0]; // [batch, seq, H]

  // read-out points as f32 outputs: the values themselves, or with f16 activations their casts
  const values: Record<SlotPoint, string> = { attn_out: o, resid_mid: h1, mlp_out: mlp, resid_post: out };
  for (const [point, name] of Object.entries(named) as [SlotPoint, string][]) {
    if (!f32) g.node('Cast', [values[point]], { outputs: [name], attrs: { to: ONNX_TYPE_CODE.float32 } });
    g.output(name, 'float32', ['batch', 'seq', H]);
  }
  return out;
}

/** Per-head RMSNorm over headDim (qwen3 q_norm / k_norm): [batch, seq, heads·hd] → same shape. */
function headNorm(g: GraphBuilder, x: string, name: string, weight: FloatArray, heads: number, hd: number, eps: { float: number }, act: FloatType): string {
  const w = g.weight(`${name}.weight`, act, [hd], weight);
  const perHead = g.init(`${name}.shape_in`, 'int64', [4], BigInt64Array.from([0n, 0n, BigInt(heads), BigInt(hd)]));
  const flat = g.init(`${name}.shape_out`, 'int64', [3], BigInt64Array.from([0n, 0n, BigInt(heads * hd)]));
  const r = g.op('Reshape', [x, perHead]); // [batch, seq, heads, hd]
  const n = g.op('SimplifiedLayerNormalization', [r, w], { axis: -1, epsilon: eps });
  return g.op('Reshape', [n, flat]);
}

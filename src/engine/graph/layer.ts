// The ONNX graph of a span: one or more decoder layers in sequence ("slots"), the hidden state of
// one slot feeding the next. Each slot has its own KV cache (the cache of the route position it
// runs) and its own silence flag; lengths and positions are shared.
//  - On WASM every model layer gets its own one-slot graph with its weights as initializers, so
//    one copy of the weights however often a route runs the layer (a graph input would be copied
//    into the WASM heap on every run).
//  - On WebGPU graphs of 1, 2, 4, ... slots take the weights as inputs: a run feeds each slot the
//    GPU-resident weight tensors of the layer that route position runs, so a route of L layers
//    takes about log-many runs instead of L (runtime/model.ts, runtime/scheduler.ts).
//
// inputs   hidden          [batch, seq, hidden]           f32
//          s{k}.past_key   [batch, kvHeads, cap, headDim]  act  fixed capacity `cap`, slot k
//          s{k}.past_value [batch, kvHeads, cap, headDim]  act
//          s{k}.mlp_keep   [batch, 1, 1]                   bool false where slot k's MLP is silenced
//          seqlens_k       [batch]                         i32  total length - 1 per row
//          total_seq_len   [1]                             i32  max total length in the batch
//          position_ids    [batch, seq]                    i64  token positions
//          s{k}.<weight>   (WeightsAs 'inputs' only: the names and shapes `layerWeightInputs` gives, prefixed)
// outputs  hidden_out (as hidden), s{k}.present_key, s{k}.present_value (as the past inputs)
// `act` is the precision's activation type. With f16 the graph casts the hidden state to f16 on
// entry and back on exit (exact, so the residual stream is f16 as in a Hugging Face f16 model)
// and computes everything in f16; the KV cache stays f16 (half the memory).
import type { ModelConfig } from '../types.ts';
import type { FloatArray, Matrix } from '../weights.ts';
import { GraphBuilder, MS_DOMAIN, ONNX_TYPE_CODE, type BuiltGraph, type FloatType, type WeightInput } from './onnx.ts';
import { linear, type Precision } from './linear.ts';
import { rotaryCaches } from './rope.ts';

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

/** The name prefix of slot k's inputs, outputs and weights. */
export function slotPrefix(k: number): string {
  return `s${k}.`;
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
  layerBody(g, config, w, opts.precision.act, { prefix: '', hidden: 'hidden', positionIds: 'position_ids', seqlensK: 'seqlens_k', totalLen: 'total_seq_len', cos: 'cos', sin: 'sin' });
  return g.weights();
}

function buildSpan(g: GraphBuilder, config: ModelConfig, slots: LayerWeights[], opts: LayerGraphOptions): BuiltGraph {
  const H = config.hiddenSize;
  const act = opts.precision.act;
  const hiddenIn = g.input('hidden', 'float32', ['batch', 'seq', H]);
  const seqlensK = g.input('seqlens_k', 'int32', ['batch']);
  const totalLen = g.input('total_seq_len', 'int32', [1]);
  const positionIds = g.input('position_ids', 'int64', ['batch', 'seq']);
  const { cos, sin } = rotaryCaches(config, opts.maxPositions);
  const cosC = g.floats('cos_cache', act, [opts.maxPositions, config.headDim / 2], cos);
  const sinC = g.floats('sin_cache', act, [opts.maxPositions, config.headDim / 2], sin);
  let hidden = act === 'float32' ? hiddenIn : g.op('Cast', [hiddenIn], { to: ONNX_TYPE_CODE[act] }); // [batch, seq, H] act
  slots.forEach((w, k) => {
    hidden = layerBody(g, config, w, act, { prefix: slotPrefix(k), hidden, positionIds, seqlensK, totalLen, cos: cosC, sin: sinC });
  });
  if (act === 'float32') g.node('Identity', [hidden], { outputs: ['hidden_out'] });
  else g.node('Cast', [hidden], { outputs: ['hidden_out'], attrs: { to: ONNX_TYPE_CODE.float32 } });
  g.output('hidden_out', 'float32', ['batch', 'seq', H]);
  return g.build();
}

interface SlotValues {
  prefix: string;
  hidden: string; // [batch, seq, H] act
  positionIds: string;
  seqlensK: string;
  totalLen: string;
  cos: string;
  sin: string;
}

/** One decoder layer over `v.hidden`; declares the slot's KV and silence inputs and KV outputs.
 *  Returns the layer's output [batch, seq, H] act. */
function layerBody(g: GraphBuilder, config: ModelConfig, w: LayerWeights, act: FloatType, v: SlotValues): string {
  const { hiddenSize: H, numHeads: nH, numKvHeads: nKv, headDim: hd, intermediateSize: I } = config;
  const qDim = nH * hd;
  const kvDim = nKv * hd;
  const p = v.prefix;
  const eps = { float: config.rmsNormEps };
  const pastKey = g.input(`${p}past_key`, act, ['batch', nKv, 'cap', hd]);
  const pastValue = g.input(`${p}past_value`, act, ['batch', nKv, 'cap', hd]);
  const mlpKeep = g.input(`${p}mlp_keep`, 'bool', ['batch', 1, 1]);

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
  const [attn] = g.node('GroupQueryAttention', [qr, kr, val, pastKey, pastValue, v.seqlensK, v.totalLen], {
    outputs: [`${p}attn`, `${p}present_key`, `${p}present_value`],
    attrs: { num_heads: nH, kv_num_heads: nKv, scale: { float: 1 / Math.sqrt(hd) }, do_rotary: 0 },
    domain: MS_DOMAIN,
  }); // attn [batch, seq, qDim]
  g.output(`${p}present_key`, act, ['batch', nKv, 'cap', hd]);
  g.output(`${p}present_value`, act, ['batch', nKv, 'cap', hd]);
  const o = linear(g, attn, `${p}o_proj`, w.o); // [batch, seq, H]
  const h1 = g.op('Add', [v.hidden, o]);

  // MLP block: down(silu(gate(x)) * up(x)), replaced by 0 (not multiplied: 0·Inf = NaN) where silenced
  const ln2 = g.weight(`${p}post_attention_layernorm.weight`, act, [H], w.postNorm);
  const x2 = g.op('SimplifiedLayerNormalization', [h1, ln2], { axis: -1, epsilon: eps });
  const gu = linear(g, x2, `${p}gate_up_proj`, w.gateUp); // [batch, seq, 2I]
  const guSplit = g.init(`${p}gate_up_split`, 'int64', [2], BigInt64Array.from([BigInt(I), BigInt(I)]));
  const [gate, up] = g.node('Split', [gu, guSplit], { outputs: 2, attrs: { axis: -1 } });
  const silu = g.op('Mul', [gate, g.op('Sigmoid', [gate])]);
  const down = linear(g, g.op('Mul', [silu, up]), `${p}down_proj`, w.down); // [batch, seq, H]
  const zero = g.floats(`${p}zero`, act, [], new Float32Array([0]));
  return g.op('Add', [h1, g.op('Where', [mlpKeep, down, zero])]);
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

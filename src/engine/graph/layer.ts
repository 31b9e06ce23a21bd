// The ONNX graph of one decoder layer (one session per model layer; every route position that
// runs this layer feeds its own KV cache through past_key/past_value).
//
// inputs   hidden        [batch, seq, hidden]           f32
//          past_key      [batch, kvHeads, cap, headDim]  act  fixed capacity `cap`
//          past_value    [batch, kvHeads, cap, headDim]  act
//          seqlens_k     [batch]                         i32  total length - 1 per row
//          total_seq_len [1]                             i32  max total length in the batch
//          position_ids  [batch, seq]                    i64  token positions
//          mlp_keep      [batch, 1, 1]                   bool false where this layer's MLP is silenced
// outputs  hidden_out, present_key, present_value (same shapes and types as hidden, past_key, past_value)
// `act` is the precision's activation type. With f16 the layer casts the hidden state to f16 on
// entry and back on exit (exact, so the residual stream is f16 as in a Hugging Face f16 model)
// and computes everything in f16; the KV cache stays f16 (half the memory).
import type { ModelConfig } from '../types.ts';
import type { FloatArray, Matrix } from '../weights.ts';
import { GraphBuilder, MS_DOMAIN, ONNX_TYPE_CODE, type BuiltGraph, type FloatType } from './onnx.ts';
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

export function buildLayerGraph(config: ModelConfig, layer: number, w: LayerWeights, opts: LayerGraphOptions): BuiltGraph {
  const { hiddenSize: H, numHeads: nH, numKvHeads: nKv, headDim: hd, intermediateSize: I } = config;
  const qDim = nH * hd;
  const kvDim = nKv * hd;
  const g = new GraphBuilder(`layer_${layer}`);
  const eps = { float: config.rmsNormEps };
  const act = opts.precision.act;

  const hiddenIn = g.input('hidden', 'float32', ['batch', 'seq', H]);
  const hidden = act === 'float32' ? hiddenIn : g.op('Cast', [hiddenIn], { to: ONNX_TYPE_CODE[act] }); // [batch, seq, H] act
  const pastKey = g.input('past_key', act, ['batch', nKv, 'cap', hd]);
  const pastValue = g.input('past_value', act, ['batch', nKv, 'cap', hd]);
  const seqlensK = g.input('seqlens_k', 'int32', ['batch']);
  const totalLen = g.input('total_seq_len', 'int32', [1]);
  const positionIds = g.input('position_ids', 'int64', ['batch', 'seq']);
  const mlpKeep = g.input('mlp_keep', 'bool', ['batch', 1, 1]);

  // attention block
  const ln1 = g.init('input_layernorm.weight', act, [H], w.inputNorm);
  const x = g.op('SimplifiedLayerNormalization', [hidden, ln1], { axis: -1, epsilon: eps }); // [batch, seq, H]
  let qkv = linear(g, x, 'qkv_proj', w.qkv); // [batch, seq, qDim + 2 kvDim]
  if (w.qkvBias) qkv = g.op('Add', [qkv, g.init('qkv_proj.bias', act, [qDim + 2 * kvDim], w.qkvBias)]);
  const split = g.init('qkv_split', 'int64', [3], BigInt64Array.from([qDim, kvDim, kvDim].map(BigInt)));
  const [qRaw, kRaw, v] = g.node('Split', [qkv, split], { outputs: 3, attrs: { axis: -1 } }); // q [batch, seq, qDim], k/v [batch, seq, kvDim]
  let q = qRaw;
  let k = kRaw;
  if (w.qNorm && w.kNorm) {
    q = headNorm(g, q, 'q_norm', w.qNorm, nH, hd, eps, act); // [batch, seq, qDim]
    k = headNorm(g, k, 'k_norm', w.kNorm, nKv, hd, eps, act); // [batch, seq, kvDim]
  }
  const { cos, sin } = rotaryCaches(config, opts.maxPositions);
  const cosC = g.floats('cos_cache', act, [opts.maxPositions, hd / 2], cos);
  const sinC = g.floats('sin_cache', act, [opts.maxPositions, hd / 2], sin);
  const qr = g.op('RotaryEmbedding', [q, positionIds, cosC, sinC], { interleaved: 0, num_heads: nH }, MS_DOMAIN);
  const kr = g.op('RotaryEmbedding', [k, positionIds, cosC, sinC], { interleaved: 0, num_heads: nKv }, MS_DOMAIN);
  g.node('GroupQueryAttention', [qr, kr, v, pastKey, pastValue, seqlensK, totalLen], {
    outputs: ['attn', 'present_key', 'present_value'],
    attrs: { num_heads: nH, kv_num_heads: nKv, scale: { float: 1 / Math.sqrt(hd) }, do_rotary: 0 },
    domain: MS_DOMAIN,
  }); // attn [batch, seq, qDim]
  const o = linear(g, 'attn', 'o_proj', w.o); // [batch, seq, H]
  const h1 = g.op('Add', [hidden, o]);

  // MLP block: down(silu(gate(x)) * up(x)), replaced by 0 (not multiplied: 0·Inf = NaN) where silenced
  const ln2 = g.init('post_attention_layernorm.weight', act, [H], w.postNorm);
  const x2 = g.op('SimplifiedLayerNormalization', [h1, ln2], { axis: -1, epsilon: eps });
  const gu = linear(g, x2, 'gate_up_proj', w.gateUp); // [batch, seq, 2I]
  const guSplit = g.init('gate_up_split', 'int64', [2], BigInt64Array.from([BigInt(I), BigInt(I)]));
  const [gate, up] = g.node('Split', [gu, guSplit], { outputs: 2, attrs: { axis: -1 } });
  const silu = g.op('Mul', [gate, g.op('Sigmoid', [gate])]);
  const down = linear(g, g.op('Mul', [silu, up]), 'down_proj', w.down); // [batch, seq, H]
  const zero = g.floats('zero', act, [], new Float32Array([0]));
  const mlp = g.op('Where', [mlpKeep, down, zero]);
  if (act === 'float32') g.node('Add', [h1, mlp], { outputs: ['hidden_out'] });
  else g.node('Cast', [g.op('Add', [h1, mlp])], { outputs: ['hidden_out'], attrs: { to: ONNX_TYPE_CODE.float32 } });

  g.output('hidden_out', 'float32', ['batch', 'seq', H]);
  g.output('present_key', act, ['batch', nKv, 'cap', hd]);
  g.output('present_value', act, ['batch', nKv, 'cap', hd]);
  return g.build();
}

/** Per-head RMSNorm over headDim (qwen3 q_norm / k_norm): [batch, seq, heads·hd] → same shape. */
function headNorm(g: GraphBuilder, x: string, name: string, weight: FloatArray, heads: number, hd: number, eps: { float: number }, act: FloatType): string {
  const w = g.init(`${name}.weight`, act, [hd], weight);
  const perHead = g.init(`${name}.shape_in`, 'int64', [4], BigInt64Array.from([0n, 0n, BigInt(heads), BigInt(hd)]));
  const flat = g.init(`${name}.shape_out`, 'int64', [3], BigInt64Array.from([0n, 0n, BigInt(heads * hd)]));
  const r = g.op('Reshape', [x, perHead]); // [batch, seq, heads, hd]
  const n = g.op('SimplifiedLayerNormalization', [r, w], { axis: -1, epsilon: eps });
  return g.op('Reshape', [n, flat]);
}

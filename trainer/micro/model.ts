// The micro model's forward pass in TensorFlow.js, written to be exactly Hugging Face
// `modeling_llama`: RMSNorm, rotate-half rotary embedding on q and k (positions 0..T-1),
// causal grouped-query attention scaled by 1/sqrt(head_dim), SwiGLU MLP, final norm, lm_head.
// Weights are kept under their HF names and in HF orientation ([out, in]), so export is a copy.
// A route is the list of layers run between embedding and final norm; each route position is its
// own layer instance (this forward recomputes the whole sequence, so there is no cache to share).

import * as tf from '@tensorflow/tfjs';
import { createPrng } from '../../src/util/prng';
import { inverseFrequencies } from '../../src/engine/rope';
import { tensorShapes, type MicroConfig } from './config';

export type Params = Map<string, tf.Variable>;

/** Standard normal draws from the project PRNG (Box–Muller), so initialization is seed-exact. */
function normals(n: number, std: number, seed: number, stream: number): Float32Array {
  const rng = createPrng(seed, stream);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - rng.next();
    const u2 = rng.next();
    const r = Math.sqrt(-2 * Math.log(u1)) * std;
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

/** Norm weights start at 1; projections N(0, 0.02), residual outputs (o_proj, down_proj) scaled by 1/sqrt(2L). */
export function initParams(c: MicroConfig, seed: number): Params {
  const params: Params = new Map();
  tensorShapes(c).forEach(([name, shape], stream) => {
    const size = shape.reduce((a, b) => a * b, 1);
    let values: Float32Array;
    if (name.endsWith('norm.weight')) values = new Float32Array(size).fill(1);
    else {
      const residualOut = name.endsWith('o_proj.weight') || name.endsWith('down_proj.weight');
      values = normals(size, residualOut ? 0.02 / Math.sqrt(2 * c.numLayers) : 0.02, seed, stream + 1);
    }
    params.set(name, tf.variable(tf.tensor(values, shape, 'float32'), true, name));
  });
  return params;
}

function param(params: Params, name: string): tf.Variable {
  const p = params.get(name);
  if (!p) throw new Error(`micro model: missing parameter ${name}`);
  return p;
}

/** x: [N, H], w: [H] → [N, H]. */
function rmsNorm(x: tf.Tensor2D, w: tf.Tensor, eps: number): tf.Tensor2D {
  return x.mul(x.square().mean(-1, true).add(eps).rsqrt()).mul(w);
}

/** x: [N, in], w: [out, in] (HF orientation) → [N, out] = x · wᵀ.
 *  The wasm backend's matmul is fast only without transpose flags (XNNPACK), and tfjs's own
 *  matmul gradient uses them, so the transposes are explicit here in both directions. */
const linear = tf.customGrad((...args) => {
  const [x, w, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
  save([x, w]);
  return {
    value: tf.matMul(x, tf.transpose(w)),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
      const [xs, ws] = saved as tf.Tensor2D[];
      return [tf.matMul(dy, ws), tf.matMul(tf.transpose(dy), xs)]; // dx [N, in], dw [out, in]
    },
  };
}) as (x: tf.Tensor2D, w: tf.Tensor) => tf.Tensor2D;

/** cos/sin of concat(freqs, freqs) for positions 0..T-1: two [T, headDim] tensors. */
function ropeTables(T: number, c: MicroConfig): { cos: tf.Tensor2D; sin: tf.Tensor2D } {
  const hd = c.headDim;
  const inv = inverseFrequencies(c);
  const cos = new Float32Array(T * hd);
  const sin = new Float32Array(T * hd);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < hd / 2; i++) {
      const angle = t * inv[i];
      cos[t * hd + i] = cos[t * hd + i + hd / 2] = Math.cos(angle);
      sin[t * hd + i] = sin[t * hd + i + hd / 2] = Math.sin(angle);
    }
  }
  return { cos: tf.tensor2d(cos, [T, hd]), sin: tf.tensor2d(sin, [T, hd]) };
}

/** x: [B, heads, T, hd] → x*cos + rotate_half(x)*sin, rotate_half(x) = concat(-x2, x1). */
function applyRope(x: tf.Tensor4D, cos: tf.Tensor2D, sin: tf.Tensor2D): tf.Tensor4D {
  const half = x.shape[3] / 2;
  const [x1, x2] = tf.split(x, [half, half], 3);
  const rotated = tf.concat([x2.neg(), x1], 3);
  return x.mul(cos).add(rotated.mul(sin));
}

/** [T, T] additive causal mask: 0 where key ≤ query, −1e9 above the diagonal. */
function causalMask(T: number): tf.Tensor2D {
  const m = new Float32Array(T * T);
  for (let q = 0; q < T; q++) for (let k = q + 1; k < T; k++) m[q * T + k] = -1e9;
  return tf.tensor2d(m, [T, T]);
}

function attention(x: tf.Tensor2D, B: number, T: number, layer: number, params: Params, c: MicroConfig, rope: { cos: tf.Tensor2D; sin: tf.Tensor2D }, mask: tf.Tensor2D): tf.Tensor2D {
  const p = `model.layers.${layer}.self_attn`;
  const nH = c.numHeads;
  const nKv = c.numKvHeads;
  const hd = c.headDim;
  const heads = (y: tf.Tensor2D, n: number) => y.reshape([B, T, n, hd]).transpose([0, 2, 1, 3]) as tf.Tensor4D;
  const q = applyRope(heads(linear(x, param(params, `${p}.q_proj.weight`)), nH), rope.cos, rope.sin); // [B, nH, T, hd]
  let k = applyRope(heads(linear(x, param(params, `${p}.k_proj.weight`)), nKv), rope.cos, rope.sin); // [B, nKv, T, hd]
  let v = heads(linear(x, param(params, `${p}.v_proj.weight`)), nKv); // [B, nKv, T, hd]
  if (nKv !== nH) {
    // HF repeat_kv: query head h reads kv head floor(h / (nH / nKv)).
    const g = nH / nKv;
    const repeat = (y: tf.Tensor4D) => tf.concat(new Array<tf.Tensor>(g).fill(y.reshape([B, nKv, 1, T * hd])), 2).reshape([B, nH, T, hd]) as tf.Tensor4D;
    k = repeat(k);
    v = repeat(v);
  }
  // Broadcast products instead of batched matmuls: the wasm backend's batched matmul is slow for
  // these many tiny [T, hd] blocks.
  const scores = q.expandDims(3).mul(k.expandDims(2)).sum(4).mul(1 / Math.sqrt(hd)).add(mask); // [B, nH, T, T]
  const out = tf.softmax(scores).expandDims(4).mul(v.expandDims(2)).sum(3) as tf.Tensor4D; // [B, nH, T, hd]
  const merged = out.transpose([0, 2, 1, 3]).reshape([B * T, nH * hd]) as tf.Tensor2D; // [B*T, nH*hd]
  return linear(merged, param(params, `${p}.o_proj.weight`)); // [B*T, H]
}

function mlp(x: tf.Tensor2D, layer: number, params: Params): tf.Tensor2D {
  const p = `model.layers.${layer}.mlp`;
  const gate = linear(x, param(params, `${p}.gate_proj.weight`)); // [N, I]
  const up = linear(x, param(params, `${p}.up_proj.weight`)); // [N, I]
  return linear(gate.mul(tf.sigmoid(gate)).mul(up), param(params, `${p}.down_proj.weight`)); // [N, H]
}

/** Logits [B*T, V] for ids [B, T] (row-major) run through `route`. */
export function forward(ids: tf.Tensor2D, route: readonly number[], params: Params, c: MicroConfig): tf.Tensor2D {
  const [B, T] = ids.shape;
  if (route.length === 0) throw new Error('micro model: route must be non-empty');
  for (const l of route) if (!Number.isInteger(l) || l < 0 || l >= c.numLayers) throw new Error(`micro model: route layer ${l} is outside [0, ${c.numLayers})`);
  const rope = ropeTables(T, c);
  const mask = causalMask(T);
  const embed = param(params, 'model.embed_tokens.weight');
  // One-hot matmul instead of gather: the vocabulary is tiny and its gradient is a plain matmul.
  let h = tf.matMul(tf.oneHot(ids.reshape([B * T]) as tf.Tensor1D, c.vocabSize).toFloat(), embed) as tf.Tensor2D; // [B*T, H]
  for (const l of route) {
    const p = `model.layers.${l}`;
    h = h.add(attention(rmsNorm(h, param(params, `${p}.input_layernorm.weight`), c.rmsNormEps), B, T, l, params, c, rope, mask));
    h = h.add(mlp(rmsNorm(h, param(params, `${p}.post_attention_layernorm.weight`), c.rmsNormEps), l, params));
  }
  h = rmsNorm(h, param(params, 'model.norm.weight'), c.rmsNormEps);
  const head = c.tieWordEmbeddings ? embed : param(params, 'lm_head.weight');
  return linear(h, head); // [B*T, V]
}

/** Mean cross-entropy of next-token targets [B, T] where weights [B, T] are 1. */
export function maskedLoss(logits: tf.Tensor2D, targets: tf.Tensor2D, weights: tf.Tensor2D, vocabSize: number): tf.Scalar {
  const n = targets.shape[0] * targets.shape[1];
  const logp = tf.logSoftmax(logits); // [B*T, V]
  const picked = logp.mul(tf.oneHot(targets.reshape([n]) as tf.Tensor1D, vocabSize).toFloat()).sum(1); // [B*T]
  const w = weights.reshape([n]);
  return picked.mul(w).sum().neg().div(w.sum()) as tf.Scalar;
}

// What the engine computes, in float64 and plain loops: the ids of a prompt through a route.
//
//   h = embed(ids)                                   [T, H]
//   for each route position p:                       layer route[p], its own keys and values
//     blocks.p.resid_pre = h
//     blocks.p.attn_out = attention(norm(h))         causal, grouped-query, rotate-half rotary
//     h = blocks.p.resid_mid = h + blocks.p.attn_out
//     blocks.p.mlp_out = mlp(norm(h))                0 where route[p]'s MLP is silenced
//     h = blocks.p.resid_post = h + blocks.p.mlp_out
//   ln_final = norm(h)
//   logits = lm_head(ln_final)                       [T, V]
//
// The named points (engine/points.ts) are read in that one loop, for the read-outs (readouts.ts).
// The semantics are test/fixtures/reference/README.md's, written from the Hugging Face modeling
// code (RMSNorm, rotary with llama3 scaling, SwiGLU, tied or untied head). The engine computes the
// same with ONNX graphs: graph/layer.ts layerBody is one route position, runtime/scheduler.ts
// runRoutes the loop over them, graph/head.ts the final norm and head. Where the engine keeps a KV
// cache per route position, this recomputes every position (each attends over its own keys).
// Sharing nothing with the graphs, it is the tests' oracle: checked against the reference
// checkpoints' expected.json (a float64 pass made elsewhere), it then gives float64 logits for
// checkpoints that have none, such as the trained micro model.
import { inverseFrequencies } from './rope.ts';
import { layerWeights, MODEL_WEIGHTS, type Checkpoint } from './checkpoint.ts';
import { blockPoint, pointSite } from './points.ts';
import { runReadout, type ReadoutName, type ReadoutOf, type ReadoutRowOf } from './readouts.ts';
import type { ModelConfig, PointName, PointsRow, PointValues } from './types.ts';

type Vec = Float64Array<ArrayBuffer>;
type Weights = (name: string) => Vec;

export interface Reference {
  config: ModelConfig;
  /** Logits [positions][vocab] of `ids` through `route`, MLPs of `silence` silenced. */
  logits(ids: number[], route: number[], silence: number[]): Vec[];
  /** A row's read-out points (engine/points.ts), read in the same loop. */
  points(row: PointsRow): PointValues;
  /** A read-out of a row (engine/readouts.ts), as the engine runs it: points, head, reduction. */
  readout<K extends ReadoutName>(name: K, row: ReadoutRowOf<K>): Promise<ReadoutOf<K>>;
}

/** Replaces a [rows, cols] weight by what a lossy format stores for it (e.g. 4-bit round trip). */
export type WeightTransform = (w: Float32Array, rows: number, cols: number) => Float32Array;

/**
 * `transform` applies to what the engine's q4 modes quantize: every projection, the LM head, and
 * a tied embedding (read from the 4-bit head); norms, biases and an untied embedding stay exact.
 */
export async function loadReference(ckpt: Checkpoint, transform?: WeightTransform): Promise<Reference> {
  const c = ckpt.config;
  const w = new Map<string, Vec>();
  const exact: string[] = [MODEL_WEIGHTS.norm, ...(c.tieWordEmbeddings ? [] : [MODEL_WEIGHTS.embed])];
  const matrices: string[] = [c.tieWordEmbeddings ? MODEL_WEIGHTS.embed : MODEL_WEIGHTS.lmHead];
  for (let i = 0; i < c.numLayers; i++) {
    const l = layerWeights(i);
    exact.push(l.inputNorm, l.postNorm);
    matrices.push(l.q, l.k, l.v, l.o, l.gate, l.up, l.down);
    if (c.attentionBias) exact.push(l.qBias, l.kBias, l.vBias);
    if (c.qkNorm) exact.push(l.qNorm, l.kNorm);
  }
  for (const n of exact) w.set(n, Float64Array.from(await ckpt.readF32(n)));
  for (const n of matrices) {
    const [rows, cols] = ckpt.tensorInfo(n).shape;
    const v = await ckpt.readF32(n);
    w.set(n, Float64Array.from(transform ? transform(v, rows, cols) : v));
  }
  const get: Weights = (n) => w.get(n)!;
  const invFreq = inverseFrequencies(c);
  const { hiddenSize: H, vocabSize: V, rmsNormEps: eps } = c;
  const embed = get(MODEL_WEIGHTS.embed); // [V, H]
  const head = get(c.tieWordEmbeddings ? MODEL_WEIGHTS.embed : MODEL_WEIGHTS.lmHead); // [V, H]
  const norm = get(MODEL_WEIGHTS.norm); // [H]
  /** The forward loop: the final norm's output [T][H]; `read` sees each point's vectors [T][H]. */
  const forward = (ids: number[], route: number[], silence: number[], read: (name: PointName, x: Vec[]) => void = () => {}): Vec[] => {
    let h = ids.map((id) => embed.slice(id * H, (id + 1) * H)); // [T][H]
    route.forEach((layer, p) => {
      read(blockPoint(p, 'resid_pre'), h);
      const attn = attention(c, layer, h, get, invFreq); // [T][H]
      const mid = h.map((x, t) => add(x, attn[t]));
      const mlpOut = silence.includes(layer) ? mid.map(() => new Float64Array(H)) : mid.map((x) => mlp(c, layer, x, get)); // [T][H]
      h = mid.map((x, t) => add(x, mlpOut[t]));
      read(blockPoint(p, 'attn_out'), attn);
      read(blockPoint(p, 'resid_mid'), mid);
      read(blockPoint(p, 'mlp_out'), mlpOut);
      read(blockPoint(p, 'resid_post'), h);
    });
    const normed = h.map((x) => rmsNorm(x, norm, eps)); // [T][H]
    read('ln_final', normed);
    return normed;
  };
  const points = (row: PointsRow): PointValues => {
    const wanted = new Set(row.points.filter((name) => pointSite(name, row.route.length)));
    const got: PointValues = new Map();
    forward(row.promptIds, row.route, row.silence, (name, x) => {
      if (wanted.has(name)) got.set(name, row.positions === 'all' ? x : [x[x.length - 1]]);
    });
    return new Map(row.points.map((name) => [name, got.get(name)!]));
  };
  return {
    config: c,
    logits: (ids, route, silence) => forward(ids, route, silence).map((x) => matVec(head, x, V, H)), // [T][V]
    points,
    readout: (name, row) =>
      runReadout(name, row, { config: c, points, project: (xs) => xs.map((x) => matVec(head, rmsNorm(Float64Array.from(x), norm, eps), V, H)) }),
  };
}

function add(a: Vec, b: Vec): Vec {
  return a.map((v, i) => v + b[i]);
}

/** y = W x for W [rows, cols] row-major. */
function matVec(w: Vec, x: Vec, rows: number, cols: number): Vec {
  const y = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let k = 0; k < cols; k++) s += w[r * cols + k] * x[k];
    y[r] = s;
  }
  return y;
}

function rmsNorm(x: Vec, weight: Vec, eps: number): Vec {
  let ms = 0;
  for (const v of x) ms += v * v;
  const scale = 1 / Math.sqrt(ms / x.length + eps);
  return x.map((v, i) => v * scale * weight[i]);
}

/** Rotate-half rotary of one head vector at `pos`. */
function rotate(x: Vec, pos: number, invFreq: Vec): Vec {
  const half = x.length / 2;
  const out = new Float64Array(x.length);
  for (let i = 0; i < half; i++) {
    const cos = Math.cos(pos * invFreq[i]);
    const sin = Math.sin(pos * invFreq[i]);
    out[i] = x[i] * cos - x[i + half] * sin;
    out[i + half] = x[i + half] * cos + x[i] * sin;
  }
  return out;
}

/** o(attention(norm(h))) at every position (the attention block's output): causal, each query head reading kv head
 *  ⌊head / (nH / nKv)⌋, scaled by 1/√headDim. */
function attention(c: ModelConfig, layer: number, h: Vec[], get: Weights, invFreq: Vec): Vec[] {
  const n = layerWeights(layer);
  const { hiddenSize: H, numHeads: nH, numKvHeads: nKv, headDim: d } = c;
  const T = h.length;
  const heads = (v: Vec, count: number, normName: string | null, t: number) =>
    Array.from({ length: count }, (_, i) => {
      let x = v.slice(i * d, (i + 1) * d);
      if (normName) x = rmsNorm(x, get(normName), c.rmsNormEps);
      return rotate(x, t, invFreq);
    });
  const q: Vec[][] = []; // [T][nH][d]
  const k: Vec[][] = []; // [T][nKv][d]
  const v: Vec[][] = []; // [T][nKv][d]
  for (let t = 0; t < T; t++) {
    const x = rmsNorm(h[t], get(n.inputNorm), c.rmsNormEps);
    q.push(heads(proj(get, n.q, c.attentionBias ? n.qBias : null, x, nH * d), nH, c.qkNorm ? n.qNorm : null, t));
    k.push(heads(proj(get, n.k, c.attentionBias ? n.kBias : null, x, nKv * d), nKv, c.qkNorm ? n.kNorm : null, t));
    const vt = proj(get, n.v, c.attentionBias ? n.vBias : null, x, nKv * d);
    v.push(Array.from({ length: nKv }, (_, i) => vt.slice(i * d, (i + 1) * d)));
  }
  const group = nH / nKv;
  return h.map((_, t) => {
    const attn = new Float64Array(nH * d);
    for (let head = 0; head < nH; head++) {
      const kv = Math.floor(head / group);
      const scores = Array.from({ length: t + 1 }, (_, s) => q[t][head].reduce((acc, qi, i) => acc + qi * k[s][kv][i], 0) / Math.sqrt(d));
      const max = Math.max(...scores);
      const e = scores.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let s = 0; s <= t; s++) for (let i = 0; i < d; i++) attn[head * d + i] += (e[s] / sum) * v[s][kv][i];
    }
    return proj(get, n.o, null, attn, H);
  });
}

/** down(silu(gate(norm(x))) · up(norm(x))) at one position (the MLP block's output). */
function mlp(c: ModelConfig, layer: number, x: Vec, get: Weights): Vec {
  const n = layerWeights(layer);
  const { hiddenSize: H, intermediateSize: I } = c;
  const x2 = rmsNorm(x, get(n.postNorm), c.rmsNormEps);
  const gate = proj(get, n.gate, null, x2, I);
  const up = proj(get, n.up, null, x2, I);
  const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]);
  return proj(get, n.down, null, act, H);
}

/** W x (+ bias) for weight `name` [rows, x.length]. */
function proj(get: Weights, name: string, bias: string | null, x: Vec, rows: number): Vec {
  const y = matVec(get(name), x, rows, x.length);
  if (bias) y.forEach((_, i) => (y[i] += get(bias)[i]));
  return y;
}

// Held-out evaluation of the micro model with its own tfjs forward: greedy decoding under a route,
// realized accuracy (default route) and the random-routes reachability estimate.

import * as tf from '@tensorflow/tfjs';
import { forward, type Params } from './model';
import type { MicroConfig } from './config';
import { EOS_ID } from './vocab';

export interface GreedyOutput {
  tokens: number[];
  /** Smallest gap between the top two logits over the decoding steps (a near-tie is fragile). */
  margin: number;
}

const CHUNK = 512;

/** Greedy decoding of same-length prompts under one route; stops at eos or maxNewTokens. */
function greedySameLength(prompts: number[][], route: readonly number[], params: Params, c: MicroConfig, maxNewTokens: number): GreedyOutput[] {
  const N = prompts.length;
  const seqs = prompts.map((p) => p.slice());
  const outs: GreedyOutput[] = prompts.map(() => ({ tokens: [], margin: Infinity }));
  const live = new Set(prompts.map((_, i) => i));
  for (let step = 0; step < maxNewTokens && live.size > 0; step++) {
    const rows = [...live];
    const T = seqs[rows[0]].length;
    const flat = new Int32Array(rows.length * T);
    rows.forEach((r, i) => flat.set(seqs[r], i * T));
    const last = tf.tidy(() => {
      const logits = forward(tf.tensor2d(flat, [rows.length, T], 'int32'), route, params, c); // [n*T, V]
      return logits.reshape([rows.length, T, c.vocabSize]).slice([0, T - 1, 0], [rows.length, 1, c.vocabSize]).reshape([rows.length, c.vocabSize]); // [n, V]
    });
    const values = last.dataSync();
    last.dispose();
    rows.forEach((r, i) => {
      // argmax with ties to the lowest id, and the gap to the runner-up
      let best = 0;
      let second = -Infinity;
      for (let v = 1; v < c.vocabSize; v++) {
        const x = values[i * c.vocabSize + v];
        if (x > values[i * c.vocabSize + best]) {
          second = values[i * c.vocabSize + best];
          best = v;
        } else if (x > second) second = x;
      }
      const out = outs[r];
      out.margin = Math.min(out.margin, values[i * c.vocabSize + best] - second);
      out.tokens.push(best);
      seqs[r].push(best);
      if (best === EOS_ID) live.delete(r);
    });
  }
  if (N !== outs.length) throw new Error('greedy: lost rows');
  return outs;
}

/** Greedy decoding of any prompts under one route, in chunks of equal prompt length. */
export function greedyDecode(prompts: number[][], route: readonly number[], params: Params, c: MicroConfig, maxNewTokens: number): GreedyOutput[] {
  const out: GreedyOutput[] = new Array(prompts.length);
  const byLength = new Map<number, number[]>();
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new Error(`greedy: prompt ${i} is empty`);
    byLength.set(p.length, [...(byLength.get(p.length) ?? []), i]);
  });
  for (const idx of byLength.values()) {
    for (let s = 0; s < idx.length; s += CHUNK) {
      const part = idx.slice(s, s + CHUNK);
      greedySameLength(part.map((i) => prompts[i]), route, params, c, maxNewTokens).forEach((o, j) => (out[part[j]] = o));
    }
  }
  return out;
}

/** Unbiased estimate of "some of k distinct draws from n attempts is correct" given c correct (Chen et al.). */
export function reachAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || c < 0 || c > n || k < 1 || k > n) {
    throw new Error(`reachAtK: need integers 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n} c=${c} k=${k}`);
  }
  if (n - c < k) return 1;
  // C(n-c, k) / C(n, k) = prod_{i=0}^{k-1} (n-c-i)/(n-i)
  let miss = 1;
  for (let i = 0; i < k; i++) miss *= (n - c - i) / (n - i);
  return 1 - miss;
}

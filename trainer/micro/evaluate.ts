// Held-out evaluation of the micro model with its own tfjs forward: greedy decoding under a route,
// realized accuracy (default route) and the random-routes reachability estimate.

import type { MicroConfig } from './config';
import { decodeBatched } from './decode';
import type { Params } from './model';

export interface GreedyOutput {
  tokens: number[];
  /** Smallest gap between the top two logits over the decoding steps (a near-tie is fragile). */
  margin: number;
}

/** Greedy decoding of any prompts under one route (argmax, ties to the lowest id); each row stops at
 *  eos or maxNewTokens. */
export function greedyDecode(prompts: number[][], route: readonly number[], params: Params, c: MicroConfig, maxNewTokens: number): GreedyOutput[] {
  const margins = prompts.map(() => Infinity);
  const tokens = decodeBatched(prompts, route, params, c, maxNewTokens, (logits, row) => {
    // argmax with ties to the lowest id, and the gap to the runner-up
    let best = 0;
    let second = -Infinity;
    for (let v = 1; v < logits.length; v++) {
      if (logits[v] > logits[best]) {
        second = logits[best];
        best = v;
      } else if (logits[v] > second) second = logits[v];
    }
    margins[row] = Math.min(margins[row], logits[best] - second);
    return best;
  });
  return tokens.map((t, i) => ({ tokens: t, margin: margins[i] }));
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

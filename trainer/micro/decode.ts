// The micro model's batched decoding loop under one route, shared by greedy evaluation
// (evaluate.ts) and RFT's sampling (rft.ts): prompts grouped by length (one forward takes one
// length), in chunks, each step's last-position logits handed to a token rule.

import * as tf from '@tensorflow/tfjs';
import type { MicroConfig } from './config';
import { forward, type Params } from './model';
import { EOS_ID } from './vocab';

/** The next token of prompt `row` (its index in the call) from its last-position logits [V]. */
export type NextToken = (logits: Float32Array, row: number) => number;

/** Rows per forward (the wasm backend's heap bounds one batch). */
const CHUNK = 512;

/** Decodes every prompt under `route`; each row stops at eos (kept) or maxNewTokens. The rule is
 *  called in a fixed order (by ascending prompt length, then prompt order, step by step), so a
 *  seeded rule fixes every sample. */
export function decodeBatched(prompts: readonly number[][], route: readonly number[], params: Params, c: MicroConfig, maxNewTokens: number, next: NextToken): number[][] {
  const out: number[][] = new Array(prompts.length);
  const byLength = new Map<number, number[]>();
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new Error(`decode: prompt ${i} is empty`);
    byLength.set(p.length, [...(byLength.get(p.length) ?? []), i]);
  });
  for (const [, idx] of [...byLength].sort((a, b) => a[0] - b[0])) {
    for (let s = 0; s < idx.length; s += CHUNK) {
      const part = idx.slice(s, s + CHUNK);
      decodeSameLength(part.map((i) => prompts[i]), route, params, c, maxNewTokens, (logits, j) => next(logits, part[j])).forEach((o, j) => (out[part[j]] = o));
    }
  }
  return out;
}

function decodeSameLength(prompts: readonly number[][], route: readonly number[], params: Params, c: MicroConfig, maxNewTokens: number, next: NextToken): number[][] {
  const seqs = prompts.map((p) => p.slice());
  const outs: number[][] = prompts.map(() => []);
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
    const values = last.dataSync() as Float32Array;
    last.dispose();
    rows.forEach((r, i) => {
      const tok = next(values.subarray(i * c.vocabSize, (i + 1) * c.vocabSize), r);
      outs[r].push(tok);
      seqs[r].push(tok);
      if (tok === EOS_ID) live.delete(r);
    });
  }
  return outs;
}

// Token choice from logits.
//
// greedy: the argmax; ties go to the lowest token id.
// sample {temperature T, topP, seed}: one PRNG per row, createPrng(seed) (src/util/prng.ts), one
//   draw per generated token:
//   1. p_i = softmax(logits / T) in float64 (max subtracted first);
//   2. order tokens by p desc, ties by id asc;
//   3. keep the shortest prefix whose cumulative probability is ≥ topP (at least one token);
//   4. u = prng.next() · (kept mass); pick the first kept token whose running sum exceeds u
//      (the last kept token if rounding leaves none).
// logprob: the untempered log-softmax of the chosen token, in float64.
import { createPrng, type Prng } from '../util/prng.ts';
import { EngineError, type Sampling } from './types.ts';
import { quote } from '../util/clip.ts';

export function argmax(logits: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** log-softmax of `logits` at `id`, float64. */
export function logSoftmaxAt(logits: ArrayLike<number>, id: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  return logits[id] - max - Math.log(sum);
}

/** Throws EngineError('nan-logits') when any logit is NaN or ±Inf (naming `row` when given). */
export function checkFinite(logits: ArrayLike<number>, where: string, row?: number): void {
  for (let i = 0; i < logits.length; i++) {
    if (!Number.isFinite(logits[i])) {
      throw new EngineError('nan-logits', `${where}: logit of token ${i} is ${logits[i]}`, row);
    }
  }
}

export function validateSampling(s: Sampling, where: string): void {
  if (s.kind === 'greedy') return;
  if (s.kind !== 'sample') throw new EngineError('bad-input', `${where}: unknown sampling kind ${quote((s as { kind: unknown }).kind)}`);
  if (!(s.temperature > 0) || !Number.isFinite(s.temperature)) throw new EngineError('bad-input', `${where}: temperature must be > 0, got ${s.temperature}`);
  if (!(s.topP > 0 && s.topP <= 1)) throw new EngineError('bad-input', `${where}: topP must be in (0, 1], got ${s.topP}`);
  if (!Number.isInteger(s.seed)) throw new EngineError('bad-input', `${where}: seed must be an integer, got ${s.seed}`);
}

/** A per-row token chooser. */
export type Sampler = (logits: ArrayLike<number>) => number;

export function createSampler(s: Sampling): Sampler {
  if (s.kind === 'greedy') return argmax;
  const prng = createPrng(s.seed);
  return (logits) => sampleTopP(logits, s.temperature, s.topP, prng);
}

export function sampleTopP(logits: ArrayLike<number>, temperature: number, topP: number, prng: Prng): number {
  const n = logits.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logits[i] > max) max = logits[i];
  const p = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    p[i] = Math.exp((logits[i] - max) / temperature);
    sum += p[i];
  }
  for (let i = 0; i < n; i++) p[i] /= sum;
  // Only tokens with p ≥ t can be in the kept prefix once {p ≥ t} holds mass ≥ topP: sort those.
  let t = 1e-3;
  let candidates: number[] = [];
  for (;;) {
    candidates = [];
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (p[i] >= t) {
        candidates.push(i);
        m += p[i];
      }
    }
    if (m >= topP || t === 0) break;
    t = t < 1e-12 ? 0 : t / 100;
  }
  const order = candidates.sort((a, b) => p[b] - p[a] || a - b);
  let kept = 0;
  let mass = 0;
  while (kept < order.length && (kept === 0 || mass < topP)) mass += p[order[kept++]];
  const u = prng.next() * mass;
  let acc = 0;
  for (let j = 0; j < kept; j++) {
    acc += p[order[j]];
    if (u < acc) return order[j];
  }
  return order[kept - 1];
}

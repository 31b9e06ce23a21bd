// Estimators and tests: unbiased pass@k, Wilson score interval, McNemar's test, Holm's adjustment, the
// printed p-value, and retained gain with its paired bootstrap interval.

import { createPrng } from '../util/prng';

/** Unbiased pass@k (Chen et al. 2021): 1 − C(n−c, k)/C(n, k) for c correct among n draws.
 *  Computed as a product so large n never overflows. */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || n < 0 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`passAtK needs integers 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n} c=${c} k=${k}`);
  }
  if (n - c < k) return 1;
  let q = 1;
  for (let i = 0; i < k; i++) q *= (n - c - i) / (n - i);
  return 1 - q;
}

export interface Interval {
  rate: number;
  lo: number;
  hi: number;
}

/** 95% Wilson score interval for a binomial proportion; n = 0 gives rate 0 and [0, 1]. */
export function wilson(successes: number, n: number, z = 1.959963984540054): Interval {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError(`wilson needs integers 0 ≤ successes ≤ n, got ${successes}/${n}`);
  }
  if (n === 0) return { rate: 0, lo: 0, hi: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { rate: p, lo: Math.max(0, center - half), hi: Math.min(1, center + half) };
}

/** erfc by the Numerical Recipes Chebyshev fit (relative error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

export interface McNemar {
  /** A right, B wrong. */
  b: number;
  /** A wrong, B right. */
  c: number;
  /** Two-sided exact binomial p-value: min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, 1/2). */
  exactP: number;
  /** Continuity-corrected statistic (|b − c| − 1)² / (b + c); 0 when b + c = 0. */
  chiSquare: number;
  /** Its p-value under chi-square with 1 degree of freedom. */
  chiSquareP: number;
}

export function mcnemar(b: number, c: number): McNemar {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) throw new RangeError(`mcnemar needs non-negative integer counts, got b=${b} c=${c}`);
  const n = b + c;
  if (n === 0) return { b, c, exactP: 1, chiSquare: 0, chiSquareP: 1 };
  const m = Math.min(b, c);
  const tail = binomialLowerTailHalf(n, m);
  const chiSquare = Math.max(0, Math.abs(b - c) - 1) ** 2 / n;
  return { b, c, exactP: Math.min(1, 2 * tail), chiSquare, chiSquareP: erfc(Math.sqrt(chiSquare / 2)) };
}

/** P(X ≤ m) for X ~ Bin(n, 1/2): exact in BigInt up to n = 4000, in log space beyond. */
export function binomialLowerTailHalf(n: number, m: number): number {
  if (n <= 4000) {
    let coef = 1n;
    let sum = 0n;
    for (let i = 0; i <= m; i++) {
      if (i > 0) coef = (coef * BigInt(n - i + 1)) / BigInt(i);
      sum += coef;
    }
    const scale = 10n ** 18n;
    return Number((sum * scale) / (1n << BigInt(n))) / 1e18;
  }
  let logC = 0;
  let tail = 0;
  for (let i = 0; i <= m; i++) {
    if (i > 0) logC += Math.log((n - i + 1) / i);
    tail += Math.exp(logC - n * Math.LN2);
  }
  return tail;
}

export interface PairedDifference {
  /** Pairs (questions present on both sides). */
  n: number;
  /** mean(after) − mean(before). */
  diff: number;
  /** 95% interval for diff: Newcombe's hybrid score method for paired proportions (method 10,
   *  Statistics in Medicine 1998), built from the Wilson intervals of both margins. */
  ci: { lo: number; hi: number };
  /** McNemar's test on the discordant pairs (b: before only, c: after only). */
  mcnemar: McNemar;
}

/** Paired difference of two binary outcomes over the same questions (before[i], after[i]). */
export function pairedDifference(before: readonly boolean[], after: readonly boolean[]): PairedDifference {
  if (before.length !== after.length) throw new RangeError(`pairedDifference needs as many pairs on both sides, got ${before.length} and ${after.length}`);
  const n = before.length;
  let a = 0; // both
  let b = 0; // before only
  let c = 0; // after only
  for (let i = 0; i < n; i++) {
    if (before[i] && after[i]) a++;
    else if (before[i]) b++;
    else if (after[i]) c++;
  }
  const d = n - a - b - c;
  const test = mcnemar(b, c);
  if (n === 0) return { n, diff: 0, ci: { lo: -1, hi: 1 }, mcnemar: test };
  const p1 = (a + b) / n; // before
  const p2 = (a + c) / n; // after
  const w1 = wilson(a + b, n);
  const w2 = wilson(a + c, n);
  const denom = Math.sqrt((a + b) * (c + d) * (a + c) * (b + d));
  const phi = denom === 0 ? 0 : (a * d - b * c) / denom;
  // interval for p2 − p1 (Newcombe's method 10 written for θ = p2 − p1)
  const dl = Math.sqrt(Math.max(0, (p2 - w2.lo) ** 2 - 2 * phi * (p2 - w2.lo) * (w1.hi - p1) + (w1.hi - p1) ** 2));
  const du = Math.sqrt(Math.max(0, (w2.hi - p2) ** 2 - 2 * phi * (w2.hi - p2) * (p1 - w1.lo) + (p1 - w1.lo) ** 2));
  const diff = p2 - p1;
  return { n, diff, ci: { lo: Math.max(-1, diff - dl), hi: Math.min(1, diff + du) }, mcnemar: test };
}

/** A paired difference as reports store it: Δ, its 95% interval and McNemar's exact p. */
export interface PairedDelta {
  diff: number;
  ci: { lo: number; hi: number };
  mcnemar_p: number;
}

export const pairedDelta = (d: PairedDifference): PairedDelta => ({ diff: d.diff, ci: { lo: d.ci.lo, hi: d.ci.hi }, mcnemar_p: d.mcnemar.exactP });

/** A p-value as printed everywhere: "< 0.001" below 0.001, else three decimals. */
export function formatP(p: number): string {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`formatP needs a p-value in [0, 1], got ${p}`);
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/** Holm's step-down adjustment (Holm 1979) of a family of p-values, in the order given: the i-th
 *  smallest becomes max over j ≤ i of min(1, (m − j + 1)·p(j)). */
export function holm(ps: readonly number[]): number[] {
  for (const p of ps) if (!(p >= 0 && p <= 1)) throw new RangeError(`holm needs p-values in [0, 1], got ${p}`);
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** Retained gain: (selector − realized) / (ceiling − realized), the share of the questions a probe
 *  reaches beyond deployment (ceiling@B − realized: the "N more were reachable" of the Results
 *  sentence) that an answer-blind selector keeps, net of the realized questions it loses. At most 1
 *  (a selector answers only questions the probe reached); negative when the selector answers fewer
 *  questions than deployment does. null when the probe reaches no question deployment misses (no
 *  gain to keep); over counted questions, retainedGainEstimate also leaves it undefined for a gain
 *  below MIN_GAIN. */
export function retainedGain(selector: number, realized: number, ceiling: number): number | null {
  const gain = ceiling - realized;
  return gain <= 0 ? null : (selector - realized) / gain;
}

/** Why a retained gain is null, when the probe gains nothing. */
const NO_GAIN = 'the probe reaches no question that deployment misses, so there is no gain to retain';

/** A gain (ceiling − realized) below this share of the questions is too near zero to divide by (one
 *  question gained of 200 turns a loss of 90 into −9000%): the retained gain is not defined. */
export const MIN_GAIN = 0.05;

/** Why a retained gain over `gained` of `n` questions (a share below MIN_GAIN) is not defined. */
const fewGained = (gained: number, n: number) =>
  `not defined: the probe reaches only ${gained} of the ${n} questions that deployment misses (under ${Math.round(100 * MIN_GAIN)}%), a denominator too near zero to divide by`;

const questions = (n: number) => `${n} question${n === 1 ? '' : 's'}`;

/** A retained gain in words, from the counts behind it over the same questions: the selector's
 *  correct answers, deployment's, and the questions the probe reaches that deployment misses. */
export function retainedGainNote(value: number | null, reason: string | null, c: { selector: number; realized: number; gained: number }): string {
  if (value === null) return reason ?? NO_GAIN;
  const diff = c.selector - c.realized;
  if (value < 0) {
    return `below 0: the selector answers ${questions(c.selector)} correctly, ${-diff} fewer than deployment's ${c.realized} — choosing blindly among the probe's attempts loses more realized questions than it wins of the ${c.gained} the probe reaches beyond deployment`;
  }
  return `the selector answers ${questions(c.selector)} correctly, ${diff} more than deployment's ${c.realized}, of the ${c.gained} the probe reaches beyond deployment`;
}

/** One question of a retained-gain estimate: deployment right, probe reached it, selector right. */
export interface GainOutcome {
  realized: boolean;
  reachable: boolean;
  selector: boolean;
}

export interface RetainedGainEstimate {
  value: number | null;
  /** Why value is null, in words; null when it is a number. */
  reason: string | null;
  /** Paired bootstrap 95% percentile interval (questions resampled with their three outcomes);
   *  null with value, or when fewer than half of the resamples have a gain. */
  ci: { lo: number; hi: number } | null;
  resamples: number;
  seed: number;
}

/** The resamples and seed of every bootstrap interval (retained gain, change beyond the decoy). */
export const RETAINED_GAIN_BOOTSTRAP = { resamples: 2000, seed: 1 } as const;

/** The mean of `xs`; 0 for none. */
export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

/** Mean of per-question values with its 95% bootstrap percentile interval (questions resampled;
 *  RETAINED_GAIN_BOOTSTRAP's resamples and seed). n = 0 gives mean 0 and [0, 0]. */
export function bootstrapMean(values: readonly number[], opts: { resamples: number; seed: number } = RETAINED_GAIN_BOOTSTRAP): { mean: number; ci: { lo: number; hi: number } } {
  const n = values.length;
  if (n === 0) return { mean: 0, ci: { lo: 0, hi: 0 } };
  // resampled in sorted order: the interval depends on the values, never on the order records came in
  const sorted = [...values].sort((a, b) => a - b);
  const rng = createPrng(opts.seed, 0x7e7a);
  const draws = Array.from({ length: opts.resamples }, () => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += sorted[rng.int(n)];
    return sum / n;
  }).sort((a, b) => a - b);
  return { mean: mean(values), ci: percentileInterval(draws) };
}

/** The 95% percentile interval of sorted bootstrap draws: their 2.5th and 97.5th percentiles. */
function percentileInterval(sorted: readonly number[]): { lo: number; hi: number } {
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { lo: at(0.025), hi: at(0.975) };
}

/** Retained gain over paired question outcomes, with its paired bootstrap interval. */
export function retainedGainEstimate(outcomes: readonly GainOutcome[], opts: { resamples: number; seed: number } = RETAINED_GAIN_BOOTSTRAP): RetainedGainEstimate {
  const n = outcomes.length;
  const base = { resamples: opts.resamples, seed: opts.seed };
  if (n === 0) return { value: null, reason: 'no questions', ci: null, ...base };
  const rate = (f: (o: GainOutcome) => boolean) => outcomes.filter(f).length / n;
  const value = retainedGain(rate((o) => o.selector), rate((o) => o.realized), rate((o) => o.realized || o.reachable));
  if (value === null) return { value, reason: NO_GAIN, ci: null, ...base };
  const gained = outcomes.filter((o) => o.reachable && !o.realized).length;
  if (gained / n < MIN_GAIN) return { value: null, reason: fewGained(gained, n), ci: null, ...base };
  // resampled in a canonical order (by outcome): the interval depends on the questions' outcomes,
  // never on the order their records came in (the app's store and the CLI list records differently)
  const code = (o: GainOutcome) => 4 * +o.realized + 2 * +o.reachable + +o.selector;
  const canonical = [...outcomes].sort((a, b) => code(a) - code(b));
  const rng = createPrng(opts.seed, 0x7e7a);
  const draws: number[] = [];
  for (let b = 0; b < opts.resamples; b++) {
    let sel = 0;
    let real = 0;
    let ceiling = 0;
    for (let i = 0; i < n; i++) {
      const o = canonical[rng.int(n)];
      sel += +o.selector;
      real += +o.realized;
      ceiling += +(o.realized || o.reachable);
    }
    // a resample that gains too few questions has no gain to divide by, as the estimate itself
    if ((ceiling - real) / n >= MIN_GAIN) draws.push(retainedGain(sel / n, real / n, ceiling / n)!);
  }
  if (draws.length < opts.resamples / 2) return { value, reason: null, ci: null, ...base };
  draws.sort((a, b) => a - b);
  return { value, reason: null, ci: percentileInterval(draws), ...base };
}

// Conformance of an engine against a reference checkpoint's expected.json (see
// test/fixtures/reference/README.md). Pure comparisons over the Engine interface, so the same
// check runs in Node on the WASM EP and in the browser (the self-test page) on the WebGPU EP.

import type { Engine, ForwardRow, GenerateResult } from './types';

export interface ExpectedCase {
  name: string;
  route: number[];
  silence: number[];
  last_logits: number[];
  all_position_argmax: number[];
  greedy_tokens: number[];
}

export interface Expected {
  model: string;
  input_ids: number[];
  max_new_tokens: number;
  tolerance: { abs: number };
  cases: ExpectedCase[];
  default_all_logits: number[][];
}

export interface CaseReport {
  name: string;
  /** max |engine − expected| over the last position's logits. */
  maxAbsDiff: number;
  argmaxExact: boolean;
  greedyExact: boolean;
  /** The KV-cached decode equals greedy decoding by full recomputation of the growing sequence. */
  cachedEqualsRecomputed: boolean;
  greedyTokens: number[];
  pass: boolean;
}

export interface ConformanceReport {
  model: string;
  tolerance: number;
  cases: CaseReport[];
  /** max |engine − expected| over every prompt position, default route. */
  defaultAllMaxAbsDiff: number;
  /** All cases generated as one batch equal the same rows run one by one. */
  batchedEqualsSingle: boolean;
  pass: boolean;
}

/** Index of the largest value; ties go to the lowest index (as the reference's greedy rule). */
export function argmax(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

/** KL(softmax(a) ‖ softmax(b)) in nats, of two logit rows (what a lossy dtype costs). */
export function klDivergence(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const lse = (x: ArrayLike<number>) => {
    let m = -Infinity;
    for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
    let s = 0;
    for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - m);
    return m + Math.log(s);
  };
  const la = lse(a);
  const lb = lse(b);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.exp(a[i] - la) * (a[i] - la - (b[i] - lb));
  return s;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return NaN; // a NaN logit must fail, never compare as "small"
    if (d > m) m = d;
  }
  return m;
}

const sameIds = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Greedy decoding by recomputing the whole sequence at every step (no KV cache reuse). */
async function greedyByRecompute(engine: Engine, row: ForwardRow, steps: number): Promise<number[]> {
  const ids = row.promptIds.slice();
  const out: number[] = [];
  for (let s = 0; s < steps; s++) {
    const [last] = await engine.logits({ ...row, promptIds: ids });
    const t = argmax(last);
    out.push(t);
    ids.push(t);
  }
  return out;
}

/** The f16 tolerance of one logit row: f16 keeps 11 significant bits (relative step 2^-11), and over
 *  the reference checkpoints' 2–6-layer routes a logit may drift 50 such steps of the largest |logit|
 *  (the f32 tolerance, expected.tolerance, does not apply to a computation in f16). */
export function f16Bound(logits: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < logits.length; i++) m = Math.max(m, Math.abs(logits[i]));
  return 50 * 2 ** -11 * m;
}

/** What a report fails, judged for the precision the engine computed in: f32 by expected.tolerance
 *  and every exact criterion; f16 by greedy tokens, cached = recomputed and batched = single, with
 *  logits within f16Bound (the argmax of every prompt position may flip at a near tie). A NaN logit
 *  fails either way. Empty when it passes. */
export function conformanceFailures(report: ConformanceReport, expected: Expected, precision: 'f32' | 'f16'): string[] {
  const out: string[] = [];
  const within = (diff: number, want: ArrayLike<number>) => diff <= (precision === 'f32' ? expected.tolerance.abs : f16Bound(want));
  for (const [i, c] of report.cases.entries()) {
    const want = expected.cases[i];
    if (!within(c.maxAbsDiff, want.last_logits)) out.push(`${c.name}: last logits max |diff| ${c.maxAbsDiff}`);
    if (precision === 'f32' && !c.argmaxExact) out.push(`${c.name}: argmax at some position differs`);
    if (!c.greedyExact) out.push(`${c.name}: greedy ${c.greedyTokens.join(',')} vs ${want.greedy_tokens.join(',')}`);
    if (!c.cachedEqualsRecomputed) out.push(`${c.name}: KV-cached greedy differs from recomputation`);
  }
  if (report.cases.length !== expected.cases.length) out.push(`${report.cases.length} of ${expected.cases.length} cases ran`);
  if (!within(report.defaultAllMaxAbsDiff, expected.default_all_logits.flat())) out.push(`default route, all positions: max |diff| ${report.defaultAllMaxAbsDiff}`);
  if (!report.batchedEqualsSingle) out.push('batched rows differ from one by one');
  return out;
}

export async function checkConformance(engine: Engine, expected: Expected): Promise<ConformanceReport> {
  const tol = expected.tolerance.abs;
  const steps = expected.max_new_tokens;
  const rows = expected.cases.map((c) => ({ promptIds: expected.input_ids, route: c.route, silence: c.silence }));
  // Generous EOS-free decode: the reference counts exactly `steps` tokens.
  const genOpts = { maxNewTokens: steps, eosTokenIds: [] as number[] };

  const single: GenerateResult[] = [];
  for (const row of rows) single.push((await engine.generate([{ ...row, sampling: { kind: 'greedy' } }], genOpts))[0]);
  const batched = await engine.generate(rows.map((r) => ({ ...r, sampling: { kind: 'greedy' as const } })), genOpts);
  const batchedEqualsSingle = batched.every((b, i) => sameIds(b.tokens, single[i].tokens));

  const cases: CaseReport[] = [];
  for (const [i, c] of expected.cases.entries()) {
    const positions = await engine.logits(rows[i], { allPositions: true });
    const last = positions[positions.length - 1];
    const diff = maxAbsDiff(last, c.last_logits);
    const argmaxExact = sameIds(positions.map(argmax), c.all_position_argmax);
    const greedyTokens = single[i].tokens;
    const greedyExact = sameIds(greedyTokens, c.greedy_tokens);
    const recomputed = await greedyByRecompute(engine, rows[i], steps);
    const cachedEqualsRecomputed = sameIds(greedyTokens, recomputed);
    cases.push({
      name: c.name,
      maxAbsDiff: diff,
      argmaxExact,
      greedyExact,
      cachedEqualsRecomputed,
      greedyTokens,
      pass: diff <= tol && argmaxExact && greedyExact && cachedEqualsRecomputed,
    });
  }

  const defaultRoute = expected.cases.find((c) => c.name === 'default') ?? expected.cases[0];
  const all = await engine.logits({ promptIds: expected.input_ids, route: defaultRoute.route, silence: [] }, { allPositions: true });
  let defaultAllMaxAbsDiff = all.length === expected.default_all_logits.length ? 0 : Infinity;
  for (const [p, row] of expected.default_all_logits.entries()) {
    if (!all[p]) break;
    defaultAllMaxAbsDiff = Math.max(defaultAllMaxAbsDiff, maxAbsDiff(all[p], row));
  }

  return {
    model: expected.model,
    tolerance: tol,
    cases,
    defaultAllMaxAbsDiff,
    batchedEqualsSingle,
    pass: cases.every((c) => c.pass) && defaultAllMaxAbsDiff <= tol && batchedEqualsSingle,
  };
}

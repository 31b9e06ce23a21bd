// From a run's question records to what the result screens show: outcomes per question, rates with
// intervals, reachability@k curves, the silencing scan, layer usage, checkpoint transitions.
// Pure functions over plain records; no DOM.

import type { ProbeName, ProbeSpec, QuestionRecord, RunManifest } from '../../audit/types';
import { passAtK, wilson, type Interval } from '../../audit/stats';

/** Probes whose attempts decide reachability (the silencing scan repairs, it does not reach). */
export const REACH_PROBES = ['random-routes', 'mcts-routes', 'sampling'] as const satisfies readonly ProbeName[];
export type ReachProbe = (typeof REACH_PROBES)[number];

export type Outcome = 'realized' | 'reachable-only' | 'unreachable';
export const OUTCOMES: readonly Outcome[] = ['realized', 'reachable-only', 'unreachable'];

export interface QuestionView {
  doc_id: string;
  /** doc_hash when records carry one; matches questions across runs. */
  key: string;
  text: string;
  target: string;
  /** The deployment attempt's extracted answer, or null when the run has no deployment record yet. */
  deployed: string | null;
  realized: boolean;
  records: Partial<Record<ProbeName, QuestionRecord>>;
}

/** One view per question, in the order questions first appear. */
export function groupByQuestion(records: readonly QuestionRecord[]): QuestionView[] {
  const byId = new Map<string, QuestionView>();
  for (const r of records) {
    let q = byId.get(r.doc_id);
    if (!q) {
      q = { doc_id: r.doc_id, key: r.doc_hash || r.doc_id, text: r.doc.text, target: r.target, deployed: null, realized: false, records: {} };
      byId.set(r.doc_id, q);
    }
    q.records[r.probe] = r;
    if (r.probe === 'deployment') {
      const a = r.attempts[0];
      q.deployed = a ? a.extracted : null;
      q.realized = a ? a.correct : false;
    }
  }
  return [...byId.values()];
}

/** The budget a probe spec charges per question. */
export function budgetOf(spec: ProbeSpec): number {
  switch (spec.probe) {
    case 'deployment':
      return 1;
    case 'mlp-silencing':
      return spec.layers.length;
    default:
      return spec.budget;
  }
}

/** reachable@B for one record: a correct attempt among the first B (B defaults to the record's budget). */
export function reachedWithin(r: QuestionRecord | undefined, budget = r?.budget ?? 0): boolean {
  return !!r && r.first_success !== null && r.first_success < budget;
}

/** Reachable under `probe`, or under any reach probe of the run when probe is 'any'. */
export function isReachable(q: QuestionView, probe: ReachProbe | 'any' = 'any'): boolean {
  const probes = probe === 'any' ? REACH_PROBES : [probe];
  return probes.some((p) => reachedWithin(q.records[p]));
}

export function outcomeOf(q: QuestionView, probe: ReachProbe | 'any' = 'any'): Outcome {
  if (q.realized) return 'realized';
  return isReachable(q, probe) ? 'reachable-only' : 'unreachable';
}

/** A probe's budget in this run: the largest budget among its records (records of one run agree). */
export function probeBudget(questions: readonly QuestionView[], probe: ProbeName): number {
  let b = 0;
  for (const q of questions) b = Math.max(b, q.records[probe]?.budget ?? 0);
  return b;
}

export interface RateRow {
  /** What is measured, e.g. "realized", "reachable@100", "ceiling@100", "selector: majority". */
  measure: string;
  probe: ProbeName;
  /** The probe's budget B (1 for deployment). */
  budget: number;
  k: number;
  n: number;
  rate: number;
  ci: Interval;
}

function rateRow(measure: string, probe: ProbeName, budget: number, k: number, n: number): RateRow {
  return { measure, probe, budget, k, n, rate: k / n, ci: wilson(k, n) };
}

/** Realized, and per reach probe reachable@B, ceiling@B and each answer-blind selector, with Wilson 95% CIs.
 *  Only questions that have a deployment record count. */
export function rateRows(questions: readonly QuestionView[]): RateRow[] {
  const done = questions.filter((q) => q.deployed !== null);
  const n = done.length;
  if (n === 0) return [];
  const rows = [rateRow('realized', 'deployment', 1, done.filter((q) => q.realized).length, n)];
  for (const probe of REACH_PROBES) {
    const B = probeBudget(done, probe);
    const withProbe = done.filter((q) => q.records[probe]);
    if (withProbe.length === 0) continue;
    const m = withProbe.length;
    const reach = withProbe.filter((q) => reachedWithin(q.records[probe], B)).length;
    const ceil = withProbe.filter((q) => q.realized || reachedWithin(q.records[probe], B)).length;
    rows.push(rateRow(`reachable@${B}`, probe, B, reach, m), rateRow(`ceiling@${B}`, probe, B, ceil, m));
    const selectorNames = [...new Set(withProbe.flatMap((q) => Object.keys(q.records[probe]!.selectors ?? {})))].sort();
    for (const s of selectorNames) {
      const scored = withProbe.filter((q) => q.records[probe]!.selectors?.[s]);
      const k = scored.filter((q) => q.records[probe]!.selectors![s].correct).length;
      rows.push(rateRow(`selector: ${s}`, probe, B, k, scored.length));
    }
  }
  return rows;
}

export interface OutcomeCount {
  outcome: Outcome;
  count: number;
  share: number;
}

/** The realized × reachable table: counts of realized, reachable-only and unreachable questions. */
export function outcomeCounts(questions: readonly QuestionView[], probe: ReachProbe | 'any' = 'any'): OutcomeCount[] {
  const done = questions.filter((q) => q.deployed !== null);
  const counts: Record<Outcome, number> = { realized: 0, 'reachable-only': 0, unreachable: 0 };
  for (const q of done) counts[outcomeOf(q, probe)]++;
  return OUTCOMES.map((o) => ({ outcome: o, count: counts[o], share: done.length ? counts[o] / done.length : 0 }));
}

export interface CurvePoint {
  probe: ReachProbe;
  k: number;
  reach: number;
}

/** Reachability@k for k = 1..B. Random routes and sampling: the unbiased pass@k estimator over each
 *  question's attempts; MCTS: the empirical share whose first success has index < k. */
export function reachCurve(questions: readonly QuestionView[], probe: ReachProbe): CurvePoint[] {
  const recs = questions.map((q) => q.records[probe]).filter((r): r is QuestionRecord => !!r);
  const B = probeBudget(questions, probe);
  if (recs.length === 0 || B === 0) return [];
  const out: CurvePoint[] = [];
  for (let k = 1; k <= B; k++) {
    let sum = 0;
    for (const r of recs) {
      if (probe === 'mcts-routes') {
        sum += r.first_success !== null && r.first_success < k ? 1 : 0;
      } else {
        const attempts = r.attempts.slice(0, B);
        const n = attempts.length;
        if (n === 0) continue;
        const c = attempts.filter((a) => a.correct).length;
        sum += k <= n ? passAtK(n, c, k) : c > 0 ? 1 : 0;
      }
    }
    out.push({ probe, k, reach: sum / recs.length });
  }
  return out;
}

export interface SelectorPoint {
  probe: ReachProbe;
  selector: string;
  /** The candidate pool size the selector chose from (the probe's budget). */
  k: number;
  accuracy: number;
}

export function selectorPoints(rows: readonly RateRow[]): SelectorPoint[] {
  return rows
    .filter((r) => r.measure.startsWith('selector: ') && r.probe !== 'deployment')
    .map((r) => ({ probe: r.probe as ReachProbe, selector: r.measure.slice('selector: '.length), k: r.budget, accuracy: r.rate }));
}

export interface SilencingLayer {
  layer: number;
  repaired: number;
  broken: number;
}

export interface SilencingScan {
  layers: SilencingLayer[];
  /** Questions in the scan that deployment got wrong (the failure set) and right. */
  nFailure: number;
  nRealized: number;
  /** The layer with most repairs (ties: fewer broken, then lower index); null when nothing was repaired. */
  best: number | null;
}

/** Per silenced layer: failure-set questions it repairs and realized questions it breaks. */
export function silencingScan(questions: readonly QuestionView[]): SilencingScan {
  const byLayer = new Map<number, SilencingLayer>();
  let nFailure = 0;
  let nRealized = 0;
  for (const q of questions) {
    const r = q.records['mlp-silencing'];
    if (!r || q.deployed === null) continue;
    if (q.realized) nRealized++;
    else nFailure++;
    for (const a of r.attempts) {
      if (a.silence.length !== 1) continue; // the scan silences one block per attempt
      const layer = a.silence[0];
      let e = byLayer.get(layer);
      if (!e) byLayer.set(layer, (e = { layer, repaired: 0, broken: 0 }));
      if (!q.realized && a.correct) e.repaired++;
      if (q.realized && !a.correct) e.broken++;
    }
  }
  const layers = [...byLayer.values()].sort((a, b) => a.layer - b.layer);
  let best: SilencingLayer | null = null;
  for (const l of layers) {
    if (l.repaired === 0) continue;
    if (!best || l.repaired > best.repaired || (l.repaired === best.repaired && l.broken < best.broken)) best = l;
  }
  return { layers, nFailure, nRealized, best: best ? best.layer : null };
}

export interface UsageCell {
  position: number;
  layer: number;
  count: number;
}

/** How often each layer runs at each route position, over the correct attempts of route probes. */
export function layerUsage(questions: readonly QuestionView[]): UsageCell[] {
  const counts = new Map<string, UsageCell>();
  for (const q of questions) {
    for (const probe of ['random-routes', 'mcts-routes'] as const) {
      for (const a of q.records[probe]?.attempts ?? []) {
        if (!a.correct) continue;
        a.route.forEach((layer, position) => {
          const key = `${position}:${layer}`;
          const c = counts.get(key);
          if (c) c.count++;
          else counts.set(key, { position, layer, count: 1 });
        });
      }
    }
  }
  return [...counts.values()].sort((a, b) => a.position - b.position || a.layer - b.layer);
}

/** Layers of the run's model: from a route space in the manifest, else one past the highest layer seen. */
export function numLayersOf(manifest: RunManifest, records: readonly QuestionRecord[]): number {
  for (const p of manifest.probes) if ('space' in p) return p.space.numLayers;
  let max = -1;
  for (const r of records) for (const a of r.attempts) for (const l of a.route) max = Math.max(max, l);
  return max + 1;
}

export interface Transition {
  from: Outcome;
  to: Outcome;
  count: number;
}

export interface CheckpointComparison {
  /** Questions present (with a deployment answer) in both runs, matched by doc hash. */
  shared: number;
  transitions: Transition[];
  /** Realized and ceiling (any reach probe) rates per run, for paired bars. */
  bars: { run: 'A' | 'B'; measure: 'realized' | 'ceiling'; rate: number; ci: Interval }[];
}

export function compareRuns(a: readonly QuestionView[], b: readonly QuestionView[]): CheckpointComparison {
  const bByKey = new Map(b.filter((q) => q.deployed !== null).map((q) => [q.key, q]));
  const pairs: [QuestionView, QuestionView][] = [];
  for (const qa of a) {
    const qb = qa.deployed !== null ? bByKey.get(qa.key) : undefined;
    if (qb) pairs.push([qa, qb]);
  }
  const transitions: Transition[] = [];
  for (const from of OUTCOMES) for (const to of OUTCOMES) transitions.push({ from, to, count: 0 });
  const outA = pairs.map(([qa]) => outcomeOf(qa));
  const outB = pairs.map(([, qb]) => outcomeOf(qb));
  outA.forEach((from, i) => transitions.find((t) => t.from === from && t.to === outB[i])!.count++);
  const n = pairs.length;
  const bars: CheckpointComparison['bars'] = [];
  if (n > 0) {
    for (const [run, outs] of [['A', outA], ['B', outB]] as const) {
      const realized = outs.filter((o) => o === 'realized').length;
      const ceiling = outs.filter((o) => o !== 'unreachable').length;
      bars.push({ run, measure: 'realized', rate: realized / n, ci: wilson(realized, n) });
      bars.push({ run, measure: 'ceiling', rate: ceiling / n, ci: wilson(ceiling, n) });
    }
  }
  return { shared: n, transitions, bars };
}

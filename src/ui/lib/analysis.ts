// From a run's question records to what the result screens show. Every number is the audit
// core's (summarize, failureSet + scanFromRecords, conditionDiff + compareRecords), so the app and
// the CLI print the same numbers for one run; this module only groups records into question views
// and picks what to show. Pure functions over plain records; no DOM.

import {
  AuditError,
  guidanceComparisons,
  compareRecords,
  conditionDiff,
  DEPLOYMENT,
  drawsRoutes,
  failureSet,
  INTERVENTION,
  isDeployment,
  isReach,
  PROBE_NAMES,
  QUESTION_STATES,
  questionState,
  scanFromRecords,
  scanRole,
  silencingEffect,
  METRICS,
  summarize,
  titleOf,
  seedOfSpec,
  silencedLayers,
  wilson,
  type AuditSummary,
  type Condition,
  type CheckpointComparison,
  type Interval,
  type ProbeComparison,
  type ProbeSpec,
  type ProbeSummary,
  type QuestionRecord,
  type QuestionState,
  type RunManifest,
  type SilencingScanResult,
} from '../../audit';
import type { StoredRun } from '../backend';
import { modelLabel } from './model-label';
import { pValue, share, type Cell } from './cells';
import { probeSpecDiffText } from '../../audit/compare';
import { manifestNumLayers, probeSpecText } from '../../audit/run-definition';
import { READ_TIME_SELECTORS, withSelectorPicks } from '../../audit/selectors';
import { answerKeyOf } from '../../audit/formats/registry';
import { conditionFieldLabel } from './run-facts';

export interface QuestionView {
  doc_id: string;
  text: string;
  target: string;
  /** The deployment attempt's extracted answer, or null when the run has no deployment record yet. */
  deployed: string | null;
  realized: boolean;
  /** The question's records in the order they arrived (a run may hold two probes of one kind). */
  records: QuestionRecord[];
}

/** One view per question, in the order questions first appear. */
export function groupByQuestion(records: readonly QuestionRecord[]): QuestionView[] {
  const byId = new Map<string, QuestionView>();
  for (const r of records) {
    let q = byId.get(r.doc_id);
    if (!q) byId.set(r.doc_id, (q = { doc_id: r.doc_id, text: r.doc.text, target: r.target, deployed: null, realized: false, records: [] }));
    q.records.push(r);
    if (isDeployment(r)) {
      q.deployed = r.attempts[0]?.extracted ?? null;
      q.realized = r.realized === true;
    }
  }
  return [...byId.values()];
}

export interface OutcomeCount {
  outcome: QuestionState;
  count: number;
  share: number;
}

/** The realized × reachable table: how many questions with a deployment record are in each state
 *  (the core's questionState), reachable under the probe `probeKey` or under any reach probe. */
export function outcomeCounts(questions: readonly QuestionView[], probeKey?: string): OutcomeCount[] {
  const done = questions.filter((q) => q.deployed !== null);
  const counts: Record<QuestionState, number> = { realized: 0, 'reachable-only': 0, unreachable: 0 };
  for (const q of done) counts[questionState(q.records, { probeKey })]++;
  return QUESTION_STATES.map((o) => ({ outcome: o, count: counts[o], share: done.length ? counts[o] / done.length : 0 }));
}

// ------------------------------------------------------------------ rates (audit core: summarize)

/** The core's summary over the questions whose deployment record is in, so that realized,
 *  reachable and ceiling count the same questions while a run is still going; the selectors
 *  computed from attempts are picked at read time (a run stored without picks answers too), its
 *  majority telling answers apart by the condition's answer format (formats/registry.ts answerKeyOf). */
export function summaryOf(records: readonly QuestionRecord[], condition: Condition | null = null): AuditSummary {
  const deployed = new Set(records.filter(isDeployment).map((r) => r.doc_id));
  return summarize(withSelectorPicks(records.filter((r) => deployed.has(r.doc_id)), READ_TIME_SELECTORS, answerKeyOf(condition)));
}

/** A probe of the run as the screens name it. */
export interface RunProbe {
  summary: ProbeSummary;
  spec: ProbeSpec;
  label: string;
}

/** The run's reach probes (one per probe key) with their specs, in the registry's order. */
export function reachProbeKeys(records: readonly QuestionRecord[]): { key: string; spec: ProbeSpec; label: string }[] {
  const specOf = new Map(records.filter(isReach).map((r) => [r.probe_key, r.probe_spec]));
  return [...specOf]
    .sort(([, a], [, b]) => PROBE_NAMES.indexOf(a.probe) - PROBE_NAMES.indexOf(b.probe))
    .map(([key, spec]) => ({ key, spec, label: titleOf(spec) }));
}

/** The summary's reach probes with their specs, in the registry's order (random routes, MCTS, …). */
export function reachProbes(s: AuditSummary, records: readonly QuestionRecord[]): RunProbe[] {
  const byKey = new Map(s.probes.map((p) => [p.probe_key, p]));
  return reachProbeKeys(records).flatMap(({ key, spec, label }) => {
    const summary = byKey.get(key);
    return summary ? [{ summary, spec, label }] : [];
  });
}

export interface RateRow {
  /** "realized", then each share metric at the probe's budget: "reachable@16", "reachable@16 (decoy)", … */
  measure: string;
  probe: string;
  k: number;
  n: number;
  rate: number;
  ci: Interval;
}

/** The registry's share metrics (metrics/registry.ts): the rate table's measures. */
const SHARE_METRICS = METRICS.filter((m) => m.show === 'share');

/** Realized, and per reach probe each share metric of the registry (reachable@B, cover@τ,
 *  ceiling@B, each against the decoy where the questions have one), with Wilson 95% intervals on
 *  the core's counts. */
export function rateRows(s: AuditSummary, probes: readonly RunProbe[]): RateRow[] {
  if (s.n === 0) return [];
  const row = (measure: string, probe: string, k: number, n: number): RateRow => ({ measure, probe, k, n, rate: n ? k / n : 0, ci: wilson(k, n) });
  return [
    row('realized', titleOf({ probe: DEPLOYMENT }), s.realized_count, s.n),
    ...probes.flatMap(({ summary: p, label }) =>
      SHARE_METRICS.flatMap((m) => {
        const k = (p.counts as Record<string, number | null>)[m.id];
        return k === null || k === undefined ? [] : [row(m.label(p.budget), label, k, m.over === 'joined' ? p.joined : p.n)];
      }),
    ),
  ];
}

/** The registry's metrics of attempts (shown as numbers, not shares): the attempts table's columns. */
export const ATTEMPT_METRICS = METRICS.filter((m) => m.show === 'mean' || m.show === 'estimate');

export interface SelectorRow {
  probe: string;
  spec: ProbeSpec;
  selector: string;
  /** The pool size the selector chose from: the probe's budget. */
  budget: number;
  accuracy: number;
  k: number;
  n: number;
  ci: Interval;
  blind: boolean;
  retained_gain: number | null;
  /** Its paired bootstrap 95% interval (stats.ts retainedGainEstimate); null with a reason. */
  retained_gain_ci: { lo: number; hi: number } | null;
  /** Why retained_gain is null, in words. */
  retained_gain_reason: string | null;
  /** What it says in words (the summary's, stats.ts retainedGainNote). */
  retained_gain_note: string;
}

/** Each selector of each reach probe: accuracy, whether it is answer-blind, retained gain with its
 *  interval (the summary's, as the study report shows it). */
export function selectorRows(probes: readonly RunProbe[]): SelectorRow[] {
  return probes.flatMap(({ summary: p, spec, label }) =>
    Object.entries(p.selectors ?? {}).map(([selector, x]) => ({
      probe: label,
      spec,
      selector,
      budget: p.budget,
      accuracy: x.accuracy,
      k: x.correct,
      n: x.n,
      ci: wilson(x.correct, x.n),
      blind: x.blind,
      retained_gain: x.retained_gain,
      retained_gain_ci: x.retained_gain_ci,
      retained_gain_reason: x.retained_gain_reason,
      retained_gain_note: x.retained_gain_note,
    })),
  );
}

export const NOT_BLIND = 'not blind: chose among gold-guided attempts';

export interface ProbeVersus {
  a: string;
  b: string;
  cmp: ProbeComparison;
}

/** Each MCTS probe of the run against both random baselines, uniform routes and its depth-matched
 *  walks, at matched attempts (the audit core's guidanceComparisons): the paper's "random ≥
 *  structured" comparison, and what the search's guidance adds over its own kind of route. */
export function randomVersusStructured(records: readonly QuestionRecord[], probes: readonly RunProbe[]): ProbeVersus[] {
  const label = (key: string) => probes.find((p) => p.summary.probe_key === key)?.label ?? key;
  return guidanceComparisons(records).flatMap((g) =>
    [g.uniform, g.depth_matched].filter((c): c is ProbeComparison => c !== null).map((cmp) => ({ a: label(cmp.a.probe_key), b: label(g.mcts_probe_key), cmp })),
  );
}

/** One row per (run, MCTS preset, baseline): random − MCTS at matched attempts inside that run
 *  (the core's guidanceComparisons), for the Compare screen's side-by-side table. */
export function guidanceRows(runs: readonly { name: string; records: readonly QuestionRecord[] }[]): Cell[][] {
  return runs.flatMap(({ name, records }) =>
    guidanceComparisons(records).flatMap((g) =>
      (
        [
          ['uniform random routes', g.uniform],
          ['depth-matched walks', g.depth_matched],
        ] as const
      ).flatMap(([baseline, cmp]) =>
        cmp ? [[name, g.preset, baseline, share(cmp.a.reachable), share(cmp.b.reachable), share(cmp.diff.diff), share(cmp.diff.ci.lo), share(cmp.diff.ci.hi), pValue(cmp.diff.mcnemar.exactP), cmp.matched_attempts]] : [],
      ),
    ),
  );
}

export interface CurvePoint {
  /** The probe key: one curve per probe of the run. */
  key: string;
  label: string;
  spec: ProbeSpec;
  k: number;
  reach: number;
}

/** Reachability@k for k = 1..B per reach probe (the core's reach_at_k). */
export function curvePoints(probes: readonly RunProbe[]): CurvePoint[] {
  return probes.flatMap(({ summary, spec, label }) => summary.reach_at_k.map((reach, i) => ({ key: summary.probe_key, label, spec, k: i + 1, reach })));
}

// ------------------------------------------------------------------ silencing (audit core: scan)

/** The split seed of the scan's identification / evaluation halves (the CLI's default; runs do
 *  not record another). */
const SPLIT_SEED = 0;

export type SilencingView = { scan: SilencingScanResult; failureProbe: string } | { missing: string };

/** The reach probe whose failure set the silencing scan reads unless another is chosen: the run's
 *  first in the registry's order (random routes where it has them, as a study's scan). */
export function scanProbeKey(records: readonly QuestionRecord[]): string | undefined {
  const rank = (r: QuestionRecord) => PROBE_NAMES.indexOf(r.probe);
  return records.filter(isReach).reduce<QuestionRecord | undefined>((best, r) => (best && rank(best) <= rank(r) ? best : r), undefined)?.probe_key;
}

/** The out-of-sample silencing scan of a run, from its own records: the failure set of the reach
 *  probe `key` (default: scanProbeKey), the run's silencing records of every failure and
 *  realized question. null when the run has no silencing probe; `missing` says what is lacking. */
export function silencingOf(records: readonly QuestionRecord[], key = scanProbeKey(records)): SilencingView | null {
  const silencing = records.filter((r) => r.probe === INTERVENTION);
  if (silencing.length === 0) return null;
  if (key === undefined) {
    return { missing: 'The silencing scan needs a reachability probe (random routes, MCTS or sampling) in the same run: its failure set is the questions reachable and not realized.' };
  }
  // questions whose reach record is not in yet are not judged (neither failure nor realized)
  const probed = new Set(records.filter((r) => r.probe_key === key).map((r) => r.doc_id));
  const silKey = silencing[0].probe_key;
  const ofScan = silencing.filter((r) => r.probe_key === silKey);
  const spec = ofScan[0].probe_spec;
  try {
    const set = failureSet(records.filter((r) => !isDeployment(r) || probed.has(r.doc_id)), key);
    const have = new Set(ofScan.map((r) => r.doc_id));
    const lacking = [...set.failures, ...set.realized].filter((d) => !have.has(d.id)).map((d) => d.id);
    if (lacking.length) {
      const some = lacking.slice(0, 5).join(', ') + (lacking.length > 5 ? ', …' : '');
      return { missing: `The silencing scan needs MLP-silencing records of all ${set.failures.length} failure-set and ${set.realized.length} realized questions; ${lacking.length} have none yet (${some}).` };
    }
    const scan = scanFromRecords({
      probe_key: key,
      silencing_probe_key: silKey,
      condition_key: set.condition_key,
      failureIds: set.failures.map((d) => d.id),
      realizedIds: set.realized.map((d) => d.id),
      silencing: ofScan,
      layers: silencedLayers(spec),
      splitSeed: SPLIT_SEED,
    });
    return { scan, failureProbe: titleOf(records.find((r) => r.probe_key === key)!.probe_spec) };
  } catch (e) {
    if (e instanceof AuditError) return { missing: `The silencing scan cannot be computed: ${e.message}.` };
    throw e;
  }
}

export interface SilencingEffectRow {
  layers: number[];
  extracted: string;
  /** The scan's word for it (core silencingEffect), or why the scan does not count it. */
  effect: string;
}

/** What silencing each layer did to one question, as the scan whose failure set the reach probe
 *  `reachKey` defines counts it (the core's scanRole and silencingEffect): the question screen and
 *  the Results screen's scan agree by construction. */
export function silencingEffects(q: QuestionView, reachKey: string | undefined): SilencingEffectRow[] {
  const silencing = q.records.find((r) => r.probe === INTERVENTION);
  if (!silencing) return [];
  const role = reachKey === undefined ? null : scanRole(q.records, reachKey);
  const reach = q.records.find((r) => r.probe_key === reachKey);
  const outside = reach ? `unreachable under ${titleOf(reach.probe_spec)}` : 'not probed for reachability';
  return silencing.attempts.map((a) => ({
    layers: a.silence,
    extracted: a.extracted,
    effect: silencingEffect(role, a.correct) ?? (a.correct ? `correct (not in the failure set: ${outside})` : 'still wrong'),
  }));
}

// ------------------------------------------------------------------ routes

export interface UsageCell {
  position: number;
  layer: number;
  count: number;
}

/** How often each layer runs at each route position, over the correct attempts of route probes
 *  whose route is known. */
export function layerUsage(records: readonly QuestionRecord[]): UsageCell[] {
  const counts = new Map<string, UsageCell>();
  for (const r of records) {
    if (!drawsRoutes(r.probe)) continue;
    for (const a of r.attempts) {
      if (!a.correct || a.route === null) continue;
      a.route.forEach((layer, position) => {
        const key = `${position}:${layer}`;
        const c = counts.get(key);
        if (c) c.count++;
        else counts.set(key, { position, layer, count: 1 });
      });
    }
  }
  return [...counts.values()].sort((a, b) => a.position - b.position || a.layer - b.layer);
}

/** Layers of the run's model: as its manifest states them (manifestNumLayers), else one past the
 *  highest layer seen in a known route or silence set. */
export function numLayersOf(manifest: RunManifest, records: readonly QuestionRecord[]): number {
  const stated = manifestNumLayers(manifest);
  if (stated !== null) return stated;
  let max = -1;
  for (const r of records) for (const a of r.attempts) for (const l of [...(a.route ?? []), ...a.silence]) max = Math.max(max, l);
  return max + 1;
}

// ------------------------------------------------------------------ the run header

/** "1" when every seeded probe shares one seed, else "random routes 1, sampling 2"; "—" when none. */
export function probeSeeds(probes: readonly ProbeSpec[]): string {
  const seeded = probes.flatMap((p) => {
    const seed = seedOfSpec(p);
    return seed === null ? [] : [{ p, seed }];
  });
  if (seeded.length === 0) return '—';
  const seeds = new Set(seeded.map((x) => x.seed));
  return seeds.size === 1 ? String(seeded[0].seed) : seeded.map((x) => `${titleOf(x.p)} ${x.seed}`).join(', ');
}

export const IMPORTED_UNKNOWN = 'imported, condition unknown';

// ------------------------------------------------------------------ checkpoints (audit core: compareRecords)

export interface ProbePair {
  label: string;
  keyA: string;
  keyB: string;
}

/** Reach probes both runs hold, paired by their label (probe and MCTS preset), in A's order. */
export function sharedProbes(a: readonly QuestionRecord[], b: readonly QuestionRecord[]): ProbePair[] {
  const keys = (rs: readonly QuestionRecord[]) => {
    const m = new Map<string, string>();
    for (const r of rs) if (isReach(r) && !m.has(titleOf(r.probe_spec))) m.set(titleOf(r.probe_spec), r.probe_key);
    return m;
  };
  const kb = keys(b);
  return [...keys(a)].filter(([label]) => kb.has(label)).map(([label, keyA]) => ({ label, keyA, keyB: kb.get(label)! }));
}

export type RunComparison = { cmp: CheckpointComparison; labels: { A: string; B: string } } | { refused: string };

/** Two runs compared on one reach probe, or why they cannot be: an imported run's condition is
 *  unknown, conditions differ (the fields are named), no probe in common, or the core refuses. */
export function compareRuns(a: StoredRun, b: StoredRun, pair: ProbePair | undefined): RunComparison {
  for (const [name, run] of [['A', a], ['B', b]] as const) {
    if (run.manifest.condition === null) return { refused: `Run ${name} is ${IMPORTED_UNKNOWN}: a comparison needs both runs under one known condition.` };
  }
  const diff = conditionDiff(a.manifest.condition, b.manifest.condition);
  if (diff.length) {
    const fields = diff.map(conditionFieldLabel);
    return { refused: `The runs were audited under different conditions: ${fields.join(', ')} ${fields.length === 1 ? 'differs' : 'differ'}. A comparison needs one condition.` };
  }
  if (!pair) return { refused: 'The runs share no reachability probe (random routes, MCTS or sampling of the same kind).' };
  const specA = a.records.find((r) => r.probe_key === pair.keyA)?.probe_spec;
  const specB = b.records.find((r) => r.probe_key === pair.keyB)?.probe_spec;
  const specDiff = specA && specB ? probeSpecDiffText(specA, specB) : [];
  if (specDiff.length) {
    return { refused: `The runs were probed differently: ${specDiff.join('; ')} ${specDiff.length === 1 ? 'differs' : 'differ'}. A comparison needs the same probe spec (the probe seed aside).` };
  }
  try {
    const cmp = compareRecords(a.records, b.records, { probeKeyA: pair.keyA, probeKeyB: pair.keyB });
    if (cmp.n === 0) return { refused: 'No question was audited in both runs (same doc_id and doc_hash).' };
    let labels = { A: runLabel(a, pair.keyA), B: runLabel(b, pair.keyB) };
    if (labels.A === labels.B) labels = { A: `${labels.A} · run ${a.manifest.id}`, B: `${labels.B} · run ${b.manifest.id}` };
    return { cmp, labels };
  } catch (e) {
    if (e instanceof AuditError) return { refused: `${e.message}.` };
    throw e;
  }
}

/** "Qwen/Qwen2.5-0.5B@main · f32 · random routes ×16 · blocks · probe seed 1 · question seed 1". */
export function runLabel(run: StoredRun, probeKey: string): string {
  const m = run.manifest;
  const spec = run.records.find((r) => r.probe_key === probeKey)?.probe_spec;
  const dtype = m.engine?.dtype ?? m.condition?.engineDtype ?? 'dtype unknown';
  const seed = spec ? seedOfSpec(spec) : null;
  const probe = spec ? `${probeSpecText(spec)}${seed !== null ? ` · probe seed ${seed}` : ''}` : 'no probe';
  const qs = m.task.question_seed === undefined ? '' : ` · question seed ${m.task.question_seed}`;
  return `${modelLabel(m.model)} · ${dtype} · ${probe}${qs}`;
}

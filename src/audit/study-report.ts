// The study's findings report (F1, F2, F3) from executed runs' records only, with the audit core's
// own definitions (summarize, compareProbes, compareRecords, scanFromRecords), never a second
// implementation. Each setting report keeps every registry metric of each probe's summary
// (metrics/registry.ts); the plan and the runs it asks for are study.ts's.

import { compareProbes, compareRecords, guidanceComparisons, type CheckpointComparison, type ProbeComparison } from './compare';
import { AuditError } from './errors';
import type { Metric } from './metrics/metric';
import { METRICS, metricValue, reportKey } from './metrics/registry';
import { GOLD_MINUS_DECOY } from './metrics/reach';
import type { MlpSilencingSpec } from './probes/mlp-silencing';
import { INTERVENTION, isDeployment, isIntervention, presetOfSpec, probeOf, routeSpaceOfSpec, UNIFORM_BASELINE } from './probes/registry';
import { withSelectorPicks } from './selectors';
import { failureSet, scanFromRecords, type LayerRepair, type SilencingScanResult } from './silencing';
import { pairedDelta, type PairedDelta } from './stats';
import { planKey, plannedRuns, probeLabel, scanProbe, studySettings, type NormalizedPlan, type StudySetting } from './study-plan';
import { summarize } from './summary';
import type { AuditSummary, ProbeName, ProbeSpec, QuestionRecord } from './types';
import { MIN_HELD_OUT_FAILURES } from './verdict';


/** One executed run of a study: the records a single audit stored. `label` is the probe label, or
 *  "mlp-silencing" for a scan run. */
export interface StudyRunResult {
  model: string;
  task: string;
  label: string;
  run_key: string;
  records: QuestionRecord[];
}

export type { PairedDelta } from './stats';

export interface SettingReport {
  model: string;
  task: string;
  run_keys: string[];
  questions: number;
  realized: number;
  reachable: Record<string, number>;
  /** cover@τ per probe (metrics/cover.ts COVER_TAU): questions whose attempts are correct at least a share τ of the time. */
  cover: Record<string, number>;
  ceiling: Record<string, number>;
  /** reachable and ceiling against the decoy answer (decoy.ts), per probe; null without decoys. */
  reachable_decoy: Record<string, number | null>;
  ceiling_decoy: Record<string, number | null>;
  /** Gold − decoy reach per probe, paired over the questions (decoy.ts goldMinusDecoy); null
   *  without decoys. A probe whose interval does not exclude 0 upwards is indistinguishable from
   *  producing many answers. */
  gold_minus_decoy: Record<string, PairedDelta | null>;
  /** Mean attempts made per question, per probe. */
  attempts: Record<string, number>;
  /** Random routes − each MCTS probe, reachable at matched attempts (same route space's random
   *  probe when the plan has it, else the first random probe). */
  random_minus_structured: Record<
    string,
    PairedDelta & {
      random: string;
      /** The route spaces compared: the search's own (CoLa's search runs in "cola" whatever the
       *  label's space) and the uniform routes'. */
      space: string;
      random_space: string;
      /** The search's preset: "cola" or "program-selection". */
      preset: string;
      matched_attempts: number;
      random_reachable: number;
      structured_reachable: number;
      /** Both against the decoy answer, at the same matched attempts (null without decoys). */
      random_reachable_decoy: number | null;
      structured_reachable_decoy: number | null;
      /** The MCTS run's depth-matched walks − MCTS, at matched attempts; null when the run has none
       *  (an earlier version's run). */
      depth_matched: (PairedDelta & { matched_attempts: number; walks_reachable: number; walks_reachable_decoy: number | null; walks_gold_minus_decoy: PairedDelta | null; depth_profile: number[] }) | null;
    }
  >;
  selectors: Record<string, Record<string, { accuracy: number; blind: boolean; retained_gain: number | null; retained_gain_ci: { lo: number; hi: number } | null; retained_gain_reason: string | null; retained_gain_note: string }>>;
}

export interface ScanCase {
  model: string;
  task: string;
  run_keys: string[];
  /** The probe whose reachability defines the failure set. */
  probe: string;
  /** "case": a layer's held-out repair rate is reported; "no-case": fewer than
   *  MIN_HELD_OUT_FAILURES held-out failures (verdict.ts), so no rate and no layer; "no-failures":
   *  the failure set is empty (nothing to repair). */
  status: 'case' | 'no-case' | 'no-failures';
  failures: number;
  /** null unless status is "case", or when no layer repairs an identification failure. */
  layer: number | null;
  identification: number;
  /** Held-out failures judged. */
  evaluated: number;
  repaired: number;
  /** Held-out repair rate and its Wilson interval; null unless status is "case" with a layer. */
  rate: number | null;
  ci: { lo: number; hi: number } | null;
  collateral: number;
  realized: number;
  in_sample: LayerRepair[];
}

export interface PairReport {
  base: string;
  trained: string;
  task: string;
  run_keys: { base: string[]; trained: string[] };
  questions: number;
  deployed_delta: number;
  deployed_ci: { lo: number; hi: number };
  deployed_mcnemar_p: number;
  /** The ceiling Δ under the plan's first probe. */
  ceiling_probe: string;
  ceiling_delta: number;
  ceiling_ci: { lo: number; hi: number };
  /** The ceiling Δ under each probe, routes and sampling apart, with the ceilings against the
   *  decoy answer and its question transitions (base state → trained state: realized /
   *  reachable-only / unreachable). */
  ceilings: Record<string, PairedDelta & { base: number; trained: number; base_decoy: number | null; trained_decoy: number | null; beyond_decoy: CheckpointComparison['ceiling_beyond_decoy']; transitions: Record<string, Record<string, number>> }>;
  base_realized: number;
  trained_realized: number;
  /** The question transitions under ceiling_probe (as in ceilings[ceiling_probe]). */
  transitions: Record<string, Record<string, number>>;
}

export interface StudyReport {
  plan_key: string;
  /** The plan as run, every default filled in (normalizePlan reads it back as the same plan). */
  plan: NormalizedPlan;
  name: string;
  settings: SettingReport[];
  f1: {
    settings: number;
    /** (setting, MCTS probe) comparisons made. */
    comparisons: number;
    /** Settings where random routes' point estimate is at least every MCTS probe's there (before
     *  intervals: what the findings support is verdict.ts studyVerdicts). */
    random_ge_structured: number;
    /** Comparisons where random ≥ structured (point estimates). */
    comparisons_random_ge: number;
    /** The same with the depth-matched walks as the random side: comparisons made, and where the
     *  walks reach at least as much as the search. */
    depth_matched: { comparisons: number; random_ge: number };
  };
  f2: { cases: ScanCase[] };
  f3: { pairs: PairReport[] };
  /** Runs the plan asks for that the results lack (a shard's report, or an unfinished study). */
  missing: string[];
}

/** A metric's values per probe label in a setting report (the map under its report key); none in a
 *  report stored before the metric was added. */
export const settingMetric = (s: SettingReport, m: Metric): Record<string, unknown> | undefined => (s as unknown as Record<string, Record<string, unknown>>)[reportKey(m)];

/** The roles the findings compare, each read from what the probes declare (probes/probe.ts): F1
 *  each `guided` search (sawGold) against the `uniform` baseline (uniformBaseline; the same route
 *  space's where the plan has it) and against its own walks (`walksOf`: dependsOn); F2 the
 *  `intervention` (role) over the failure set of the plan's scan probe; F3 the `studied` probe of
 *  each run (not deployment, not a baseline riding along) across a checkpoint pair. No finding
 *  names a probe or a preset. */
const ROLES = {
  studied: (r: QuestionRecord) => !isDeployment(r) && !probeOf(r).baselineOf,
  guided: (p: ProbeName) => probeOf(p).sawGold,
  uniform: (p: ProbeName) => p === UNIFORM_BASELINE,
  walksOf: (r: QuestionRecord, searchKey: string) => probeOf(r).dependsOn?.(r.probe_spec) === searchKey,
  intervention: (r: QuestionRecord) => isIntervention(r),
};

/** The probe a study run is about (an MCTS run also holds its depth-matched baseline). */
const mainProbeKey = (run: StudyRunResult) => run.records.find(ROLES.studied)!.probe_key;

/** The spec of a run's records of probe key `key`. */
const specOfKey = (run: StudyRunResult, key: string): ProbeSpec => run.records.find((x) => x.probe_key === key)!.probe_spec;

/** The route space a spec draws from ("blocks", "neighborhood", "cola"); null for a probe without one. */
const spaceOf = (spec: ProbeSpec): string | null => routeSpaceOfSpec(spec)?.kind ?? null;

/** Which run a result answers: setting and label. */
const runId = (model: string, task: string, label: string) => JSON.stringify([model, task, label]);

/** The findings from executed runs only. */
export async function studyReport(plan: NormalizedPlan, results: readonly StudyRunResult[]): Promise<StudyReport> {
  const byRun = new Map(results.map((r) => [runId(r.model, r.task, r.label), r]));
  const missing = plannedRuns(plan)
    .filter(({ setting, label }) => !byRun.has(runId(setting.model, setting.task, label)))
    .map(({ setting, label }) => `${setting.model} · ${setting.task} · ${label}`);
  const get = (s: StudySetting, label: string) => byRun.get(runId(s.model, s.task, label));

  const settings: SettingReport[] = [];
  const f1Flags: boolean[] = [];
  let comparisons = 0;
  let comparisonsRandomGe = 0;
  let walkComparisons = 0;
  let walksGe = 0;
  for (const s of studySettings(plan)) {
    const runs = plan.probes.map((p) => ({ label: probeLabel(p), probe: p, run: get(s, probeLabel(p)) })).filter((x) => x.run);
    if (runs.length === 0) continue;
    const report = { model: s.model, task: s.task, run_keys: runs.map((x) => x.run!.run_key), questions: 0, realized: 0, ...Object.fromEntries(METRICS.map((m) => [reportKey(m), {}])), random_minus_structured: {}, selectors: {} } as SettingReport;
    const sums = new Map<string, AuditSummary>();
    for (const { label, run } of runs) {
      // the plan's selectors picked at read time: a reused record stored without picks answers too
      const sum = summarize(withSelectorPicks(run!.records, plan.selectors));
      sums.set(label, sum);
      const p = sum.probes.find((x) => x.probe_key === mainProbeKey(run!))!;
      report.questions = sum.n;
      report.realized = sum.realized;
      for (const m of METRICS) settingMetric(report, m)![label] = metricValue(p, m);
      if (p.selectors) report.selectors[label] = Object.fromEntries(Object.entries(p.selectors).map(([k, v]) => [k, { accuracy: v.accuracy, blind: v.blind, retained_gain: v.retained_gain, retained_gain_ci: v.retained_gain_ci, retained_gain_reason: v.retained_gain_reason, retained_gain_note: v.retained_gain_note }]));
    }
    const randoms = runs.filter((x) => ROLES.uniform(x.probe.probe));
    const flags: boolean[] = [];
    for (const m of runs.filter((x) => ROLES.guided(x.probe.probe))) {
      const r = randoms.find((x) => x.probe.space === m.probe.space) ?? randoms[0];
      if (!r) continue;
      const mk = mainProbeKey(m.run!);
      const rk = mainProbeKey(r.run!);
      const cmp: ProbeComparison = compareProbes([...r.run!.records, ...m.run!.records], rk, mk);
      const walks = guidanceComparisons(m.run!.records)[0]?.depth_matched ?? null;
      const walkRecord = m.run!.records.find((x) => ROLES.walksOf(x, mk));
      const walkSummary = walkRecord && sums.get(m.label)!.probes.find((x) => x.probe_key === walkRecord.probe_key);
      const spec = specOfKey(m.run!, mk);
      report.random_minus_structured[m.label] = {
        ...pairedDelta(cmp.diff),
        random: r.label,
        space: spaceOf(spec) ?? m.probe.space,
        random_space: spaceOf(specOfKey(r.run!, rk)) ?? r.probe.space,
        preset: presetOfSpec(spec),
        matched_attempts: cmp.matched_attempts,
        random_reachable: cmp.a.reachable,
        structured_reachable: cmp.b.reachable,
        random_reachable_decoy: cmp.a.reachable_decoy,
        structured_reachable_decoy: cmp.b.reachable_decoy,
        depth_matched: walks && {
          ...pairedDelta(walks.diff),
          matched_attempts: walks.matched_attempts,
          walks_reachable: walks.a.reachable,
          walks_reachable_decoy: walks.a.reachable_decoy,
          walks_gold_minus_decoy: ((walkSummary && metricValue(walkSummary, GOLD_MINUS_DECOY)) ?? null) as PairedDelta | null,
          depth_profile: walkRecord?.depth_profile ?? [],
        },
      };
      comparisons++;
      const ge = cmp.diff.diff >= 0;
      if (ge) comparisonsRandomGe++;
      flags.push(ge);
      if (walks) {
        walkComparisons++;
        if (walks.diff.diff >= 0) walksGe++;
      }
    }
    if (flags.length) f1Flags.push(flags.every(Boolean));
    settings.push(report);
  }

  const cases: ScanCase[] = [];
  if (plan.scan) {
    const label = scanProbe(plan);
    for (const s of studySettings(plan)) {
      const defining = get(s, label);
      const silencing = get(s, INTERVENTION);
      if (!defining || !silencing) continue;
      cases.push(scanCase(s, label, defining, silencing, plan.split_seed));
    }
  }

  const pairs: PairReport[] = [];
  for (const { base, trained } of plan.pairs) {
    for (const task of plan.tasks) {
      const sides = plan.probes
        .map((p) => ({ label: probeLabel(p), a: get({ model: base, task }, probeLabel(p)), b: get({ model: trained, task }, probeLabel(p)) }))
        .filter((x) => x.a && x.b);
      if (sides.length === 0) continue;
      const cmps = sides.map((x) => ({ label: x.label, a: x.a!, b: x.b!, cmp: compareRecords(x.a!.records, x.b!.records, { probeKeyA: mainProbeKey(x.a!), probeKeyB: mainProbeKey(x.b!) }) }));
      const first = cmps[0].cmp;
      pairs.push({
        base,
        trained,
        task,
        run_keys: { base: cmps.map((c) => c.a.run_key), trained: cmps.map((c) => c.b.run_key) },
        questions: first.n,
        deployed_delta: first.deployed.diff,
        deployed_ci: { lo: first.deployed.ci.lo, hi: first.deployed.ci.hi },
        deployed_mcnemar_p: first.deployed.mcnemar.exactP,
        ceiling_probe: cmps[0].label,
        ceiling_delta: first.ceiling.diff,
        ceiling_ci: { lo: first.ceiling.ci.lo, hi: first.ceiling.ci.hi },
        ceilings: Object.fromEntries(cmps.map((c) => [c.label, { ...pairedDelta(c.cmp.ceiling), base: c.cmp.a.ceiling, trained: c.cmp.b.ceiling, base_decoy: c.cmp.a.ceiling_decoy, trained_decoy: c.cmp.b.ceiling_decoy, beyond_decoy: c.cmp.ceiling_beyond_decoy, transitions: c.cmp.transitions }])),
        base_realized: first.a.realized,
        trained_realized: first.b.realized,
        transitions: first.transitions,
      });
    }
  }

  return {
    plan_key: await planKey(plan),
    plan,
    name: plan.name,
    settings,
    f1: {
      settings: f1Flags.length,
      comparisons,
      random_ge_structured: f1Flags.filter(Boolean).length,
      comparisons_random_ge: comparisonsRandomGe,
      depth_matched: { comparisons: walkComparisons, random_ge: walksGe },
    },
    f2: { cases },
    f3: { pairs },
    missing,
  };
}

/** A setting's F2 case: "no-failures" when its failure set is empty (its scan run then needs no
 *  records), "no-case" below MIN_HELD_OUT_FAILURES held-out failures, else the held-out repair. */
export function scanCase(s: StudySetting, probe: string, defining: StudyRunResult, silencing: StudyRunResult, splitSeed: number): ScanCase {
  const base = { model: s.model, task: s.task, run_keys: [defining.run_key, silencing.run_key], probe };
  const set = failureSet(defining.records);
  if (set.failures.length === 0) {
    return { ...base, status: 'no-failures', failures: 0, layer: null, identification: 0, evaluated: 0, repaired: 0, rate: null, ci: null, collateral: 0, realized: set.realized.length, in_sample: [] };
  }
  const scan: SilencingScanResult = scanOf(defining, silencing, splitSeed);
  const ev = scan.evaluation;
  const counts = { failures: scan.failure_set.length, identification: scan.identification.doc_ids.length, evaluated: ev.failures, realized: ev.realized, in_sample: scan.in_sample.layers };
  if (ev.failures < MIN_HELD_OUT_FAILURES) return { ...base, ...counts, status: 'no-case', layer: null, repaired: 0, rate: null, ci: null, collateral: 0 };
  const layer = scan.identification.layer;
  return { ...base, ...counts, status: 'case', layer, repaired: ev.repaired, rate: layer === null ? null : ev.rate, ci: layer === null ? null : ev.ci, collateral: ev.collateral };
}

/** The out-of-sample scan of a setting from its defining run and its silencing run. */
export function scanOf(defining: StudyRunResult, silencing: StudyRunResult, splitSeed: number): SilencingScanResult {
  const set = failureSet(defining.records);
  const scanned = silencing.records.filter(ROLES.intervention);
  if (scanned.length === 0) throw new AuditError('bad-input', `the scan run of ${defining.model} · ${defining.task} holds no ${INTERVENTION} records`);
  const spec = scanned[0].probe_spec as MlpSilencingSpec;
  return scanFromRecords({
    probe_key: set.probe_key,
    silencing_probe_key: scanned[0].probe_key,
    condition_key: set.condition_key,
    failureIds: set.failures.map((d) => d.id),
    realizedIds: set.realized.map((d) => d.id),
    silencing: scanned,
    layers: spec.layers,
    splitSeed,
  });
}

// Paired comparisons, one implementation for the CLI, the app and exports:
//   - two checkpoints under one condition (base vs trained): realized, reachable and ceiling (and
//     reachable and ceiling against the decoy answer) on the questions both audited (matched by
//     doc_id and doc_hash), the deployed Δ and ceiling Δ with paired 95% intervals and McNemar's
//     test, and the question transition table A → B;
//   - two probes of one run (random routes vs MCTS): reachable (and against the decoy) at matched
//     attempts, their paired difference, interval and McNemar's test.
// A probe that stopped early (its space exhausted) is compared at the attempts both sides made.

import type { Engine, ModelInfo } from '../engine/types';
import { ceilingDecoy, decoyCount, decoyWithin } from './decoy';
import { AuditError } from './errors';
import { isDeployment, isReach, presetOfSpec, probeOf } from './probes/registry';
import { runAudit, type AuditOptions, type AuditResult } from './run';
import { bootstrapMean, mean, pairedDifference, type McNemar, type PairedDifference } from './stats';
import type { Condition, ProbeSpec, QuestionRecord } from './types';

export type QuestionState = 'realized' | 'reachable-only' | 'unreachable';
export const QUESTION_STATES: QuestionState[] = ['realized', 'reachable-only', 'unreachable'];

/** Dotted paths of the condition fields that differ ("decoding.kind", "fewShot.n"); a null
 *  (unknown, imported) condition differs from everything, itself included. */
export function conditionDiff(a: Condition | null, b: Condition | null): string[] {
  if (a === null || b === null) return ['condition (unknown for an imported run)'];
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string) => {
    const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (obj(x) && obj(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) walk(x[k], y[k], path ? `${path}.${k}` : k);
    } else if (JSON.stringify(x) !== JSON.stringify(y)) {
      out.push(path);
    }
  };
  walk(a, b, '');
  return out;
}

/** A question's identity across runs: its id and its content hash. */
const pairKey = (r: Pick<QuestionRecord, 'doc_id' | 'doc_hash'>) => `${r.doc_id}\u0000${r.doc_hash}`;

/** Reachable within the first k attempts. */
const reachedWithin = (r: QuestionRecord, k: number) => r.first_success !== null && r.first_success < k;

export interface StateOptions {
  /** The reach probe judged; default: every reach probe of the question. */
  probeKey?: string;
  /** Attempts judged; default: each record's budget (its own reachable@B). */
  within?: number;
}

/** Whether one question's reach records (StateOptions) hold a correct attempt. */
export function reachedBy(records: readonly QuestionRecord[], o: StateOptions = {}): boolean {
  const judged = records.filter((r) => (o.probeKey === undefined ? isReach(r) : r.probe_key === o.probeKey));
  return judged.some((r) => (o.within === undefined ? r.reachable === true : reachedWithin(r, o.within)));
}

/** One question's state from its records: realized (its deployment record), else reachable-only
 *  when reachedBy, else unreachable. */
export function questionState(records: readonly QuestionRecord[], o: StateOptions = {}): QuestionState {
  if (records.some((r) => isDeployment(r) && r.realized === true)) return 'realized';
  return reachedBy(records, o) ? 'reachable-only' : 'unreachable';
}

/** Share of questions hitting the decoy; null when one has no decoy (0 over no questions). */
const decoyRate = (hits: (boolean | null)[]) => {
  const c = decoyCount(hits);
  return c === null ? null : hits.length ? c / hits.length : 0;
};

/** Attempts both records can be judged on: the budget, or fewer when one side stopped early. */
const matchedAttempts = (x: QuestionRecord, y: QuestionRecord) => Math.min(x.budget, y.budget, x.attempts.length, y.attempts.length);

export interface SideSummary {
  model_fingerprint: string;
  probe_key: string;
  realized: number;
  reachable: number;
  ceiling: number;
  /** reachable and ceiling against the decoy answer (decoy.ts), at the same matched attempts; null
   *  when a question has no decoy. */
  reachable_decoy: number | null;
  ceiling_decoy: number | null;
}

export interface CheckpointComparison {
  condition_key: string;
  /** Questions with deployment and probe records on both sides (same doc_id and doc_hash). */
  n: number;
  /** Mean attempts per question at which reachability is compared. */
  matched_attempts: number;
  a: SideSummary;
  b: SideSummary;
  /** B − A (the decoy differences null where a side has no decoy rate). */
  diff: { realized: number; reachable: number; ceiling: number; reachable_decoy: number | null; ceiling_decoy: number | null };
  /** The ceiling Δ minus the ceiling Δ against the decoy answer: per question (B − A against the
   *  gold) − (B − A against the decoy), its mean with a 95% bootstrap interval (stats.ts
   *  bootstrapMean); null when a question has no decoy. Above 0: the ceiling moved towards the gold
   *  answer by more than it moved towards a wrong one. */
  ceiling_beyond_decoy: { diff: number; ci: { lo: number; hi: number } } | null;
  /** Deployed Δ (realized, B − A) and ceiling Δ, paired over the shared questions. */
  deployed: PairedDifference;
  ceiling: PairedDifference;
  /** transitions[from A][to B] = number of questions. */
  transitions: Record<QuestionState, Record<QuestionState, number>>;
  mcnemar: { realized: McNemar; ceiling: McNemar };
  questions: { doc_id: string; a: QuestionState; b: QuestionState }[];
}

interface Side {
  fingerprint: string;
  probe_key: string;
  deployment: Map<string, QuestionRecord>;
  probe: Map<string, QuestionRecord>;
}

function side(records: readonly QuestionRecord[], probeKey: string | undefined, name: string): Side {
  const fps = [...new Set(records.map((r) => r.model_fingerprint))];
  if (fps.length !== 1) throw new AuditError('bad-input', `checkpoint ${name}: records come from ${fps.length} models; compare one model per side`);
  const keys = [...new Set(records.filter((r) => !isDeployment(r)).map((r) => r.probe_key))];
  const pk = probeKey ?? (keys.length === 1 ? keys[0] : undefined);
  if (pk === undefined) throw new AuditError('bad-input', `checkpoint ${name}: ${keys.length ? `several probes (${keys.join(', ')}); name one` : 'no probe records'}`);
  return {
    fingerprint: fps[0],
    probe_key: pk,
    deployment: new Map(records.filter(isDeployment).map((r) => [pairKey(r), r])),
    probe: new Map(records.filter((r) => r.probe_key === pk).map((r) => [pairKey(r), r])),
  };
}

/** The fields of two probe specs that differ (probe, preset, space, budget, sampling and draw
 *  options), by name; the seed is not among them (other draws of the same probe compare). A
 *  differing route space is named "space" whatever part of it differs. */
export function probeSpecDiff(a: ProbeSpec, b: ProbeSpec): string[] {
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => k !== 'seed').sort();
  const at = (s: ProbeSpec, k: string) => JSON.stringify((s as Record<string, unknown>)[k] ?? null);
  return fields.filter((k) => at(a, k) !== at(b, k));
}

/** Each differing spec field with both sides' values ("space (A: blocks, B: neighborhood)"). */
export function probeSpecDiffText(a: ProbeSpec, b: ProbeSpec): string[] {
  return probeSpecDiff(a, b).map((k) => specFieldText(a, b, k));
}

function specFieldText(a: ProbeSpec, b: ProbeSpec, k: string): string {
  const v = (s: ProbeSpec) => {
    const x = (s as Record<string, unknown>)[k];
    if (x === undefined) return 'none';
    if (k === 'space' && typeof x === 'object' && x !== null && 'kind' in x) return String(x.kind);
    return typeof x === 'object' ? JSON.stringify(x) : String(x);
  };
  const [va, vb] = [v(a), v(b)];
  return va === vb ? `${k} (its settings differ)` : `${k} (A: ${va}, B: ${vb})`;
}

export function compareRecords(a: readonly QuestionRecord[], b: readonly QuestionRecord[], o: { probeKeyA?: string; probeKeyB?: string } = {}): CheckpointComparison {
  const keys = [...new Set([...a, ...b].map((r) => r.condition_key))];
  if (keys.length !== 1) {
    throw new AuditError('bad-input', `the two checkpoints were audited under ${keys.length} conditions (${keys.map((k) => k.slice(0, 12)).join(', ')}); a comparison needs one condition`);
  }
  const A = side(a, o.probeKeyA, 'A');
  const B = side(b, o.probeKeyB, 'B');
  const ids = [...A.deployment.keys()].filter((k) => A.probe.has(k) && B.deployment.has(k) && B.probe.has(k));
  if (ids.length) {
    const sa = A.probe.get(ids[0])!.probe_spec;
    const sb = B.probe.get(ids[0])!.probe_spec;
    const diff = probeSpecDiffText(sa, sb);
    if (diff.length) {
      throw new AuditError('bad-input', `the two checkpoints were probed differently: ${diff.join('; ')} ${diff.length === 1 ? 'differs' : 'differ'}; a ceiling comparison needs the same probe spec (seeds aside)`);
    }
  }
  const realized = (S: Side, k: string) => S.deployment.get(k)!.realized === true;
  const ks = new Map(ids.map((k) => [k, matchedAttempts(A.probe.get(k)!, B.probe.get(k)!)]));
  const reachable = (S: Side, k: string) => reachedWithin(S.probe.get(k)!, ks.get(k)!);
  const ceiling = (S: Side, k: string) => realized(S, k) || reachable(S, k);
  const stateOf = (S: Side, k: string) => questionState([S.deployment.get(k)!, S.probe.get(k)!], { probeKey: S.probe_key, within: ks.get(k)! });

  const transitions = Object.fromEntries(QUESTION_STATES.map((f) => [f, Object.fromEntries(QUESTION_STATES.map((t) => [t, 0]))])) as CheckpointComparison['transitions'];
  const questions = ids.map((k) => ({ doc_id: A.deployment.get(k)!.doc_id, a: stateOf(A, k), b: stateOf(B, k) }));
  for (const q of questions) transitions[q.a][q.b]++;
  const rate = (f: (k: string) => boolean) => (ids.length ? ids.filter(f).length / ids.length : 0);
  const reachableDecoy = (S: Side, k: string) => decoyWithin(S.probe.get(k)!, ks.get(k)!);
  const ceilingDecoyOf = (S: Side, k: string) => ceilingDecoy(S.deployment.get(k)!, { reachable_decoy: reachableDecoy(S, k) });
  const sum = (S: Side): SideSummary => ({
    model_fingerprint: S.fingerprint,
    probe_key: S.probe_key,
    realized: rate((k) => realized(S, k)),
    reachable: rate((k) => reachable(S, k)),
    ceiling: rate((k) => ceiling(S, k)),
    reachable_decoy: decoyRate(ids.map((k) => reachableDecoy(S, k))),
    ceiling_decoy: decoyRate(ids.map((k) => ceilingDecoyOf(S, k))),
  });
  const sa = sum(A);
  const sb = sum(B);
  const deployed = pairedDifference(ids.map((k) => realized(A, k)), ids.map((k) => realized(B, k)));
  const ceil = pairedDifference(ids.map((k) => ceiling(A, k)), ids.map((k) => ceiling(B, k)));
  const beyond = ids.map((k) => {
    const [da, db] = [ceilingDecoyOf(A, k), ceilingDecoyOf(B, k)];
    return da === null || db === null ? null : +ceiling(B, k) - +ceiling(A, k) - (+db - +da);
  });
  const beyondDecoy = beyond.includes(null) ? null : bootstrapMean(beyond as number[]);
  return {
    condition_key: keys[0],
    n: ids.length,
    matched_attempts: ids.length ? [...ks.values()].reduce((s, x) => s + x, 0) / ids.length : 0,
    a: sa,
    b: sb,
    diff: {
      realized: sb.realized - sa.realized,
      reachable: sb.reachable - sa.reachable,
      ceiling: sb.ceiling - sa.ceiling,
      reachable_decoy: sa.reachable_decoy === null || sb.reachable_decoy === null ? null : sb.reachable_decoy - sa.reachable_decoy,
      ceiling_decoy: sa.ceiling_decoy === null || sb.ceiling_decoy === null ? null : sb.ceiling_decoy - sa.ceiling_decoy,
    },
    ceiling_beyond_decoy: beyondDecoy && { diff: beyondDecoy.mean, ci: beyondDecoy.ci },
    deployed,
    ceiling: ceil,
    transitions,
    mcnemar: { realized: deployed.mcnemar, ceiling: ceil.mcnemar },
    questions,
  };
}

export interface ProbeComparison {
  condition_key: string;
  /** Questions both probes answered (same doc_id and doc_hash). */
  n: number;
  /** reachable and, against the decoy answer (decoy.ts), reachable_decoy (null when a question has
   *  no decoy), both at matched attempts. */
  a: { probe_key: string; reachable: number; reachable_decoy: number | null; mean_attempts: number };
  b: { probe_key: string; reachable: number; reachable_decoy: number | null; mean_attempts: number };
  /** Mean attempts per question at which both are judged (min of the two, ≤ the budgets). */
  matched_attempts: number;
  /** reachable(a) − reachable(b) at matched attempts, paired over questions. */
  diff: PairedDifference;
}

/** Probe a vs probe b of one condition (e.g. random routes − MCTS), at matched attempts. */
export function compareProbes(records: readonly QuestionRecord[], probeKeyA: string, probeKeyB: string): ProbeComparison {
  const keys = [...new Set(records.filter((r) => r.probe_key === probeKeyA || r.probe_key === probeKeyB).map((r) => r.condition_key))];
  if (keys.length > 1) throw new AuditError('bad-input', `the two probes ran under ${keys.length} conditions; a probe comparison needs one`);
  const byKey = (pk: string) => new Map(records.filter((r) => r.probe_key === pk).map((r) => [pairKey(r), r]));
  const A = byKey(probeKeyA);
  const B = byKey(probeKeyB);
  if (A.size === 0 || B.size === 0) throw new AuditError('bad-input', `no records of probe ${A.size === 0 ? probeKeyA : probeKeyB}`);
  const ids = [...A.keys()].filter((k) => B.has(k));
  const ks = ids.map((k) => matchedAttempts(A.get(k)!, B.get(k)!));
  const ra = ids.map((k, i) => reachedWithin(A.get(k)!, ks[i]));
  const rb = ids.map((k, i) => reachedWithin(B.get(k)!, ks[i]));
  return {
    condition_key: keys[0],
    n: ids.length,
    a: { probe_key: probeKeyA, reachable: mean(ra.map(Number)), reachable_decoy: decoyRate(ids.map((k, i) => decoyWithin(A.get(k)!, ks[i]))), mean_attempts: mean(ids.map((k) => A.get(k)!.attempts.length)) },
    b: { probe_key: probeKeyB, reachable: mean(rb.map(Number)), reachable_decoy: decoyRate(ids.map((k, i) => decoyWithin(B.get(k)!, ks[i]))), mean_attempts: mean(ids.map((k) => B.get(k)!.attempts.length)) },
    matched_attempts: mean(ks),
    diff: pairedDifference(rb, ra),
  };
}

/** What an MCTS preset's guidance adds over chance: random − MCTS at matched attempts for both
 *  baselines of one run, uniform random routes (over their own space) and the depth-matched walks
 *  of that preset (its own actions at its own depths); null where the run lacks that baseline. */
export interface GuidanceComparison {
  preset: string;
  mcts_probe_key: string;
  uniform: ProbeComparison | null;
  depth_matched: ProbeComparison | null;
}

export function guidanceComparisons(records: readonly QuestionRecord[]): GuidanceComparison[] {
  const firstOf = (pred: (r: QuestionRecord) => boolean) => records.find(pred)?.probe_key ?? null;
  const uniform = firstOf((r) => probeOf(r).uniformBaseline === true);
  const guidedKeys = [...new Set(records.filter((r) => probeOf(r).sawGold).map((r) => r.probe_key))];
  return guidedKeys.map((mk) => {
    const spec = records.find((r) => r.probe_key === mk)!.probe_spec;
    const walks = firstOf((r) => probeOf(r).dependsOn?.(r.probe_spec) === mk);
    return {
      preset: presetOfSpec(spec),
      mcts_probe_key: mk,
      uniform: uniform ? compareProbes(records, uniform, mk) : null,
      depth_matched: walks ? compareProbes(records, walks, mk) : null,
    };
  });
}

export interface CompareOptions extends Omit<AuditOptions, 'probes'> {
  /** Deployment plus one reachability probe; built per model (route spaces depend on its layers). */
  probes: (info: ModelInfo) => ProbeSpec[];
}

/** Audits both checkpoints under the same condition, then compares. */
export async function compareCheckpoints(engineA: Engine, engineB: Engine, o: CompareOptions): Promise<{ a: AuditResult; b: AuditResult; comparison: CheckpointComparison }> {
  const run = async (e: Engine, name: string) => {
    const info = await e.info();
    if (!info) throw new AuditError('bad-input', `checkpoint ${name}: the engine has no model loaded`);
    const probes = o.probes(info);
    if (!probes.some(isDeployment) || probes.filter((p) => !isDeployment(p)).length !== 1) {
      throw new AuditError('bad-input', 'a checkpoint comparison runs deployment and exactly one reachability probe');
    }
    return runAudit(e, { ...o, probes });
  };
  const a = await run(engineA, 'A');
  const b = await run(engineB, 'B');
  return { a, b, comparison: compareRecords(a.records, b.records) };
}

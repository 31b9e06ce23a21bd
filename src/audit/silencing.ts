// The MLP-silencing scan, out of sample by default.
//
// Failure set: questions reachable and not realized in a stored run (same model, same condition —
// refused otherwise). Both the failure set and the realized set are split in two halves with a
// seed. On the identification half, every layer's MLP is silenced under the deployment procedure
// and the layer repairing most failures (ties: less collateral on that half's realized questions,
// then the lower layer) is identified; on the evaluation half only that layer is judged: repaired
// failures (rate with a Wilson 95% interval) and collateral (realized questions of that half that
// break). The per-layer table over the whole failure set stays, labelled in-sample: a layer chosen
// and scored on the same questions overstates its repair rate.

import type { Engine } from '../engine/types';
import { createPrng, shuffled } from '../util/prng';
import { conditionKey, probeKey } from './condition';
import { AuditError } from './errors';
import { silencingLayers } from './probes/mlp-silencing';
import { isDeployment, isReach } from './probes/registry';
import { runAudit, type AuditOptions, type AuditResult } from './run';
import { seedFor } from './seeds';
import { wilson, type Interval } from './stats';
import type { Doc, ProbeSpec, QuestionRecord } from './types';

export interface LayerRepair {
  layer: number;
  /** Failure-set questions realized with this layer's MLP silenced. */
  repaired: number;
  failures: number;
  repair: Interval;
  /** Realized questions that break with this layer's MLP silenced. */
  collateral: number;
  realized: number;
  collateralRate: Interval;
}

export interface SilencingIdentification {
  /** Failure questions the layer was identified on. */
  doc_ids: string[];
  /** Realized questions whose collateral broke ties. */
  realized_ids: string[];
  /** The identified layer; null when no layer repaired any failure of this half. */
  layer: number | null;
  /** Its repairs on this half (in-sample for this half). */
  repaired: number;
}

export interface SilencingEvaluation {
  /** Failure questions the identified layer is judged on (never used to identify it). */
  doc_ids: string[];
  failures: number;
  repaired: number;
  rate: number;
  ci: { lo: number; hi: number };
  /** Realized questions of the evaluation half that break under the identified layer. */
  collateral: number;
  realized: number;
  realized_ids: string[];
}

export interface SilencingScanResult {
  /** The reachability probe whose records define the failure set. */
  probe_key: string;
  /** The mlp-silencing probe the scan ran. */
  silencing_probe_key: string;
  condition_key: string;
  failure_set: string[];
  realized_set: string[];
  split_seed: number;
  identification: SilencingIdentification;
  evaluation: SilencingEvaluation;
  /** Every layer over the whole failure set; the best layer here is chosen and scored on the same
   *  questions, so its rate is in-sample. */
  in_sample: { layers: LayerRepair[]; best: LayerRepair | null };
}

/** Failure and realized sets of a stored run: deployment records plus one probe's records. Only
 *  questions with both records are judged (a question not yet probed is neither). */
export function failureSet(records: readonly QuestionRecord[], probeKey?: string): { probe_key: string; condition_key: string; failures: Doc[]; realized: Doc[] } {
  const conditions = [...new Set(records.map((r) => r.condition_key))];
  if (conditions.length > 1) throw new AuditError('bad-input', `the stored records come from ${conditions.length} conditions; a failure set is defined under one`);
  const keys = [...new Set(records.filter(isReach).map((r) => r.probe_key))];
  const pk = probeKey ?? (keys.length === 1 ? keys[0] : undefined);
  if (pk === undefined) {
    throw new AuditError('bad-input', keys.length ? `the run holds several probes (${keys.join(', ')}); name the probe key whose reachability defines the failure set` : 'the run holds no probe records, so nothing is reachable');
  }
  const probed = records.filter((r) => r.probe_key === pk);
  const reachable = new Set(probed.filter((r) => r.reachable).map((r) => r.doc_id));
  const withProbe = new Set(probed.map((r) => r.doc_id));
  const deployment = records.filter((r) => isDeployment(r) && withProbe.has(r.doc_id));
  if (deployment.length === 0) throw new AuditError('bad-input', `the run holds no deployment records of the questions probe ${pk} answered, so realized is unknown`);
  return {
    probe_key: pk,
    condition_key: conditions[0],
    failures: deployment.filter((r) => !r.realized && reachable.has(r.doc_id)).map((r) => r.doc),
    realized: deployment.filter((r) => r.realized).map((r) => r.doc),
  };
}

/** Where one question stands in the scan whose failure set probe `probeKey` defines, by
 *  failureSet's rule over its records: a failure (reachable, not realized), realized, or null
 *  (neither: unreachable under that probe, or not judged yet). */
export function scanRole(records: readonly QuestionRecord[], probeKey: string): 'failure' | 'realized' | null {
  const own = records.filter((r) => isDeployment(r) || r.probe_key === probeKey);
  if (!own.some(isDeployment) || !own.some((r) => r.probe_key === probeKey)) return null;
  const set = failureSet(own, probeKey);
  return set.failures.length ? 'failure' : set.realized.length ? 'realized' : null;
}

/** What silencing one layer did to a question of that role, as the scan counts it: a failure
 *  repaired (or still wrong), a realized question kept (or broken: collateral); null outside both
 *  sets, where the scan counts nothing. */
export function silencingEffect(role: 'failure' | 'realized' | null, correct: boolean): 'repaired' | 'still wrong' | 'kept' | 'broken' | null {
  if (role === 'failure') return correct ? 'repaired' : 'still wrong';
  if (role === 'realized') return correct ? 'kept' : 'broken';
  return null;
}

const better = (a: LayerRepair, b: LayerRepair) => a.repaired > b.repaired || (a.repaired === b.repaired && (a.collateral < b.collateral || (a.collateral === b.collateral && a.layer < b.layer)));

function bestOf(rows: LayerRepair[]): LayerRepair | null {
  let best: LayerRepair | null = null;
  for (const r of rows) if (!best || better(r, best)) best = r;
  return best;
}

/** The first ceil(n/2) of a seeded shuffle identify, the rest evaluate. */
function halves(ids: readonly string[], seed: number, set: 'failures' | 'realized'): [string[], string[]] {
  const order = shuffled(ids, createPrng(seedFor(seed, 'silencing-split', set)));
  const k = Math.ceil(order.length / 2);
  return [order.slice(0, k), order.slice(k)];
}

export interface ScanInput {
  probe_key: string;
  silencing_probe_key: string;
  condition_key: string;
  failureIds: readonly string[];
  realizedIds: readonly string[];
  /** mlp-silencing records (one attempt per silenced layer) of every failure and realized question. */
  silencing: readonly QuestionRecord[];
  layers: readonly number[];
  splitSeed: number;
}

/** The scan's statistics from mlp-silencing records. */
export function scanFromRecords(s: ScanInput): SilencingScanResult {
  const byDoc = new Map(s.silencing.map((r) => [r.doc_id, r]));
  const correct = (id: string, layer: number) => {
    const r = byDoc.get(id);
    if (!r) throw new AuditError('bad-input', `no mlp-silencing record for question ${id}`);
    const a = r.attempts.find((x) => x.silence.length === 1 && x.silence[0] === layer);
    if (!a) throw new AuditError('bad-input', `the mlp-silencing record of ${id} has no attempt silencing layer ${layer}`);
    return a.correct;
  };
  const row = (layer: number, fails: readonly string[], realized: readonly string[]): LayerRepair => {
    const repaired = fails.filter((id) => correct(id, layer)).length;
    const collateral = realized.filter((id) => !correct(id, layer)).length;
    return { layer, repaired, failures: fails.length, repair: wilson(repaired, fails.length), collateral, realized: realized.length, collateralRate: wilson(collateral, realized.length) };
  };
  const inSample = s.layers.map((l) => row(l, s.failureIds, s.realizedIds));
  const [idFail, evFail] = halves(s.failureIds, s.splitSeed, 'failures');
  const [idReal, evReal] = halves(s.realizedIds, s.splitSeed, 'realized');
  const pick = bestOf(s.layers.map((l) => row(l, idFail, idReal)));
  const layer = pick && pick.repaired > 0 ? pick.layer : null;
  const repaired = layer === null ? 0 : evFail.filter((id) => correct(id, layer)).length;
  const collateral = layer === null ? 0 : evReal.filter((id) => !correct(id, layer)).length;
  const w = wilson(repaired, evFail.length);
  return {
    probe_key: s.probe_key,
    silencing_probe_key: s.silencing_probe_key,
    condition_key: s.condition_key,
    failure_set: [...s.failureIds],
    realized_set: [...s.realizedIds],
    split_seed: s.splitSeed,
    identification: { doc_ids: idFail, realized_ids: idReal, layer, repaired: layer === null ? 0 : pick!.repaired },
    evaluation: { doc_ids: evFail, failures: evFail.length, repaired, rate: w.rate, ci: { lo: w.lo, hi: w.hi }, collateral, realized: evReal.length, realized_ids: evReal },
    in_sample: { layers: inSample, best: s.failureIds.length ? bestOf(inSample) : null },
  };
}

export interface SilencingScanOptions extends Omit<AuditOptions, 'probes' | 'docs' | 'questions' | 'selectors'> {
  /** The stored run: deployment records and a reachability probe's records, same condition. */
  records: QuestionRecord[];
  /** Which probe's reachability defines the failure set (default: the run's only probe). */
  probeKey?: string;
  /** Layers to scan (default: every layer). */
  layers?: number[];
  /** Seed of the identification / evaluation split (default 0). */
  splitSeed?: number;
}

export interface SilencingScan {
  scan: SilencingScanResult;
  /** The mlp-silencing records computed (or, through skip, not recomputed) for the scan. */
  audit: AuditResult;
}

export async function silencingScan(engine: Engine, o: SilencingScanOptions): Promise<SilencingScan> {
  const info = await engine.info();
  if (!info) throw new AuditError('bad-input', 'the engine has no model loaded');
  const { probe_key, condition_key, failures, realized } = failureSet(o.records, o.probeKey);
  if (o.records.some((r) => r.model_fingerprint !== info.fingerprint)) throw new AuditError('bad-input', 'the stored run is of another model than the one loaded');
  const scanKey = await conditionKey(o.condition);
  if (scanKey !== condition_key) {
    throw new AuditError('bad-input', `the stored run was audited under condition ${condition_key.slice(0, 12)}; the scan would run under ${scanKey.slice(0, 12)}: a failure set is only meaningful under its own condition`);
  }
  const layers = o.layers ?? Array.from({ length: info.numLayers }, (_, i) => i);
  const spec: ProbeSpec = silencingLayers(layers);
  const silencing_probe_key = await probeKey(spec);
  const docs = [...failures, ...realized];
  const audit = await runAudit(engine, { ...o, probes: [spec], docs });
  // the scan's prompts must be the stored run's: same template, same few-shot draws
  const storedPrompt = new Map(o.records.filter(isDeployment).map((r) => [r.doc_id, r.prompt_hash]));
  const changed = audit.questions.find((q) => storedPrompt.get(q.doc_id) !== q.prompt_hash);
  if (changed) throw new AuditError('bad-input', `question ${changed.doc_id} gets another prompt than in the stored run (template or few-shot pool changed)`);
  // units skipped because already stored come from the run's own records of this very probe
  const stored = new Map(o.records.filter((r) => r.probe_key === silencing_probe_key).map((r) => [r.doc_id, r]));
  const silencing = docs.map((d) => audit.records.find((r) => r.doc_id === d.id) ?? stored.get(d.id)).filter((r): r is QuestionRecord => !!r);
  const scan = scanFromRecords({
    probe_key,
    silencing_probe_key,
    condition_key,
    failureIds: failures.map((d) => d.id),
    realizedIds: realized.map((d) => d.id),
    silencing,
    layers,
    splitSeed: o.splitSeed ?? 0,
  });
  return { scan, audit };
}

// The MLP-silencing scan. Failure set: questions reachable and not realized in a stored run. For
// every layer, silence its MLP under the deployment procedure on the failure set and on the
// realized questions: repaired count and rate (Wilson 95%), collateral damage on realized
// questions, the best layer; optionally identify the layer on one half of the failure set and
// report its rate on the other half.

import type { Engine } from '../engine/types';
import { createPrng, shuffled } from '../util/prng';
import { AuditError } from './errors';
import { runAudit, type AuditOptions, type AuditResult } from './run';
import { wilson, type Interval } from './stats';
import type { Doc, QuestionRecord } from './types';

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

export interface SplitHalf {
  seed: number;
  identify: string[];
  evaluate: string[];
  /** Best layer on the identify half. */
  layer: number | null;
  /** Its repairs on the evaluate half. */
  repaired: number;
  repair: Interval;
}

export interface SilencingScanResult {
  probe_key: string;
  failure_set: string[];
  realized_set: string[];
  layers: LayerRepair[];
  /** Most repairs; ties: less collateral, then the lower layer. null when the failure set is empty. */
  best: LayerRepair | null;
  split_half?: SplitHalf;
}

/** Failure and realized sets of a stored run: deployment records plus one probe's records. */
export function failureSet(records: readonly QuestionRecord[], probeKey?: string): { probe_key: string; failures: Doc[]; realized: Doc[] } {
  const keys = [...new Set(records.filter((r) => r.probe !== 'deployment').map((r) => r.probe_key))];
  const pk = probeKey ?? (keys.length === 1 ? keys[0] : undefined);
  if (pk === undefined) {
    throw new AuditError('bad-input', keys.length ? `the run holds several probes (${keys.join(', ')}); name the probe key whose reachability defines the failure set` : 'the run holds no probe records, so nothing is reachable');
  }
  const reachable = new Set(records.filter((r) => r.probe_key === pk && r.reachable).map((r) => r.doc_id));
  const deployment = records.filter((r) => r.probe === 'deployment');
  if (deployment.length === 0) throw new AuditError('bad-input', 'the run holds no deployment records, so realized is unknown');
  return {
    probe_key: pk,
    failures: deployment.filter((r) => !r.realized && reachable.has(r.doc_id)).map((r) => r.doc),
    realized: deployment.filter((r) => r.realized).map((r) => r.doc),
  };
}

const better = (a: LayerRepair, b: LayerRepair) => a.repaired > b.repaired || (a.repaired === b.repaired && (a.collateral < b.collateral || (a.collateral === b.collateral && a.layer < b.layer)));

function bestOf(rows: LayerRepair[]): LayerRepair | null {
  let best: LayerRepair | null = null;
  for (const r of rows) if (!best || better(r, best)) best = r;
  return best;
}

/** The scan's statistics from mlp-silencing records (one attempt per silenced layer). */
export function scanFromRecords(
  probe_key: string,
  failureIds: readonly string[],
  realizedIds: readonly string[],
  silencing: readonly QuestionRecord[],
  layers: readonly number[],
  splitHalf?: { seed: number },
): SilencingScanResult {
  const byDoc = new Map(silencing.map((r) => [r.doc_id, r]));
  const correct = (id: string, layer: number) => {
    const r = byDoc.get(id);
    if (!r) throw new AuditError('bad-input', `no mlp-silencing record for question ${id}`);
    const a = r.attempts.find((x) => x.silence.length === 1 && x.silence[0] === layer);
    if (!a) throw new AuditError('bad-input', `the mlp-silencing record of ${id} has no attempt silencing layer ${layer}`);
    return a.correct;
  };
  const row = (layer: number, fails: readonly string[]): LayerRepair => {
    const repaired = fails.filter((id) => correct(id, layer)).length;
    const collateral = realizedIds.filter((id) => !correct(id, layer)).length;
    return {
      layer,
      repaired,
      failures: fails.length,
      repair: wilson(repaired, fails.length),
      collateral,
      realized: realizedIds.length,
      collateralRate: wilson(collateral, realizedIds.length),
    };
  };
  const rows = layers.map((l) => row(l, failureIds));
  const out: SilencingScanResult = {
    probe_key,
    failure_set: [...failureIds],
    realized_set: [...realizedIds],
    layers: rows,
    best: failureIds.length ? bestOf(rows) : null,
  };
  if (splitHalf) {
    const order = shuffled(failureIds, createPrng(splitHalf.seed));
    const identify = order.slice(0, Math.ceil(order.length / 2));
    const evaluate = order.slice(identify.length);
    const pick = identify.length ? bestOf(layers.map((l) => row(l, identify))) : null;
    const repaired = pick ? evaluate.filter((id) => correct(id, pick.layer)).length : 0;
    out.split_half = { seed: splitHalf.seed, identify, evaluate, layer: pick?.layer ?? null, repaired, repair: wilson(repaired, evaluate.length) };
  }
  return out;
}

export interface SilencingScanOptions extends Omit<AuditOptions, 'probes' | 'docs' | 'questions' | 'selectors'> {
  /** The stored run: deployment records and a reachability probe's records, same condition. */
  records: QuestionRecord[];
  /** Which probe's reachability defines the failure set (default: the run's only probe). */
  probeKey?: string;
  /** Layers to scan (default: every layer). */
  layers?: number[];
  splitHalf?: { seed: number };
}

export interface SilencingScan {
  scan: SilencingScanResult;
  /** The mlp-silencing records computed (or, through skip, not recomputed) for the scan. */
  audit: AuditResult;
}

export async function silencingScan(engine: Engine, o: SilencingScanOptions): Promise<SilencingScan> {
  const info = await engine.info();
  if (!info) throw new AuditError('bad-input', 'the engine has no model loaded');
  const { probe_key, failures, realized } = failureSet(o.records, o.probeKey);
  if (o.records.some((r) => r.model_fingerprint !== info.fingerprint)) throw new AuditError('bad-input', 'the stored run is of another model than the one loaded');
  const layers = o.layers ?? Array.from({ length: info.numLayers }, (_, i) => i);
  const audit = await runAudit(engine, { ...o, probes: [{ probe: 'mlp-silencing', layers }], docs: [...failures, ...realized] });
  const stored = new Map(o.records.filter((r) => r.probe === 'mlp-silencing').map((r) => [r.doc_id, r]));
  // units skipped because already stored come from the run's own records
  const silencing = [...failures, ...realized].map((d) => audit.records.find((r) => r.doc_id === d.id) ?? stored.get(d.id)).filter((r): r is QuestionRecord => !!r);
  const scan = scanFromRecords(
    probe_key,
    failures.map((d) => d.id),
    realized.map((d) => d.id),
    silencing,
    layers,
    o.splitHalf,
  );
  return { scan, audit };
}

// The one rule that turns a probe's attempts on a question into its record: the audit driver, the
// lm-evaluation-harness import and legacy upgrades all build records here.

import { decoyControl, decoyFields } from './decoy';
import { INVALID } from './graders';
import { isDeployment, probeOf } from './probes/registry';
import type { Attempt, Condition, Doc, ProbeSpec, QuestionRecord, StopReason } from './types';

/** What a record says of its attempts: how it stopped, its first success, realized (deployment) or
 *  reachable within the charged budget (probes), and how many answers could not be extracted. */
export function recordOutcome(spec: ProbeSpec, attempts: readonly Attempt[], budget: number) {
  const deployed = isDeployment(spec);
  const first = attempts.find((a) => a.correct);
  const first_success = first ? first.index : null;
  return {
    stop_reason: (deployed ? null : attempts.length >= budget ? 'budget' : 'space-exhausted') as StopReason | null,
    first_success,
    realized: deployed ? attempts[0]?.correct === true : null,
    reachable: deployed ? null : first_success !== null && first_success < budget,
    invalid: attempts.filter((a) => a.extracted === INVALID).length,
  };
}

export interface RecordInput {
  question: { doc: Doc; prompt: string; doc_hash: string; prompt_hash: string };
  spec: ProbeSpec;
  probe_key: string;
  condition_key: string;
  model_fingerprint: string;
  task_id: string;
  task_version: number;
  attempts: Attempt[];
  /** The condition the attempts ran under (it fixes the decoy); null when unknown (an import). */
  condition: Condition | null;
  /** The probe's own fields (Probe.recordFields), selector picks. */
  extra?: Partial<QuestionRecord>;
}

export function makeRecord(i: RecordInput): QuestionRecord {
  const { question: q, spec, attempts } = i;
  const probe = probeOf(spec);
  const budget = probe.budget(spec);
  const { invalid, ...outcome } = recordOutcome(spec, attempts, budget);
  return {
    doc_id: q.doc.id,
    doc: q.doc,
    target: q.doc.target,
    arguments: { prompt: q.prompt },
    resps: attempts.map((a) => a.response),
    filtered_resps: attempts.map((a) => a.extracted),
    doc_hash: q.doc_hash,
    prompt_hash: q.prompt_hash,
    probe: spec.probe,
    probe_key: i.probe_key,
    probe_spec: spec,
    condition_key: i.condition_key,
    model_fingerprint: i.model_fingerprint,
    task_id: i.task_id,
    task_version: i.task_version,
    attempts,
    budget,
    ...outcome,
    ...decoyFields({ probe: spec.probe, doc: q.doc, attempts, budget }, decoyControl(i.condition)),
    invalid,
    selection_saw_gold: probe.sawGold,
    ...i.extra,
  };
}

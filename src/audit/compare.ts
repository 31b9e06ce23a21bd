// Checkpoint comparison: two models under one condition → realized, reachable and ceiling for
// each, their differences (B − A), the per-question transition table A → B over
// realized / reachable-only / unreachable, and McNemar's test on realized and on the ceiling.

import type { Engine, ModelInfo } from '../engine/types';
import { AuditError } from './errors';
import { runAudit, type AuditOptions, type AuditResult } from './run';
import { mcnemar, type McNemar } from './stats';
import type { ProbeSpec, QuestionRecord } from './types';

export type QuestionState = 'realized' | 'reachable-only' | 'unreachable';
export const QUESTION_STATES: QuestionState[] = ['realized', 'reachable-only', 'unreachable'];

export interface SideSummary {
  model_fingerprint: string;
  probe_key: string;
  realized: number;
  reachable: number;
  ceiling: number;
}

export interface CheckpointComparison {
  condition_key: string;
  /** Questions with deployment and probe records on both sides. */
  n: number;
  a: SideSummary;
  b: SideSummary;
  /** B − A. */
  diff: { realized: number; reachable: number; ceiling: number };
  /** transitions[from A][to B] = number of questions. */
  transitions: Record<QuestionState, Record<QuestionState, number>>;
  mcnemar: { realized: McNemar; ceiling: McNemar };
  questions: { doc_id: string; a: QuestionState; b: QuestionState }[];
}

interface Side {
  fingerprint: string;
  probe_key: string;
  realized: Map<string, boolean>;
  reachable: Map<string, boolean>;
}

function side(records: readonly QuestionRecord[], probeKey: string | undefined, name: string): Side {
  const fps = [...new Set(records.map((r) => r.model_fingerprint))];
  if (fps.length !== 1) throw new AuditError('bad-input', `checkpoint ${name}: records come from ${fps.length} models; compare one model per side`);
  const keys = [...new Set(records.filter((r) => r.probe !== 'deployment').map((r) => r.probe_key))];
  const pk = probeKey ?? (keys.length === 1 ? keys[0] : undefined);
  if (pk === undefined) throw new AuditError('bad-input', `checkpoint ${name}: ${keys.length ? `several probes (${keys.join(', ')}); name one` : 'no probe records'}`);
  return {
    fingerprint: fps[0],
    probe_key: pk,
    realized: new Map(records.filter((r) => r.probe === 'deployment').map((r) => [r.doc_id, r.realized === true])),
    reachable: new Map(records.filter((r) => r.probe_key === pk).map((r) => [r.doc_id, r.reachable === true])),
  };
}

function stateOf(s: Side, id: string): QuestionState {
  return s.realized.get(id) ? 'realized' : s.reachable.get(id) ? 'reachable-only' : 'unreachable';
}

export function compareRecords(a: readonly QuestionRecord[], b: readonly QuestionRecord[], o: { probeKeyA?: string; probeKeyB?: string } = {}): CheckpointComparison {
  const keys = new Set([...a, ...b].map((r) => r.condition_key));
  if (keys.size !== 1) throw new AuditError('bad-input', `the two checkpoints were audited under ${keys.size} conditions; a comparison needs one`);
  const A = side(a, o.probeKeyA, 'A');
  const B = side(b, o.probeKeyB, 'B');
  const ids = [...A.realized.keys()].filter((id) => A.reachable.has(id) && B.realized.has(id) && B.reachable.has(id));
  const transitions = Object.fromEntries(QUESTION_STATES.map((f) => [f, Object.fromEntries(QUESTION_STATES.map((t) => [t, 0]))])) as CheckpointComparison['transitions'];
  const questions = ids.map((doc_id) => ({ doc_id, a: stateOf(A, doc_id), b: stateOf(B, doc_id) }));
  for (const q of questions) transitions[q.a][q.b]++;
  const rate = (f: (id: string) => boolean) => (ids.length ? ids.filter(f).length / ids.length : 0);
  const sum = (S: Side, pk: string): SideSummary => ({
    model_fingerprint: S.fingerprint,
    probe_key: pk,
    realized: rate((id) => !!S.realized.get(id)),
    reachable: rate((id) => !!S.reachable.get(id)),
    ceiling: rate((id) => !!S.realized.get(id) || !!S.reachable.get(id)),
  });
  const sa = sum(A, A.probe_key);
  const sb = sum(B, B.probe_key);
  const discord = (f: (S: Side, id: string) => boolean) => mcnemar(ids.filter((id) => f(A, id) && !f(B, id)).length, ids.filter((id) => !f(A, id) && f(B, id)).length);
  return {
    condition_key: [...keys][0],
    n: ids.length,
    a: sa,
    b: sb,
    diff: { realized: sb.realized - sa.realized, reachable: sb.reachable - sa.reachable, ceiling: sb.ceiling - sa.ceiling },
    transitions,
    mcnemar: {
      realized: discord((S, id) => !!S.realized.get(id)),
      ceiling: discord((S, id) => !!S.realized.get(id) || !!S.reachable.get(id)),
    },
    questions,
  };
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
    if (!probes.some((p) => p.probe === 'deployment') || probes.filter((p) => p.probe !== 'deployment').length !== 1) {
      throw new AuditError('bad-input', 'a checkpoint comparison runs deployment and exactly one reachability probe');
    }
    return runAudit(e, { ...o, probes });
  };
  const a = await run(engineA, 'A');
  const b = await run(engineB, 'B');
  return { a, b, comparison: compareRecords(a.records, b.records) };
}

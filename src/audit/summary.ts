// Reachability@k curves and audit summaries from records alone.

import { AuditError } from './errors';
import { INVALID } from './graders';
import { computeMetrics } from './metrics/registry';
import { CEILING } from './metrics/reach';
import { isDeployment, probeOf } from './probes/registry';
import { mean, passAtK, RETAINED_GAIN_BOOTSTRAP, retainedGainEstimate, retainedGainNote, type RetainedGainEstimate } from './stats';
import type { AuditSummary, ProbeSummary, QuestionRecord, SelectorSummary } from './types';

/** Reachability@k for k = 1..budget for one record, by its probe's curve (Probe.curve): the
 *  unbiased estimator over exchangeable attempts (uniform draws, sampling, silencing); the
 *  empirical first-success curve over ordered ones (a search, depth-matched walks). With fewer attempts than
 *  budget (a space or tree used up), values past the last attempt stay at its value. */
export function reachCurve(r: QuestionRecord): number[] {
  const B = r.budget;
  const out: number[] = [];
  if (probeOf(r).curve === 'first-success') {
    for (let k = 1; k <= B; k++) out.push(r.first_success !== null && r.first_success < k ? 1 : 0);
    return out;
  }
  const n = Math.min(r.attempts.length, B);
  const c = r.attempts.slice(0, n).filter((a) => a.correct).length;
  for (let k = 1; k <= B; k++) out.push(n === 0 ? 0 : passAtK(n, c, Math.min(k, n)));
  return out;
}

/** Realized from deployment records, and per probe key: every metric of the registry
 *  (metrics/registry.ts), realized over the questions joined by doc_id with deployment, reach@k,
 *  and each selector's accuracy, blindness and retained gain (over the joined questions). Records
 *  must share one condition key. */
export function summarize(records: readonly QuestionRecord[]): AuditSummary {
  const keys = new Set(records.map((r) => r.condition_key));
  if (keys.size > 1) throw new AuditError('bad-input', `summarize: records come from ${keys.size} conditions; summarize one condition at a time`);
  const deployment = records.filter(isDeployment);
  const realizedBy = new Map(deployment.map((r) => [r.doc_id, r.realized === true]));
  const deploymentBy = new Map(deployment.map((r) => [r.doc_id, r]));
  const byProbe = new Map<string, QuestionRecord[]>();
  for (const r of records) if (!isDeployment(r)) byProbe.set(r.probe_key, [...(byProbe.get(r.probe_key) ?? []), r]);
  const probes: ProbeSummary[] = [];
  for (const [probe_key, rs] of byProbe) {
    const budget = Math.max(...rs.map((r) => r.budget));
    const curves = rs.map(reachCurve);
    const reach_at_k = Array.from({ length: budget }, (_, k) => mean(curves.map((c) => c[Math.min(k, c.length - 1)] ?? 0)));
    const joined = rs.filter((r) => realizedBy.has(r.doc_id));
    const metrics = [...computeMetrics({ records: rs, joined, deployment: deploymentBy })];
    const counts = {
      ...Object.fromEntries(metrics.flatMap(([id, m]) => (m.count === undefined ? [] : [[id, m.count]]))),
      realized: joined.filter((r) => realizedBy.get(r.doc_id)).length,
    } as ProbeSummary['counts'];
    const selectorNames = [...new Set(rs.flatMap((r) => Object.keys(r.selectors ?? {})))].sort();
    const s = {
      probe: rs[0].probe,
      probe_key,
      n: rs.length,
      budget,
      ...Object.fromEntries(metrics.map(([id, m]) => [id, m.value])),
      realized: joined.length ? counts.realized / joined.length : 0,
      joined: joined.length,
      counts,
      reach_at_k,
      space_exhausted: rs.filter((r) => r.stop_reason === 'space-exhausted').length,
      invalid: rs.reduce((s, r) => s + r.invalid, 0),
      selection_saw_gold: rs.some((r) => r.selection_saw_gold),
      ...probeOf(rs[0]).summaryFields?.(rs),
    } as ProbeSummary;
    if (selectorNames.length) {
      const pool = joined.length ? joined : rs;
      s.selectors = Object.fromEntries(
        selectorNames.map((name): [string, SelectorSummary] => {
          const picked = pool.filter((r) => r.selectors?.[name]);
          const correct = picked.filter((r) => r.selectors![name].correct).length;
          const accuracy = picked.length ? correct / picked.length : 0;
          const blind = picked.every((r) => r.selectors![name].blind);
          const gain = retainedGainOf(name, pool, picked.length, realizedBy);
          const note = retainedGainNote(gain.value, gain.reason, { selector: correct, realized: counts.realized, gained: counts[CEILING.id]! - counts.realized });
          return [name, { accuracy, blind, retained_gain: gain.value, retained_gain_ci: gain.ci, retained_gain_reason: gain.reason, retained_gain_note: note, n: picked.length, correct }];
        }),
      );
    }
    probes.push(s);
  }
  return {
    condition_key: records[0]?.condition_key ?? '',
    n: deployment.length,
    realized: mean(deployment.map((r) => (r.realized ? 1 : 0))),
    realized_count: deployment.filter((r) => r.realized).length,
    invalid: deployment.filter((r) => r.attempts[0]?.extracted === INVALID).length,
    probes,
  };
}

/** A selector's retained gain over the probe's questions joined with deployment (stats.ts
 *  retainedGainEstimate), or the reason there is none. */
function retainedGainOf(name: string, pool: readonly QuestionRecord[], picked: number, realizedBy: ReadonlyMap<string, boolean>): RetainedGainEstimate {
  const none = (reason: string): RetainedGainEstimate => ({ value: null, reason, ci: null, ...RETAINED_GAIN_BOOTSTRAP });
  if (!pool.some((r) => realizedBy.has(r.doc_id))) return none('no deployment record to compare against');
  if (picked !== pool.length) return none(`the selector picked on ${picked} of ${pool.length} questions`);
  return retainedGainEstimate(pool.map((r) => ({ realized: realizedBy.get(r.doc_id) === true, reachable: r.reachable === true, selector: r.selectors![name].correct })));
}

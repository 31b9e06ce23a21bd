// A run's numbers said in plain words, for the top of Results and for notes under its tables.
// Counts only (no rounding): every count comes from the audit core's summary.

import type { AuditSummary } from '../../audit';
import { metricCount } from '../../audit/metrics/registry';
import { CEILING, REACHABLE } from '../../audit/metrics/reach';
import type { RunProbe } from './analysis';

const UNIT: Record<string, string> = { sampling: 'samples' };

/** "16 of 20 questions were answered correctly as deployed; 4 more were reachable with random routes
 *  within 100 attempts, 4 more with sampling within 64 samples." (the built-in model's default audit) */
export function resultsSentence(s: AuditSummary, probes: readonly RunProbe[]): string {
  const head = `${s.realized_count} of ${s.n} question${s.n === 1 ? ' was' : 's were'} answered correctly as deployed`;
  const parts = probes.map(({ summary: p, label }, i) => {
    // ceiling@B is counted over every joined question, so its count is never null
    const more = metricCount(p, CEILING)! - p.counts.realized;
    const within = `within ${p.budget} ${(Object.hasOwn(UNIT, p.probe) ? UNIT[p.probe] : 'attempts')}`;
    return i === 0 ? `${more} more ${more === 1 ? 'was' : 'were'} reachable with ${label} ${within}` : `${more} more with ${label} ${within}`;
  });
  return `${[head, parts.join(', ')].filter(Boolean).join('; ')}.`;
}

/** Why ceiling@B equals reachable@B for a probe, when it does: every realized question was reached
 *  too, or no question was realized. */
export function ceilingNotes(probes: readonly RunProbe[]): string[] {
  return probes
    .filter(({ summary: p }) => p.n === p.joined && metricCount(p, CEILING) === metricCount(p, REACHABLE))
    .map(({ summary: p, label }) =>
      p.counts.realized === 0
        ? `ceiling@${p.budget} equals reachable@${p.budget} for ${label}: no question was realized as deployed, so the ceiling is what ${label} reaches.`
        : `ceiling@${p.budget} equals reachable@${p.budget} for ${label}: every question realized as deployed was also reached by ${label}.`,
    );
}

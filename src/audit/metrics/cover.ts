// cover@τ ("Beyond pass@k", arXiv 2510.08325): unlike reachable@B, one lucky attempt among many
// does not count.

import { AuditError } from '../errors';
import type { QuestionRecord } from '../types';
import type { Metric } from './metric';

/** The share of a question's attempts that must be correct for the question to count as covered. */
export const COVER_TAU = 0.5;

/** Whether a record's attempts within its budget are correct at least a share τ of the time (no
 *  attempt: not covered). */
export function covered(r: Pick<QuestionRecord, 'attempts' | 'budget'>, tau: number = COVER_TAU): boolean {
  if (!(tau > 0 && tau <= 1)) throw new AuditError('bad-input', `cover@τ needs 0 < τ ≤ 1, got ${tau}`);
  const judged = r.attempts.slice(0, r.budget);
  return judged.length > 0 && judged.filter((a) => a.correct).length >= tau * judged.length;
}

export const COVER: Metric = {
  id: 'cover',
  term: `cover@${COVER_TAU}`,
  label: () => `cover@${COVER_TAU}`,
  definition: `cover@τ ("Beyond pass@k", arXiv 2510.08325) at τ = ${COVER_TAU}: share of questions whose attempts within the budget are correct at least a share τ of the time (metrics/cover.ts covered); one lucky attempt among many does not count.`,
  compute: (x) => {
    const k = x.records.filter((r) => covered(r)).length;
    return { value: x.records.length ? k / x.records.length : 0, count: k };
  },
  column: ` cover@${COVER_TAU}`,
  show: 'share',
  over: 'records',
};

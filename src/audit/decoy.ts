// The decoy-answer control. Each question gets a decoy: a wrong answer of the gold's kind (another
// option letter; a nearby number), fixed by the question seed and the question's id. The same
// attempts are graded again against it, with the grader's equality rule, so it costs no model
// call. reachable@B(decoy) is the rate at which a probe "reaches" a wrong answer: a gap
// reachable@B − reachable@B(decoy) near zero says the probe produces many answers rather than
// finding the right one.
//
// The question seed is the condition's fewShot.seed: the run's question seed (setup.ts
// auditCondition, the app's Setup), part of the condition key and so of every record key. The
// probes' seed plays no part, so every probe of a run is graded against the same decoy.

import { createPrng } from '../util/prng';
import { pairedDifference, type PairedDifference } from './stats';
import { isAnswer, normalizeGold } from './graders';
import { formatOf, gradedNow } from './formats/registry';
import { seedFor } from './seeds';
import { isDeployment } from './probes/registry';
import type { AnswerFormat, Condition, Doc, QuestionRecord } from './types';

/** What fixes a run's decoys: the answer format and the question seed. */
export interface DecoyControl {
  format: AnswerFormat;
  questionSeed: number;
}

export type DecoyFields = Pick<QuestionRecord, 'decoy' | 'decoy_first_success' | 'realized_decoy' | 'reachable_decoy'>;

/** Decoy fields of a record whose decoy cannot be known. */
export const NO_DECOY: DecoyFields = { decoy: null, decoy_first_success: null, realized_decoy: null, reachable_decoy: null };

/** The decoy control of a condition; null when no decoy can be graded: the condition is unknown
 *  (an imported run) or its answers were extracted by another version of its format's rules (their
 *  canonical form is not this version's). */
export function decoyControl(cond: Condition | null): DecoyControl | null {
  return cond !== null && gradedNow(cond) ? { format: cond.answerFormat, questionSeed: cond.fewShot.seed } : null;
}

/** The decoy answer of a question, in its format's canonical form; never the gold: a wrong
 *  answer of the gold's kind, as the format makes it (formats/*.ts `decoy`); null where none can
 *  be made (exact-match answers, a single option, an unreadable gold). */
export function decoyOf(doc: Pick<Doc, 'id' | 'target' | 'choices'>, format: AnswerFormat, questionSeed: number): string | null {
  const gold = canonicalGold(format, doc.target);
  if (gold === null) return null;
  const rng = createPrng(seedFor(questionSeed, 'decoy', doc.id));
  return formatOf(format).decoy(gold, doc.choices, (n) => rng.int(n));
}

/** The gold answer's canonical form; null when the gold itself cannot be read. */
function canonicalGold(format: AnswerFormat, target: string): string | null {
  try {
    return normalizeGold(format, target);
  } catch {
    return null;
  }
}

/** A record's decoy fields from its own question, attempts and budget: the first attempt whose
 *  extracted answer is the decoy; realized (deployment) or reachable within the budget (probes)
 *  against the decoy. All null when `control` is null or the question has no decoy. */
export function decoyFields(r: Pick<QuestionRecord, 'probe' | 'doc' | 'attempts' | 'budget'>, control: DecoyControl | null): DecoyFields {
  const decoy = control === null ? null : decoyOf(r.doc, control.format, control.questionSeed);
  if (control === null || decoy === null) return NO_DECOY;
  const hit = r.attempts.find((a) => isAnswer(control.format, decoy, a.extracted));
  const first = hit ? hit.index : null;
  const deployment = isDeployment(r);
  return {
    decoy,
    decoy_first_success: first,
    realized_decoy: deployment ? first === 0 : null,
    reachable_decoy: deployment ? null : first !== null && first < r.budget,
  };
}

/** The decoy among a record's first k attempts; null when the record has no decoy. */
export function decoyWithin(r: Pick<QuestionRecord, 'decoy' | 'decoy_first_success'>, k: number): boolean | null {
  return r.decoy === null ? null : r.decoy_first_success !== null && r.decoy_first_success < k;
}

/** How many questions hit the decoy; null when any has none, so that a decoy rate always counts
 *  the very questions its gold rate counts. */
export function decoyCount(hits: readonly (boolean | null)[]): number | null {
  return hits.includes(null) ? null : hits.filter(Boolean).length;
}

/** ceiling@B against the decoy for one question: its deployment attempt or one of the probe's first
 *  B attempts is the decoy; null when either record has no decoy. */
export function ceilingDecoy(deployment: Pick<QuestionRecord, 'realized_decoy'>, probe: Pick<QuestionRecord, 'reachable_decoy'>): boolean | null {
  return deployment.realized_decoy === null || probe.reachable_decoy === null ? null : deployment.realized_decoy || probe.reachable_decoy;
}

/** Gold − decoy reach over the same questions, paired question by question (stats.ts
 *  pairedDifference: Newcombe's interval, McNemar's test): how far a probe's reach of the gold answer
 *  exceeds its reach of a wrong one. null when a question has no decoy. */
export function goldMinusDecoy(hits: readonly { gold: boolean; decoy: boolean | null }[]): PairedDifference | null {
  if (hits.some((h) => h.decoy === null)) return null;
  return pairedDifference(hits.map((h) => h.decoy === true), hits.map((h) => h.gold));
}

/** Whether a probe reaches the gold answer beyond its decoy: the 95% interval of gold − decoy
 *  excludes zero upwards. A probe that does not is indistinguishable from producing many answers;
 *  null without a decoy (no control to judge by). */
export function reachesBeyondDecoy(gap: { ci: { lo: number } } | null): boolean | null {
  return gap === null ? null : gap.ci.lo > 0;
}

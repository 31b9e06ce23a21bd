// The guided walk's story, read from a finished run of the built-in model: one question the
// deployed model gets wrong, a route or a sample that reaches the right answer without reaching its
// decoy (so the probe found that answer rather than producing many), and the MLP block whose
// silencing repairs it out of sample (identified on the other half of the failure set), with what
// that silencing breaks. Every number is the audit core's (records, scanFromRecords); the walk only
// chooses which question to tell, and says in one sentence when the run holds none.

import { isReach, titleOf, type SilencingScanResult } from '../../audit';
import type { QuestionRecord } from '../../audit/types';
import { groupByQuestion, silencingOf, type QuestionView } from './analysis';

/** The walk's runs, in questions: a larger one only when the smaller holds no whole story. */
export const WALK_SIZES: readonly number[] = [20, 100];

export interface WalkReach {
  /** A route run in another order, or a sample of the deployed route. */
  kind: 'route' | 'sample';
  probe_key: string;
  /** The probe's title ("Random routes"). */
  title: string;
  route: number[];
  answer: string;
  /** 0-based attempt index of the probe's first success. */
  attempt: number;
  budget: number;
  /** The question's decoy answer, which none of the probe's attempts within its budget gave. */
  decoy: string | null;
}

export interface WalkRepair {
  layer: number;
  answer: string;
  /** Held-out failures the layer repairs, of those it was not identified on (the scan's evaluation). */
  heldOutRepaired: number;
  heldOut: number;
  /** Failures the layer was identified on. */
  identifiedOn: number;
  /** Realized questions whose answer turns wrong when this layer's MLP is silenced (scan, in-sample
   *  row: every realized question). */
  breaks: number;
  realized: number;
  /** The same over the held-out half only (the scan's evaluation): the figure's caption. */
  heldOutBreaks: number;
  heldOutRealized: number;
}

export interface Walk {
  question: QuestionView;
  reach: WalkReach;
  /** The silencing scan over the failure set of the reaching probe; null when the run has none. */
  scan: SilencingScanResult | null;
  /** The scan's identified layer repairing this question, a held-out failure; null when it does not. */
  repair: WalkRepair | null;
}

/** A reach probe's first success on the question when none of its attempts within the budget gave
 *  the decoy; null otherwise (not reached, or reached as often as a wrong answer would be). */
function reachBeyondDecoy(r: QuestionRecord): WalkReach | null {
  if (!isReach(r) || r.reachable !== true || r.reachable_decoy !== false || r.first_success === null) return null;
  const a = r.attempts.find((x) => x.index === r.first_success);
  if (!a?.route) return null;
  return { kind: a.sample === undefined ? 'route' : 'sample', probe_key: r.probe_key, title: titleOf(r.probe_spec), route: a.route, answer: a.extracted, attempt: a.index, budget: r.budget, decoy: r.decoy };
}

/** The scan's identified layer repairing `q`, when `q` is one of the held-out failures it is judged on. */
function outOfSampleRepair(q: QuestionView, scan: SilencingScanResult): WalkRepair | null {
  const { identification: id, evaluation: ev } = scan;
  if (id.layer === null || !ev.doc_ids.includes(q.doc_id)) return null;
  const fix = q.records.find((r) => r.probe_key === scan.silencing_probe_key)?.attempts.find((a) => a.silence.length === 1 && a.silence[0] === id.layer);
  if (!fix?.correct) return null;
  const row = scan.in_sample.layers.find((l) => l.layer === id.layer)!;
  return {
    layer: id.layer, answer: fix.extracted, heldOutRepaired: ev.repaired, heldOut: ev.failures, identifiedOn: id.doc_ids.length,
    breaks: row.collateral, realized: row.realized, heldOutBreaks: ev.collateral, heldOutRealized: ev.realized,
  };
}

/** The question the walk tells: wrong as deployed and reached beyond its decoy, preferring one the
 *  scan repairs out of sample, then a route over a sample, then the run's order; null when no
 *  question is both. */
export function walkOf(records: readonly QuestionRecord[]): Walk | null {
  const scans = new Map<string, SilencingScanResult | null>();
  const scanOf = (key: string) => {
    if (!scans.has(key)) {
      const view = silencingOf(records, key);
      scans.set(key, view && 'scan' in view ? view.scan : null);
    }
    return scans.get(key)!;
  };
  const score = (w: Walk) => (w.repair ? 2 : 0) + (w.reach.kind === 'route' ? 1 : 0);
  let best: Walk | null = null;
  for (const question of groupByQuestion(records)) {
    if (question.deployed === null || question.realized) continue;
    for (const r of question.records) {
      const reach = reachBeyondDecoy(r);
      if (!reach) continue;
      const scan = scanOf(reach.probe_key);
      const w: Walk = { question, reach, scan, repair: scan ? outOfSampleRepair(question, scan) : null };
      if (!best || score(w) > score(best)) best = w;
    }
  }
  return best;
}

/** Whether the walk has every step's content, so no larger run is needed. */
export const walkComplete = (w: Walk | null): boolean => w?.repair != null;

/** The one sentence the walk says when the run holds no question to tell. */
export function noWalkSentence(records: readonly QuestionRecord[]): string {
  const questions = groupByQuestion(records).filter((q) => q.deployed !== null);
  const wrong = questions.filter((q) => !q.realized).length;
  if (wrong === 0) return `The model answered ${questions.length === 1 ? 'the 1 question' : `all ${questions.length} questions`} right as deployed, so there is no failure to follow.`;
  return `Of ${questions.length} questions the model answers ${wrong} wrong as deployed, and on none of them did a random route or a sample reach the right answer without also reaching a wrong one of its kind (the decoy), so there is no failure to follow.`;
}

/** Step 4's one sentence when the scan repairs this question nowhere out of sample. */
export function noRepairSentence(w: Walk): string {
  const scan = w.scan;
  if (!scan) return `The run holds no silencing scan over the failures ${w.reach.title.toLowerCase()} reached, so no silenced MLP block can be judged here.`;
  const { identification: id, evaluation: ev } = scan;
  if (id.layer === null) return `No silenced MLP block repairs any of the ${id.doc_ids.length} failures it would be identified on, so none repairs this question out of sample.`;
  if (!ev.doc_ids.includes(w.question.doc_id)) {
    return `This question is one of the ${id.doc_ids.length} failures the scan identified layer ${id.layer} on, so a repair of it would not be out of sample; on the ${ev.failures} held-out failures that layer repairs ${ev.repaired}.`;
  }
  return `Silencing layer ${id.layer}, the MLP block identified on the other ${id.doc_ids.length} failures, does not repair this question; it repairs ${ev.repaired} of the ${ev.failures} held-out failures.`;
}

// The guided walk's story, read from a finished run of the built-in model: one question the
// deployed model gets wrong, a route that reaches the right answer, and the silenced MLP block
// that repairs it, with what silencing that block breaks among the questions it answered right.

import { INTERVENTION, isReach } from '../../audit';
import type { QuestionRecord } from '../../audit/types';
import { groupByQuestion, type QuestionView } from './analysis';

export interface WalkRoute {
  route: number[];
  answer: string;
  /** 0-based attempt index of the probe's first success. */
  attempt: number;
  budget: number;
}

export interface WalkRepair {
  layer: number;
  answer: string;
  /** Realized questions whose answer turns wrong when this layer's MLP is silenced. */
  breaks: number;
  /** Realized questions the scan silenced this layer on. */
  realized: number;
}

export interface Walk {
  question: QuestionView;
  route: WalkRoute | null;
  repair: WalkRepair | null;
}

/** The first route of a route probe that reached the gold answer, or null. */
function reachingRoute(q: QuestionView): WalkRoute | null {
  for (const r of q.records) {
    if (!isReach(r) || r.first_success === null) continue;
    const a = r.attempts.find((x) => x.index === r.first_success);
    if (a?.route) return { route: a.route, answer: a.extracted, attempt: a.index, budget: r.budget };
  }
  return null;
}

/** Silencing one layer that makes the deployed model right, with its collateral over `all`. */
function repairingLayer(q: QuestionView, all: readonly QuestionView[]): WalkRepair | null {
  const scan = q.records.find((r) => r.probe === INTERVENTION);
  const fix = scan?.attempts.find((a) => a.correct && a.silence.length === 1);
  if (!fix) return null;
  const layer = fix.silence[0];
  let breaks = 0;
  let realized = 0;
  for (const other of all) {
    if (!other.realized) continue;
    const a = other.records.find((r) => r.probe === INTERVENTION)?.attempts.find((x) => x.silence.length === 1 && x.silence[0] === layer);
    if (!a) continue;
    realized += 1;
    if (!a.correct) breaks += 1;
  }
  return { layer, answer: fix.extracted, breaks, realized };
}

/** The question the walk tells: wrong as deployed, reached by a route, repaired by silencing
 *  (failing that, the most of those it can show); null when the run holds no wrong question. */
export function walkOf(records: readonly QuestionRecord[]): Walk | null {
  const questions = groupByQuestion(records);
  const told = questions
    .filter((q) => q.deployed !== null && !q.realized)
    .map((question) => ({ question, route: reachingRoute(question), repair: repairingLayer(question, questions) }));
  const score = (w: Walk) => (w.route ? 2 : 0) + (w.repair ? 1 : 0);
  return told.reduce<Walk | null>((best, w) => (best && score(best) >= score(w) ? best : w), null);
}

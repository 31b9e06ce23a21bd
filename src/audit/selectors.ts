// Answer-blind selectors: pick one answer from a probe's attempts without the gold answer.
// A pick is answer-blind only when the attempts it picks among were chosen without the gold
// answer too. Majority and max-logprob are functions of a record's attempts, computed at read time
// (selectorPick) so that a record stored without picks answers with them; the fixed route needs
// its calibration and is stored by the audit loop (run.ts).

import { INVALID } from './graders';
import { isDeployment, probeOf } from './probes/registry';
import { routeToString } from './routes';
import type { Attempt, QuestionRecord, SelectorPick } from './types';

type Pick = Omit<SelectorPick, 'blind'>;

/** How answers are told apart in a vote: the answer format's canonical key (formats/registry.ts
 *  answerKeyOf), so that equivalent answers ("\frac12", "0.5") are one answer. */
export type AnswerKey = (extracted: string) => string;
const sameText: AnswerKey = (x) => x;

/** The most frequent answer by `key` (invalid ones excluded); ties go to the answer seen first,
 *  and the pick is that answer's first attempt. */
export function majorityVote(attempts: readonly Attempt[], key: AnswerKey = sameText): Pick {
  const counts = new Map<string, { n: number; first: Attempt }>();
  for (const a of attempts) {
    if (a.extracted === INVALID) continue;
    const k = key(a.extracted);
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { n: 1, first: a });
  }
  let best: { n: number; first: Attempt } | null = null;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  if (!best) return { extracted: INVALID, correct: false, attempt: attempts.length ? attempts[0].index : null };
  return { extracted: best.first.extracted, correct: best.first.correct, attempt: best.first.index };
}

/** The attempt with the highest mean token log-prob (attempts without one are skipped; ties: first). */
export function maxLogprob(attempts: readonly Attempt[]): Pick {
  let best: Attempt | null = null;
  for (const a of attempts) if (a.meanLogprob !== null && (best === null || a.meanLogprob > (best.meanLogprob as number))) best = a;
  if (!best) return { extracted: INVALID, correct: false, attempt: null };
  return { extracted: best.extracted, correct: best.correct, attempt: best.index };
}

/** Per-route accuracy over calibration questions → the best route (ties: first in `routes`). */
export function chooseFixedRoute(routes: readonly number[][], correctByRoute: ReadonlyMap<string, number>, n: number): { route: number[]; accuracy: number } {
  if (routes.length === 0) throw new Error('chooseFixedRoute needs at least one candidate route');
  let best = routes[0];
  let bestC = -1;
  for (const r of routes) {
    const c = correctByRoute.get(routeToString(r)) ?? 0;
    if (c > bestC) [best, bestC] = [r, c];
  }
  return { route: best, accuracy: n ? bestC / n : 0 };
}

/** The fixed route's answer among a record's attempts, or null when the route was not drawn. */
export function fixedRoutePick(attempts: readonly Attempt[], route: readonly number[]): Pick | null {
  const key = routeToString(route);
  const a = attempts.find((x) => x.route !== null && routeToString(x.route) === key && x.silence.length === 0);
  return a ? { extracted: a.extracted, correct: a.correct, attempt: a.index, route: route.slice() } : null;
}

/** Every selector, listed once: its name (what screens show) and what it needs. A read-time selector is a
 *  function of a record's attempts alone; a calibrated one (the fixed route) needs a probe that
 *  draws routes (its candidates) and train questions to calibrate on, and is stored by run.ts. */
export const SELECTORS = [
  { name: 'majority', readTime: true },
  { name: 'max-logprob', readTime: true },
  { name: 'fixed-route', readTime: false },
] as const;

export type SelectorName = (typeof SELECTORS)[number]['name'];

export const SELECTOR_NAMES: readonly SelectorName[] = SELECTORS.map((s) => s.name);

/** The selectors computed from a record's attempts alone, at read time. */
export const READ_TIME_SELECTORS: readonly SelectorName[] = SELECTORS.filter((s) => s.readTime).map((s) => s.name);

/** A selector that is calibrated on train questions over a probe's candidate routes. */
export const calibrates = (name: SelectorName): boolean => !READ_TIME_SELECTORS.includes(name);

/** The selectors a run can use: every read-time one, and a calibrated one when one of its probes
 *  draws routes and the task has train questions. */
export const selectorsFor = (drawsRoutes: boolean, trainQuestions: number): SelectorName[] =>
  SELECTOR_NAMES.filter((s) => !calibrates(s) || (drawsRoutes && trainQuestions > 0));

/** A selector's pick over a record's attempts: majority (answers told apart by `key`) and
 *  max-logprob computed from them (blind unless the probe chose its attempts with the gold answer),
 *  the fixed route as stored (its calibration is the run's); null for a deployment record or a
 *  fixed route never stored. */
export function selectorPick(record: { probe: string; attempts: readonly Attempt[]; selectors?: QuestionRecord['selectors'] }, name: SelectorName, key: AnswerKey = sameText): SelectorPick | null {
  if (isDeployment(record)) return null;
  const blind = !probeOf(record).sawGold;
  if (name === 'majority') return { ...majorityVote(record.attempts, key), blind };
  if (name === 'max-logprob') return { ...maxLogprob(record.attempts), blind };
  return record.selectors?.[name] ?? null;
}

/** The records with the picks of `names` a record does not store computed at read time
 *  (selectorPick, answers told apart by `key`; a stored pick was made by the same function); a
 *  record with no pick is kept. */
export function withSelectorPicks(records: readonly QuestionRecord[], names: readonly SelectorName[] = READ_TIME_SELECTORS, key: AnswerKey = sameText): QuestionRecord[] {
  return records.map((r) => {
    const picks: Record<string, SelectorPick> = { ...r.selectors };
    for (const n of names) {
      if (picks[n]) continue;
      const p = selectorPick(r, n, key);
      if (p) picks[n] = p;
    }
    return Object.keys(picks).length ? { ...r, selectors: picks } : r;
  });
}

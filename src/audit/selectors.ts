// Answer-blind selectors: pick one answer from a probe's attempts without the gold answer.
// A pick is answer-blind only when the attempts it picks among were chosen without the gold
// answer too; the audit loop stamps `blind` on each pick (run.ts).

import { INVALID } from './graders';
import { routeToString } from './routes';
import type { Attempt, SelectorPick } from './types';

type Pick = Omit<SelectorPick, 'blind'>;

/** The most frequent extracted answer (invalid ones excluded); ties go to the answer seen first. */
export function majorityVote(attempts: readonly Attempt[]): Pick {
  const counts = new Map<string, { n: number; first: Attempt }>();
  for (const a of attempts) {
    if (a.extracted === INVALID) continue;
    const c = counts.get(a.extracted);
    if (c) c.n++;
    else counts.set(a.extracted, { n: 1, first: a });
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

// Held-out scoring of the micro model: realized accuracy (default route) and, per question,
// how many one-edit blocks routes yield the gold answer, turned into reachability@k.

import type { ArithProblem } from '../../src/audit/tasks/arith';
import { arithTarget, arithText } from '../../src/audit/tasks/arith';
import type { MicroConfig } from './config';
import { problemIds } from './data';
import { greedyDecode, reachAtK, type GreedyOutput } from './evaluate';
import type { Params } from './model';
import { blockRoutes, defaultRoute } from './routes';
import { decodeChars } from './vocab';

/** Answer (≤ 3 characters) plus eos, with room for one token past a wrong answer. */
const MAX_NEW_TOKENS = 5;

export interface Sample {
  question: string;
  target: string;
  output: string;
  correct: boolean;
  margin: number;
}

function grade(problems: readonly ArithProblem[], outs: readonly GreedyOutput[]): Sample[] {
  return problems.map((p, i) => {
    const output = decodeChars(outs[i].tokens);
    return { question: arithText(p), target: arithTarget(p), output, correct: output === arithTarget(p), margin: outs[i].margin };
  });
}

export function realized(problems: readonly ArithProblem[], params: Params, c: MicroConfig): Sample[] {
  const prompts = problems.map((p) => problemIds(p).prompt);
  return grade(problems, greedyDecode(prompts, defaultRoute(c.numLayers), params, c, MAX_NEW_TOKENS));
}

export interface ReachResult {
  routes: number;
  budget: number;
  n: number;
  realized: number;
  /** Mean over questions of the chance that `budget` distinct uniform route draws include a correct one. */
  reachable: number;
  /** realized OR reachable, per question, averaged. */
  ceiling: number;
  /** Accuracy of each route over these questions, in blockRoutes order. */
  perRoute: { route: number[]; accuracy: number }[];
}

export function reachability(problems: readonly ArithProblem[], params: Params, c: MicroConfig, maxBlock: number, budget: number): ReachResult {
  const routes = blockRoutes(c.numLayers, maxBlock);
  if (budget > routes.length) throw new Error(`reachability: budget ${budget} exceeds the ${routes.length} routes of the space`);
  const prompts = problems.map((p) => problemIds(p).prompt);
  const base = realized(problems, params, c);
  const hits = new Array<number>(problems.length).fill(0);
  const perRoute = routes.map((route) => {
    const samples = grade(problems, greedyDecode(prompts, route, params, c, MAX_NEW_TOKENS));
    samples.forEach((s, i) => (hits[i] += s.correct ? 1 : 0));
    return { route, accuracy: samples.filter((s) => s.correct).length / samples.length };
  });
  const reach = hits.map((h) => reachAtK(routes.length, h, budget));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    routes: routes.length,
    budget,
    n: problems.length,
    realized: mean(base.map((s) => (s.correct ? 1 : 0))),
    reachable: mean(reach),
    ceiling: mean(reach.map((r, i) => (base[i].correct ? 1 : r))),
    perRoute,
  };
}

/** Greedy outputs under a few routes (the first skip, a middle repeat, the longest repeat), for engine parity checks. */
export function routeSamples(problems: readonly ArithProblem[], params: Params, c: MicroConfig, maxBlock: number): { route: number[]; samples: Sample[] }[] {
  const routes = blockRoutes(c.numLayers, maxBlock);
  const m = Math.floor(c.numLayers / 2);
  const base = defaultRoute(c.numLayers);
  const picks = [routes[0], [...base.slice(0, m + 1), m, ...base.slice(m + 1)], routes[routes.length - 1]];
  const prompts = problems.map((p) => problemIds(p).prompt);
  return picks.map((route) => ({ route, samples: grade(problems, greedyDecode(prompts, route, params, c, MAX_NEW_TOKENS)) }));
}

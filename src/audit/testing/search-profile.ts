// What a route search does on a scripted landscape, in the terms the released searches are
// compared by: reach, tree depth, share of evaluations that are root children, edits from the
// default route and route length, over the first B distinct routes of each question.

import type { Landscape } from './landscapes';
import type { RouteSearch } from '../probes/search';

export interface SearchProfile {
  reach: number;
  depth: number;
  root_share: number;
  edits: number;
  length: number;
  /** Distinct routes evaluated per question. */
  evaluations: number;
}

export function profileSearch(make: (q: number) => RouteSearch, landscape: Landscape, questions: number, edits: (r: readonly number[]) => number): SearchProfile {
  let reached = 0;
  const depths: number[] = [];
  const routes: number[][] = [];
  for (let q = 0; q < questions; q++) {
    const s = make(q);
    const reward = landscape(q);
    for (let r = s.propose(); r; r = s.propose()) s.observe(reward(r));
    if (s.evaluated.some((r) => reward(r) > 0)) reached++;
    depths.push(...s.depths);
    routes.push(...s.evaluated);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    reach: reached / questions,
    depth: mean(depths),
    root_share: depths.filter((d) => d === 1).length / depths.length,
    edits: mean(routes.map(edits)),
    length: mean(routes.map((r) => r.length)),
    evaluations: routes.length / questions,
  };
}

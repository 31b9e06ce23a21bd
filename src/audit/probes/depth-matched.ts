// The depth-matched random baseline of an MCTS preset: what the search's guidance adds, holding
// the kind of route fixed. Each route is a random walk from the default route: draw a depth d
// from the profile (profile[d] = the preset's MCTS attempts at tree depth d, pooled over the run's
// questions), then apply d actions, each uniform among the preset's actions at the current route
// (CoLa: a block action at the first step, single-position ones after; program selection: set a
// position, within the edit cap). The depths are stratified: a question's B walks take each depth
// in the profile's proportion (largest remainders), in a seeded random order, so the walks' depth
// histogram is the profile scaled to B. A walk that ends on the default route or on a route
// already drawn for this question is walked again; a depth whose MAX_FRUITLESS walks in a row find
// nothing new gives up its slot, and the probe then stops short ('space-exhausted'). The walks
// never see the gold answer, and the profile is a count over the run, not one question's outcome.

import { shuffled, type Prng } from '../../util/prng';
import { defaultRoute, routeToString } from '../routes';
import type { ColaSpace, MctsPreset, NeighborhoodSpace, StopReason } from '../types';
import { colaActions } from './cola-mcts';
import { applySetAction, programSelectionActions } from './program-selection-mcts';

const MAX_FRUITLESS = 1000;

/** Attempts per tree depth: profile[d] = how many of `depths` equal d. */
export function depthProfile(depths: Iterable<number>): number[] {
  const profile: number[] = [];
  for (const d of depths) {
    while (profile.length <= d) profile.push(0);
    profile[d]++;
  }
  return profile;
}

/** B depths in the profile's proportions: floor(B·share) each, the rest to the largest remainders
 *  (ties to the shallower depth). */
export function apportion(profile: readonly number[], budget: number): number[] {
  const total = profile.reduce((a, b) => a + b, 0);
  const exact = profile.map((c) => (budget * c) / total);
  const counts = exact.map(Math.floor);
  const order = exact.map((x, d) => ({ d, rem: x - Math.floor(x) })).sort((a, b) => b.rem - a.rem || a.d - b.d);
  for (let k = 0, left = budget - counts.reduce((a, b) => a + b, 0); k < left; k++) counts[order[k].d]++;
  return counts.flatMap((c, d) => Array<number>(c).fill(d));
}

/** One route d actions of the preset away from the default route (null when a walk is stuck). */
function walk(preset: MctsPreset, space: ColaSpace | NeighborhoodSpace, d: number, rng: Prng): number[] | null {
  let route = defaultRoute(space.numLayers);
  for (let step = 0; step < d; step++) {
    if (preset === 'cola') {
      const next = colaActions(space as ColaSpace, route, step === 0);
      if (next.length === 0) return null;
      route = next[rng.int(next.length)];
    } else {
      const actions = programSelectionActions(space as NeighborhoodSpace, route);
      if (actions.length === 0) return null;
      route = applySetAction(route, actions[rng.int(actions.length)]);
    }
  }
  return route;
}

export interface DepthMatchedDraw {
  routes: number[][];
  depths: number[];
  stop: StopReason;
}

export function drawDepthMatched(preset: MctsPreset, space: ColaSpace | NeighborhoodSpace, profile: readonly number[], budget: number, rng: Prng): DepthMatchedDraw {
  if (profile.some((c) => !Number.isInteger(c) || c < 0) || !profile.some((c, d) => c > 0 && d > 0) || profile[0] > 0) {
    throw new Error(`a depth profile counts attempts at depths ≥ 1 (none at 0), got [${profile.join(', ')}]`);
  }
  const seen = new Set<string>([routeToString(defaultRoute(space.numLayers))]);
  const out: DepthMatchedDraw = { routes: [], depths: [], stop: 'budget' };
  for (const d of shuffled(apportion(profile, budget), rng)) {
    for (let tries = 0; tries < MAX_FRUITLESS; tries++) {
      const route = walk(preset, space, d, rng);
      if (!route || seen.has(routeToString(route))) continue;
      seen.add(routeToString(route));
      out.routes.push(route);
      out.depths.push(d);
      break;
    }
  }
  if (out.routes.length < budget) out.stop = 'space-exhausted';
  return out;
}

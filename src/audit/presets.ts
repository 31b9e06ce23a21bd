// Protocol presets (DESIGN.md "Protocols to reproduce"): route spaces, CoLa-style and
// program-selection MCTS, the sampling ceiling, and the CoLa condition.

import type { EngineDtype } from '../engine/types';
import { defaultCondition } from './condition';
import type { Condition, ProbeSpec, RouteSpace, TaskSpec } from './types';

/** Skip or repeat blocks of 1–4 layers, up to two edits, length within L ± 8. */
export function blocksSpace(numLayers: number, o: Partial<Omit<Extract<RouteSpace, { kind: 'blocks' }>, 'kind' | 'numLayers'>> = {}): RouteSpace {
  return { kind: 'blocks', numLayers, minLen: Math.max(1, numLayers - 8), maxLen: numLayers + 8, maxBlock: 4, maxEdits: 2, ...o };
}

/** Fixed length; each position within ±radius; at most maxEdits changed positions. */
export function neighborhoodSpace(numLayers: number, radius = 2, maxEdits = 3): RouteSpace {
  return { kind: 'neighborhood', numLayers, radius, maxEdits };
}

export function randomRoutes(space: RouteSpace, budget: number, seed: number, shared = false): ProbeSpec {
  return { probe: 'random-routes', space, budget, seed, shared };
}

/** CoLa-style: blocks space, root block edits, UCB = mean − 5·len/L + sqrt(2·ln(N+1)/n) with N the
 *  parent's visits; greedy descent with a uniformly random child (expanded or not) with p = 0.1;
 *  runs until `budget` distinct routes are evaluated (CoLa used 100). */
export function colaMcts(space: RouteSpace, budget: number, seed: number): ProbeSpec {
  return {
    probe: 'mcts-routes',
    space,
    budget,
    seed,
    preset: 'cola',
    exploration: Math.SQRT2,
    lengthPenalty: 5,
    explorationVisits: 'parent',
    randomChild: { start: 0.1, end: 0.1 },
    randomChildScope: 'all',
    expandProb: 0,
    rootBlockEdits: true,
  };
}

/** Program selection: neighborhood radius 2, at most 3 edits; expands with p = 0.5, else a random
 *  expanded child with p decaying 0.8 → 0.1 over the budget, else UCB with exploration 1.8 and the
 *  root's visits; runs until `budget` distinct routes are evaluated (it used 200). */
export function programSelectionMcts(numLayers: number, budget: number, seed: number, space: RouteSpace = neighborhoodSpace(numLayers, 2, 3)): ProbeSpec {
  return {
    probe: 'mcts-routes',
    space,
    budget,
    seed,
    preset: 'program-selection',
    exploration: 1.8,
    lengthPenalty: 0,
    explorationVisits: 'root',
    randomChild: { start: 0.8, end: 0.1 },
    randomChildScope: 'expanded',
    expandProb: 0.5,
    rootBlockEdits: false,
  };
}

/** Sampling ceiling (Yue et al.): temperature 0.6, top-p 0.95, k = budget samples. */
export function samplingCeiling(budget: number, seed: number, temperature = 0.6, topP = 0.95): ProbeSpec {
  return { probe: 'sampling', budget, temperature, topP, seed };
}

export function silencingAllLayers(numLayers: number): ProbeSpec {
  return { probe: 'mlp-silencing', layers: Array.from({ length: numLayers }, (_, i) => i) };
}

/** CoLa's condition: greedy, 50 new tokens, the answer asked for and required in \boxed{}
 *  (a response without a box is wrong, as in CoLa's released scoring). */
export function colaCondition(task: TaskSpec, engineDtype: EngineDtype): Condition {
  return defaultCondition(task, engineDtype, {
    promptTemplate: `${task.promptTemplate}\nPut the final answer in \\boxed{}.`,
    maxNewTokens: 50,
    stopSequences: [],
    requireBoxed: true,
  });
}

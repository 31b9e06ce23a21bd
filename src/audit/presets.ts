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

/** CoLa-style: blocks space, root block edits, UCB = mean − 5·len/L + sqrt(2·ln(N+1)/n), random child 0.1, 100 simulations. */
export function colaMcts(space: RouteSpace, budget: number, seed: number): ProbeSpec {
  return { probe: 'mcts-routes', space, budget, seed, preset: 'cola', exploration: Math.SQRT2, lengthPenalty: 5, randomChildProb: 0.1, simulations: 100, rootBlockEdits: true };
}

/** Program selection: neighborhood radius 2, at most 3 edits, 200 simulations, exploration 1.8. */
export function programSelectionMcts(numLayers: number, budget: number, seed: number): ProbeSpec {
  return {
    probe: 'mcts-routes',
    space: neighborhoodSpace(numLayers, 2, 3),
    budget,
    seed,
    preset: 'program-selection',
    exploration: 1.8,
    lengthPenalty: 0,
    randomChildProb: 0,
    simulations: 200,
    rootBlockEdits: false,
  };
}

/** Sampling ceiling (Yue et al.): temperature 0.6, top-p 0.95, k = budget samples. */
export function samplingCeiling(budget: number, seed: number): ProbeSpec {
  return { probe: 'sampling', budget, temperature: 0.6, topP: 0.95, seed };
}

export function silencingAllLayers(numLayers: number): ProbeSpec {
  return { probe: 'mlp-silencing', layers: Array.from({ length: numLayers }, (_, i) => i) };
}

/** CoLa's condition: greedy, 50 new tokens, the answer asked for in \boxed{}. */
export function colaCondition(task: TaskSpec, engineDtype: EngineDtype): Condition {
  return defaultCondition(task, engineDtype, {
    promptTemplate: `${task.promptTemplate}\nPut the final answer in \\boxed{}.`,
    maxNewTokens: 50,
    stopSequences: [],
  });
}

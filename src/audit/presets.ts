// Protocol presets (DESIGN.md "Protocols to reproduce"): route spaces, CoLa's and program
// selection's released MCTS with their depth-matched baselines, the sampling ceiling, and the CoLa condition.

import type { EngineDtype } from '../engine/types';
import { defaultCondition } from './condition';
import { colaSpace } from './probes/cola-mcts';
import type { BlocksSpace, Condition, NeighborhoodSpace, ProbeSpec, RouteSpace, TaskSpec } from './types';

export { colaSpace };

/** Skip or repeat blocks of 1–4 layers, up to two edits, length within L ± 8. */
export function blocksSpace(numLayers: number, o: Partial<Omit<BlocksSpace, 'kind' | 'numLayers'>> = {}): BlocksSpace {
  return { kind: 'blocks', numLayers, minLen: Math.max(1, numLayers - 8), maxLen: numLayers + 8, maxBlock: 4, maxEdits: 2, ...o };
}

/** Fixed length; each position within ±radius; at most maxEdits changed positions. */
export function neighborhoodSpace(numLayers: number, radius = 2, maxEdits = 3): NeighborhoodSpace {
  return { kind: 'neighborhood', numLayers, radius, maxEdits };
}

export function randomRoutes(space: RouteSpace, budget: number, seed: number, shared = false): ProbeSpec {
  return { probe: 'random-routes', space, budget, seed, shared };
}

/** CoLa's released MCTS (probes/cola-mcts.ts) in CoLa's route space for L layers; it ran 100
 *  simulations, each evaluating one new route, so budget 100 = its protocol. */
export function colaMcts(numLayers: number, budget: number, seed: number): ProbeSpec {
  return { probe: 'mcts-routes', preset: 'cola', space: colaSpace(numLayers), budget, seed };
}

/** Program selection's released MCTS (probes/program-selection-mcts.ts): neighborhood radius 2, at
 *  most 3 changed positions; it ran 200 simulations (ReachLab's budget counts distinct routes). */
export function programSelectionMcts(numLayers: number, budget: number, seed: number, space: NeighborhoodSpace = neighborhoodSpace(numLayers, 2, 3)): ProbeSpec {
  return { probe: 'mcts-routes', preset: 'program-selection', space, budget, seed };
}

/** The depth-matched random baseline of an MCTS spec: the same preset, space, budget and seed. */
export function depthMatchedRoutes(mcts: Extract<ProbeSpec, { probe: 'mcts-routes' }>): ProbeSpec {
  return { probe: 'depth-matched-routes', preset: mcts.preset, space: mcts.space, budget: mcts.budget, seed: mcts.seed };
}

/** The probes with the depth-matched baseline of their MCTS probe added (when it is missing). */
export function withDepthMatchedBaseline(probes: readonly ProbeSpec[]): ProbeSpec[] {
  const mcts = probes.find((p) => p.probe === 'mcts-routes');
  if (!mcts || mcts.probe !== 'mcts-routes' || probes.some((p) => p.probe === 'depth-matched-routes')) return [...probes];
  return [...probes, depthMatchedRoutes(mcts)];
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

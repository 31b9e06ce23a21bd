// Protocol presets (docs/ARCHITECTURE.md "Protocols to reproduce"): route spaces, each probe's
// spec builders (from its own file), and the CoLa condition.

import type { EngineDtype } from '../engine/types';
import { defaultCondition } from './condition';
import { colaOverrides } from './boxed';
import type { Condition, TaskSpec } from './types';

export { blocksSpace, neighborhoodSpace } from './routes';

// each probe's spec builders live in its own file
export { colaSpace } from './probes/cola-mcts';
export { randomRoutes } from './probes/random-routes';
export { colaMcts, programSelectionMcts } from './probes/mcts';
export { depthMatchedRoutes } from './probes/depth-matched';
export { samplingCeiling } from './probes/sampling';
export { silencingAllLayers } from './probes/mlp-silencing';

/** CoLa's condition for a task (boxed.ts colaOverrides): greedy, 50 new tokens, no stop
 *  sequences, the answer asked for and required in \boxed{}. */
export function colaCondition(task: TaskSpec, engineDtype: EngineDtype): Condition {
  return defaultCondition(task, engineDtype, colaOverrides(task.promptTemplate));
}

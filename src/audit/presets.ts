// Protocol presets (docs/ARCHITECTURE.md "Protocols to reproduce"): route spaces, each probe's
// spec builders (from its own file), and the CoLa condition.

import type { EngineDtype } from '../engine/types';
import { defaultCondition } from './condition';
import { boxedOverrides } from './boxed';
import type { Condition, TaskSpec } from './types';

export { blocksSpace, neighborhoodSpace } from './routes';

// each probe's spec builders live in its own file
export { colaSpace } from './probes/cola-mcts';
export { randomRoutes } from './probes/random-routes';
export { colaMcts, programSelectionMcts } from './probes/mcts';
export { depthMatchedRoutes } from './probes/depth-matched';
export { samplingCeiling } from './probes/sampling';
export { silencingAllLayers } from './probes/mlp-silencing';

/** CoLa's condition: greedy, 50 new tokens, the answer asked for and required in \boxed{}
 *  (a response without a box is wrong, as in CoLa's released scoring). */
export function colaCondition(task: TaskSpec, engineDtype: EngineDtype): Condition {
  return defaultCondition(task, engineDtype, {
    ...boxedOverrides(task.promptTemplate),
    maxNewTokens: 50,
    stopSequences: [],
  });
}

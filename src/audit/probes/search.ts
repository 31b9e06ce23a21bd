// What the audit loop asks of a route search: a state machine that proposes one route at a time
// and is told its reward (gold correctness), so many questions' searches advance in one engine call.

import type { StopReason } from '../types';

export interface RouteSearch {
  /** The next route to evaluate, or null once stopReason is set. */
  propose(): number[] | null;
  observe(reward: number): void;
  /** Tree depth of the route propose() returned, until it is observed. */
  readonly proposedDepth: number | null;
  /** Why the search stopped; null while it can still propose. */
  readonly stopReason: StopReason | null;
  /** Distinct routes evaluated, in order (the attempts). */
  readonly evaluated: number[][];
  /** Tree depth (actions from the default route) of each evaluated route, in order. */
  readonly depths: number[];
}

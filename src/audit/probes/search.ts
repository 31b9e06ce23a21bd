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

/**
 * The scaffolding the released tree searches share (cola-mcts.ts, program-selection-mcts.ts): one
 * route pending at a time, the evaluated routes and their depths, the budget stop. A subclass runs
 * its simulations (`simulate`: the node whose route is to be decoded, or null after a simulation
 * that found only known routes and backed up on its own) and takes each reward (`reward`).
 */
export abstract class TreeSearch<N extends { route: number[]; depth: number }> implements RouteSearch {
  private pending: N | null = null;
  readonly evaluated: number[][] = [];
  readonly depths: number[] = [];

  constructor(
    private readonly searchName: string,
    protected readonly budget: number,
  ) {}

  /** Whether the search has no route left to try (checked once the budget is not spent). */
  protected abstract exhausted(): boolean;
  protected abstract simulate(): N | null;
  protected abstract reward(node: N, reward: number): void;

  get proposedDepth(): number | null {
    return this.pending?.depth ?? null;
  }

  get stopReason(): StopReason | null {
    if (this.evaluated.length >= this.budget) return 'budget';
    return this.exhausted() ? 'space-exhausted' : null;
  }

  propose(): number[] | null {
    if (this.pending) throw new Error(`${this.searchName}.propose called twice without observe`);
    while (this.stopReason === null) {
      const node = this.simulate();
      if (node) {
        this.pending = node;
        return node.route;
      }
    }
    return null;
  }

  observe(reward: number): void {
    const node = this.pending;
    if (!node) throw new Error(`${this.searchName}.observe called without a proposed route`);
    this.pending = null;
    this.reward(node, reward);
  }

  /** Counts `node`'s route as an attempt. */
  protected attempted(node: N): void {
    this.evaluated.push(node.route);
    this.depths.push(node.depth);
  }
}

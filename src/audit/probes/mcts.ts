// UCB tree search over routes with gold reward (CoLa-style and program-selection presets).
// A node is a route; the root is the default route (not evaluated: that is the deployment attempt).
// Children apply one more edit: CoLa's root edits blocks of 1..maxBlock layers, deeper nodes edit
// one layer; program selection changes one more position within the radius. Each simulation
// selects by UCB = mean − lengthPenalty·len/L + c·sqrt(ln(N+1)/n) (a uniformly random child with
// probability randomChildProb), expands one untried child and evaluates it (reward = gold
// correctness). A route reached twice (a transposition) reuses its reward and is not charged.
// The search is a state machine (propose → observe) so many questions advance in one engine call.

import type { Prng } from '../../util/prng';
import { childRoutes, defaultRoute, routeToString } from '../routes';
import type { RouteSpace } from '../types';

export interface MctsParams {
  space: RouteSpace;
  budget: number;
  simulations: number;
  exploration: number;
  lengthPenalty: number;
  randomChildProb: number;
  rootBlockEdits: boolean;
}

interface Node {
  route: number[];
  depth: number;
  children: Node[];
  untried: number[][] | null; // null until first needed
  visits: number;
  total: number;
  exhausted: boolean;
}

export class RouteSearch {
  private readonly p: MctsParams;
  private readonly rng: Prng;
  private readonly root: Node;
  private readonly rewards = new Map<string, number>();
  private pending: Node[] | null = null;
  private sims = 0;
  /** Distinct routes evaluated, in order (the attempts). */
  readonly evaluated: number[][] = [];

  constructor(p: MctsParams, rng: Prng) {
    this.p = p;
    this.rng = rng;
    this.root = { route: defaultRoute(p.space.numLayers), depth: 0, children: [], untried: null, visits: 0, total: 0, exhausted: false };
  }

  get simulationsRun(): number {
    return this.sims;
  }

  /** The next route to evaluate, or null when budget, simulations or the tree are used up. */
  propose(): number[] | null {
    if (this.pending) throw new Error('RouteSearch.propose called twice without observe');
    while (this.evaluated.length < this.p.budget && this.sims < this.p.simulations && !this.root.exhausted) {
      const path = this.select();
      if (!path) continue; // a node was found exhausted; select again
      const leaf = path[path.length - 1];
      const cached = this.rewards.get(routeToString(leaf.route));
      if (cached !== undefined) {
        this.backprop(path, cached);
        continue;
      }
      this.pending = path;
      return leaf.route;
    }
    return null;
  }

  observe(reward: number): void {
    const path = this.pending;
    if (!path) throw new Error('RouteSearch.observe called without a proposed route');
    this.pending = null;
    const leaf = path[path.length - 1];
    this.rewards.set(routeToString(leaf.route), reward);
    this.evaluated.push(leaf.route);
    this.backprop(path, reward);
  }

  private untriedOf(n: Node): number[][] {
    if (n.untried === null) {
      const size = n.depth === 0 && this.p.rootBlockEdits && this.p.space.kind === 'blocks' ? this.p.space.maxBlock : 1;
      n.untried = childRoutes(this.p.space, n.route, size);
    }
    return n.untried;
  }

  /** Root-to-new-child path, or null after marking an exhausted node. */
  private select(): Node[] | null {
    const path: Node[] = [this.root];
    let node = this.root;
    for (;;) {
      const untried = this.untriedOf(node);
      if (untried.length > 0) {
        const [route] = untried.splice(this.rng.int(untried.length), 1);
        const child: Node = { route, depth: node.depth + 1, children: [], untried: null, visits: 0, total: 0, exhausted: false };
        node.children.push(child);
        path.push(child);
        return path;
      }
      const open = node.children.filter((c) => !c.exhausted);
      if (open.length === 0) {
        node.exhausted = true;
        return null;
      }
      node = this.rng.next() < this.p.randomChildProb ? open[this.rng.int(open.length)] : this.best(node, open);
      path.push(node);
    }
  }

  private best(parent: Node, open: Node[]): Node {
    const L = this.p.space.numLayers;
    let best = open[0];
    let bestScore = -Infinity;
    for (const c of open) {
      const score = c.total / c.visits - (this.p.lengthPenalty * c.route.length) / L + this.p.exploration * Math.sqrt(Math.log(parent.visits + 1) / c.visits);
      if (score > bestScore) [best, bestScore] = [c, score];
    }
    return best;
  }

  private backprop(path: Node[], reward: number): void {
    this.sims++;
    for (const n of path) {
      n.visits++;
      n.total += reward;
    }
  }
}

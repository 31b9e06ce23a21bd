// UCB tree search over routes with gold reward (CoLa-style and program-selection presets).
//
// A node is a route; the root is the default route (not evaluated: that is the deployment
// attempt). Children apply one more edit: CoLa's root edits blocks of 1..maxBlock layers, deeper
// nodes edit one layer; program selection changes one more position within the radius.
//
// One simulation walks down from the root. At each node:
//   - a node with no open (expandable or unfinished) children is finished;
//   - a node with no expanded open child expands one untried child;
//   - else, with probability expandProb and an untried child left, it expands one;
//   - else, with probability ε (decaying from randomChild.start to randomChild.end as the budget is
//     spent), it takes a uniformly random child — among all its children, expanded or not, when
//     randomChildScope is 'all' (CoLa: an unexpanded pick is an expansion), among expanded ones
//     when 'expanded' (program selection);
//   - else it descends to the expanded child with the highest
//       UCB = mean − lengthPenalty·len/L + c·sqrt(ln(N + 1)/n),
//     N being the parent's visits (CoLa) or the root's (program selection).
// A new child is evaluated at once (rollout-free; reward = gold correctness) and the reward is
// backed up along the path. A route already evaluated anywhere in the tree (a transposition:
// another edit order) reuses its reward without charge, as CoLa's global visited set does. The
// search ends after `budget` distinct attempts ('budget'), or when every node of its tree is
// finished ('space-exhausted'). Every step either adds a node or finishes one, so it terminates.
// The search is a state machine (propose → observe) so many questions advance in one engine call.

import type { Prng } from '../../util/prng';
import { childRoutes, defaultRoute, routeToString } from '../routes';
import type { RouteSpace, StopReason } from '../types';

export interface MctsParams {
  space: RouteSpace;
  budget: number;
  exploration: number;
  lengthPenalty: number;
  /** Probability of a uniformly random child, decaying linearly over the budget. */
  randomChild: { start: number; end: number };
  randomChildScope: 'all' | 'expanded';
  /** Probability of expanding a new child at a node that already has expanded children. */
  expandProb: number;
  /** Whose visit count N enters the exploration term. */
  explorationVisits: 'parent' | 'root';
  rootBlockEdits: boolean;
}

interface Node {
  route: number[];
  depth: number;
  children: Node[];
  untried: number[][] | null; // null until first needed
  visits: number;
  total: number;
  /** Evaluated (or a transposition of an evaluated route), no untried child, every child finished. */
  finished: boolean;
}

export class RouteSearch {
  private readonly p: MctsParams;
  private readonly rng: Prng;
  private readonly root: Node;
  /** Reward of every route evaluated, by its canonical string. */
  private readonly rewards = new Map<string, number>();
  private pending: Node[] | null = null;
  /** Distinct routes evaluated, in order (the attempts). */
  readonly evaluated: number[][] = [];
  /** Tree depth (edits from the default route) of each evaluated route, in order. */
  readonly depths: number[] = [];
  /** Simulations that reached an already evaluated route (free). */
  transpositions = 0;

  constructor(p: MctsParams, rng: Prng) {
    this.p = p;
    this.rng = rng;
    this.root = { route: defaultRoute(p.space.numLayers), depth: 0, children: [], untried: null, visits: 0, total: 0, finished: false };
  }

  /** Why the search stopped; null while it can still propose. */
  get stopReason(): StopReason | null {
    if (this.evaluated.length >= this.p.budget) return 'budget';
    return this.root.finished ? 'space-exhausted' : null;
  }

  /** The next route to evaluate, or null when the budget is spent or the tree is exhausted. */
  propose(): number[] | null {
    if (this.pending) throw new Error('RouteSearch.propose called twice without observe');
    while (this.stopReason === null) {
      const path = this.select();
      if (!path) continue; // a node was found finished; select again
      const leaf = path[path.length - 1];
      const known = this.rewards.get(routeToString(leaf.route));
      if (known !== undefined) {
        this.transpositions++;
        this.backup(path, known);
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
    this.depths.push(leaf.depth);
    this.backup(path, reward);
  }

  private untriedOf(n: Node): number[][] {
    if (n.untried === null) {
      const size = n.depth === 0 && this.p.rootBlockEdits && this.p.space.kind === 'blocks' ? this.p.space.maxBlock : 1;
      n.untried = childRoutes(this.p.space, n.route, size);
    }
    return n.untried;
  }

  private expand(node: Node, index: number): Node {
    const [route] = this.untriedOf(node).splice(index, 1);
    const child: Node = { route, depth: node.depth + 1, children: [], untried: null, visits: 0, total: 0, finished: false };
    node.children.push(child);
    return child;
  }

  private randomChildProb(): number {
    const { start, end } = this.p.randomChild;
    return start + (end - start) * Math.min(1, this.evaluated.length / this.p.budget);
  }

  /** Root-to-new-node path, or null after marking a finished node. */
  private select(): Node[] | null {
    const path: Node[] = [this.root];
    let node = this.root;
    for (;;) {
      const untried = this.untriedOf(node);
      const open = node.children.filter((c) => !c.finished);
      if (open.length === 0 && untried.length === 0) {
        node.finished = true;
        return null;
      }
      let next: Node;
      if (open.length === 0 || (untried.length > 0 && this.p.expandProb > 0 && this.rng.next() < this.p.expandProb)) {
        next = this.expand(node, this.rng.int(untried.length));
      } else if (this.rng.next() < this.randomChildProb()) {
        const pool = this.p.randomChildScope === 'all' ? open.length + untried.length : open.length;
        const i = this.rng.int(pool);
        next = i < open.length ? open[i] : this.expand(node, i - open.length);
      } else {
        next = this.best(node, open);
      }
      path.push(next);
      if (next.visits === 0) return path; // a new node: evaluate it
      node = next;
    }
  }

  private best(parent: Node, open: Node[]): Node {
    const L = this.p.space.numLayers;
    const N = this.p.explorationVisits === 'root' ? this.root.visits : parent.visits;
    let best = open[0];
    let bestScore = -Infinity;
    for (const c of open) {
      const score = c.total / c.visits - (this.p.lengthPenalty * c.route.length) / L + this.p.exploration * Math.sqrt(Math.log(N + 1) / c.visits);
      if (score > bestScore) [best, bestScore] = [c, score];
    }
    return best;
  }

  private backup(path: Node[], reward: number): void {
    for (const n of path) {
      n.visits++;
      n.total += reward;
    }
    // a node with nothing left below it is finished; finishing can climb the path
    for (let i = path.length - 1; i >= 1; i--) {
      const n = path[i];
      if (n.finished || this.untriedOf(n).length > 0 || n.children.some((c) => !c.finished)) break;
      n.finished = true;
    }
  }
}

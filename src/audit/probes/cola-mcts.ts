// CoLa's MCTS over layer routes, as released (tianyi-lab/PoLar, mcts_discovery/run_mcts.py at
// c86d76e: generate_mcts_candidates, mcts_search, MCTSNode), restated in our words.
//
// Tree: the root is the default route; a node's children are all the routes one action away that
// no node of the tree has generated before (one visited set for the whole tree, holding the
// default route from the start). Actions (colaActions): at the root, skip or repeat a block of 1–4
// positions; below it, skip or repeat one position (any position, copies included); a single
// repeat only while no layer runs more than twice; every result within the length limits.
//
// One simulation:
//   1. descend from the root while the node has children: among its children that are not fully
//      explored (evaluated or not), a uniform one with p = 0.1, else the one of highest UCB (the
//      first in generation order on ties; a child never backed up has UCB −∞); stop where all
//      children are fully explored;
//   2. if that node is not fully explored, generate all its children; if it has any, move to a
//      uniform one of them (drawn from the children sorted as routes), else mark the node fully
//      explored;
//   3. if the node reached was never evaluated, evaluate it (one attempt; reward = gold
//      correctness); a descent that ends on an unevaluated child therefore evaluates one of that
//      child's children instead, and the child itself only when it has none;
//   4. back up along the path to the root: visits + 1, total + reward, then
//      UCB = total/visits − 5·len/L + sqrt(2·ln(N_root + 1)/visits), with N_root the root's
//      visits before this backup (the root's own after it); a node is fully explored once it has
//      children and all are. A simulation that evaluated nothing backs up the last reward seen,
//      as the released loop does.
// Nodes off the backup path keep their last UCB. ReachLab's differences, on purpose: the budget
// counts distinct evaluated routes (a simulation that evaluates nothing is free), and the default
// route is the deployment attempt, never evaluated here (the root's reward is never read).
// The search stops at `budget` routes, or when the root is fully explored ('space-exhausted').

import type { Prng } from '../../util/prng';
import { defaultRoute } from '../routes';
import type { ColaSpace } from '../types';
import { TreeSearch } from './search';

/** CoLa's length limits for the depths it released; other depths scale the nearest one. */
const RELEASED_LENGTHS: readonly { depth: number; minLen: number; maxLen: number }[] = [
  { depth: 24, minLen: 16, maxLen: 28 },
  { depth: 28, minLen: 16, maxLen: 32 },
  { depth: 36, minLen: 24, maxLen: 44 },
  { depth: 48, minLen: 36, maxLen: 54 },
];

/** CoLa's route space for L layers: the released limits at 24, 28, 36 and 48 layers; at another
 *  depth the limits of the nearest released depth (the shallower on a tie) times L/depth, rounded,
 *  kept below and above L. */
export function colaSpace(numLayers: number): ColaSpace {
  if (!Number.isInteger(numLayers) || numLayers < 2) throw new Error(`the CoLa route space needs at least 2 layers, got ${numLayers}`);
  const near = RELEASED_LENGTHS.reduce((a, b) => (Math.abs(b.depth - numLayers) < Math.abs(a.depth - numLayers) ? b : a));
  const scale = numLayers / near.depth;
  return {
    kind: 'cola',
    numLayers,
    minLen: Math.max(1, Math.min(numLayers - 1, Math.round(near.minLen * scale))),
    maxLen: Math.max(numLayers + 1, Math.round(near.maxLen * scale)),
  };
}

/** Routes one CoLa action away from `path`, in the released generation order: per position i,
 *  skip 1, 2, 3, 4 positions from i, then repeat 1, 2, 3, 4 (blocks of 2–4 at the root only). */
export function colaActions(space: ColaSpace, path: readonly number[], atRoot: boolean): number[][] {
  const out: number[][] = [];
  const inLimits = (r: number[]) => r.length > 0 && r.length >= space.minLen && r.length <= space.maxLen;
  const maxBlock = atRoot ? 4 : 1;
  for (let i = 0; i < path.length; i++) {
    for (let k = 1; k <= maxBlock && i + k <= path.length; k++) {
      const skipped = [...path.slice(0, i), ...path.slice(i + k)];
      if (inLimits(skipped)) out.push(skipped);
    }
    for (let k = 1; k <= maxBlock && i + k <= path.length; k++) {
      const repeated = [...path.slice(0, i + k), ...path.slice(i)];
      // the released code checks the twice-limit on single repeats; a root block repeat of the
      // default route runs each layer at most twice anyway
      if (k === 1 && repeated.filter((l) => l === path[i]).length > 2) continue;
      if (inLimits(repeated)) out.push(repeated);
    }
  }
  return out;
}

interface Node {
  route: number[];
  parent: Node | null;
  depth: number;
  children: Node[];
  visits: number;
  total: number;
  ucb: number;
  /** null until evaluated. */
  reward: number | null;
  fullyExplored: boolean;
}

/** Python's list order for routes: element by element, a prefix first. */
function compareRoutes(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const RANDOM_CHILD = 0.1;
const LENGTH_STRENGTH = 5;

export class ColaSearch extends TreeSearch<Node> {
  private readonly root: Node;
  private readonly visited = new Set<string>();
  private lastReward = 0;

  constructor(
    private readonly space: ColaSpace,
    budget: number,
    private readonly rng: Prng,
  ) {
    super('ColaSearch', budget);
    const route = defaultRoute(space.numLayers);
    this.root = { route, parent: null, depth: 0, children: [], visits: 0, total: 0, ucb: -Infinity, reward: null, fullyExplored: false };
    this.visited.add(route.join(','));
  }

  protected exhausted(): boolean {
    return this.root.fullyExplored;
  }

  /** One simulation: its new node, or null once it backed up from a node already evaluated. */
  protected simulate(): Node | null {
    const node = this.descend();
    if (node.reward === null && node !== this.root) return node;
    this.backup(node, this.lastReward); // nothing new to evaluate in this simulation
    return null;
  }

  protected reward(node: Node, reward: number): void {
    node.reward = reward;
    this.lastReward = reward;
    this.attempted(node);
    this.backup(node, reward);
  }

  /** Steps 1–2: the node this simulation evaluates (or backs up from). */
  private descend(): Node {
    let node = this.root;
    while (node.children.length > 0) {
      const open = node.children.filter((c) => !c.fullyExplored);
      if (open.length === 0) break;
      if (this.rng.next() < RANDOM_CHILD) node = open[this.rng.int(open.length)];
      else node = open.reduce((best, c) => (c.ucb > best.ucb ? c : best));
    }
    if (!node.fullyExplored) {
      for (const route of colaActions(this.space, node.route, node === this.root)) {
        const key = route.join(',');
        if (this.visited.has(key)) continue;
        this.visited.add(key);
        node.children.push({ route, parent: node, depth: node.depth + 1, children: [], visits: 0, total: 0, ucb: -Infinity, reward: null, fullyExplored: false });
      }
      if (node.children.length > 0) {
        const sorted = node.children.slice().sort((a, b) => compareRoutes(a.route, b.route));
        node = sorted[this.rng.int(sorted.length)];
      } else node.fullyExplored = true;
    }
    return node;
  }

  private backup(from: Node, reward: number): void {
    const L = this.space.numLayers;
    for (let n: Node | null = from; n; n = n.parent) {
      n.visits++;
      n.total += reward;
      n.ucb = n.total / n.visits - (LENGTH_STRENGTH * n.route.length) / L + Math.sqrt((2 * Math.log(this.root.visits + 1)) / n.visits);
      if (n.children.length > 0 && n.children.every((c) => c.fullyExplored)) n.fullyExplored = true;
    }
  }
}

// Program selection's MCTS over layer routes, as released
// (JanBellingrath/inference-time-program-selection-for-transformer-models, core/permutation_mcts.py:
// MCTSNode, MCTS.select_node, MCTS.search), restated in our words.
//
// Routes keep the model's depth L; position p may run any layer within ±radius of p. A node's
// actions (programSelectionActions) set one position to another layer of its window; once
// maxEdits positions differ from the default, only actions that change no further position remain
// (re-edit a changed position, or revert it). A node draws its actions when it is created and
// shuffles them; expanding takes the last one.
//
// One simulation (s = 0, 1, ...; random-child probability p_s = 0.8 − 0.7·s/(S − 1), S = budget,
// then 0.1):
//   1. descend from the root: stop at a node with no children; at a node with untried actions,
//      stop with p = 0.5; else move to a uniform child with p_s, else to the child of highest
//      mean + 1.8·sqrt(ln(N_parent)/visits) (an unvisited child scores +∞; first on ties);
//   2. expand the node reached if it has an untried action: its child is the new node;
//   3. evaluate the node's route (reward = gold correctness) unless it was evaluated before;
//   4. back up visits + 1 and the reward to the root.
// ReachLab's differences, on purpose: the budget counts distinct evaluated routes (a simulation on
// a known route, which the released search also charges, is free here), and the default route is
// the deployment attempt: when a revert reaches it, the audit loop decodes it again uncharged.
// The search stops at `budget` distinct routes, or when every route of its space is known.

import { shuffled, type Prng } from '../../util/prng';
import { defaultRoute, routeSpaceSize, routeToString } from '../routes';
import type { NeighborhoodSpace } from '../types';
import { TreeSearch } from './search';

export interface SetAction {
  position: number;
  layer: number;
}

/** Every action of a node, in the released order (positions, then layers, ascending). */
export function programSelectionActions(space: NeighborhoodSpace, route: readonly number[]): SetAction[] {
  const changed = route.filter((l, p) => l !== p).length;
  const atCap = changed >= space.maxEdits;
  const out: SetAction[] = [];
  for (let p = 0; p < route.length; p++) {
    for (let layer = Math.max(0, p - space.radius); layer <= Math.min(space.numLayers - 1, p + space.radius); layer++) {
      if (layer === route[p]) continue;
      if (atCap && route[p] === p && layer !== p) continue; // would change one more position
      out.push({ position: p, layer });
    }
  }
  return out;
}

export const applySetAction = (route: readonly number[], a: SetAction): number[] => route.map((l, p) => (p === a.position ? a.layer : l));

interface Node {
  route: number[];
  parent: Node | null;
  depth: number;
  children: Node[];
  untried: SetAction[];
  visits: number;
  rewards: number;
}

const EXPLORATION = 1.8;
const STOP_TO_EXPAND = 0.5;
const RANDOM_CHILD = { start: 0.8, end: 0.1 };

export class ProgramSelectionSearch extends TreeSearch<Node> {
  private readonly root: Node;
  /** Reward of every route known, by its string (the default route's once a revert reached it). */
  private readonly rewards = new Map<string, number>();
  private readonly spaceSize: bigint;
  private readonly defaultKey: string;
  private simulation = 0;

  constructor(
    private readonly space: NeighborhoodSpace,
    budget: number,
    private readonly rng: Prng,
  ) {
    super('ProgramSelectionSearch', budget);
    this.root = this.node(defaultRoute(space.numLayers), null);
    this.spaceSize = routeSpaceSize(space);
    this.defaultKey = routeToString(this.root.route);
  }

  protected exhausted(): boolean {
    const known = BigInt(this.rewards.size - (this.rewards.has(this.defaultKey) ? 1 : 0));
    return known >= this.spaceSize;
  }

  /** One simulation: the node whose route to decode (the default route, reached by a revert, is
   *  proposed uncharged), or null once it backed up a known route's reward. */
  protected simulate(): Node | null {
    let node = this.select();
    if (node.untried.length > 0) node = this.expand(node);
    this.simulation++;
    const known = this.rewards.get(routeToString(node.route));
    if (known === undefined) return node;
    this.backup(node, known);
    return null;
  }

  protected reward(node: Node, reward: number): void {
    const key = routeToString(node.route);
    this.rewards.set(key, reward);
    if (key !== this.defaultKey) this.attempted(node);
    this.backup(node, reward);
  }

  private node(route: number[], parent: Node | null): Node {
    const untried = shuffled(programSelectionActions(this.space, route), this.rng);
    return { route, parent, depth: parent ? parent.depth + 1 : 0, children: [], untried, visits: 0, rewards: 0 };
  }

  private randomChildProb(): number {
    const progress = Math.min(1, this.simulation / Math.max(1, this.budget - 1));
    return RANDOM_CHILD.start - (RANDOM_CHILD.start - RANDOM_CHILD.end) * progress;
  }

  private select(): Node {
    let node = this.root;
    const p = this.randomChildProb();
    for (;;) {
      if (node.children.length === 0) return node;
      if (node.untried.length > 0 && this.rng.next() < STOP_TO_EXPAND) return node;
      if (this.rng.next() < p) node = node.children[this.rng.int(node.children.length)];
      else {
        const parentVisits = node.visits;
        const ucb = (c: Node) => (c.visits === 0 ? Infinity : c.rewards / c.visits + EXPLORATION * Math.sqrt(Math.log(parentVisits) / c.visits));
        node = node.children.reduce((best, c) => (ucb(c) > ucb(best) ? c : best));
      }
    }
  }

  private expand(node: Node): Node {
    const action = node.untried.pop() as SetAction;
    const child = this.node(applySetAction(node.route, action), node);
    node.children.push(child);
    return child;
  }

  private backup(from: Node, reward: number): void {
    for (let n: Node | null = from; n; n = n.parent) {
      n.visits++;
      n.rewards += reward;
    }
  }
}

// Route spaces (DESIGN.md): validation, canonical string forms, exact counting, uniform sampling
// without replacement and enumeration. Routes are ranked by a counting DP over layer positions,
// so a uniform draw is a uniform rank in [0, size) decoded back into a route (no rejection over
// the route shape, exact for spaces of any size).

import { shuffled, type Prng } from '../util/prng';
import type { RouteSpace } from './types';

export function defaultRoute(numLayers: number): number[] {
  return Array.from({ length: numLayers }, (_, i) => i);
}

/** "0,1,2,2,3": the canonical string of a route. */
export function routeToString(route: readonly number[]): string {
  return route.join(',');
}

export function parseRoute(s: string): number[] {
  const parts = s.split(',').map((x) => x.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) throw new Error(`route "${s}" is not a comma-separated list of layer indices`);
  return parts.map(Number);
}

/** "blocks(L=6,len=4..8,block=4,edits=2)" / "neighborhood(L=6,radius=2,edits=3)". */
export function routeSpaceToString(space: RouteSpace): string {
  return space.kind === 'blocks'
    ? `blocks(L=${space.numLayers},len=${space.minLen}..${space.maxLen},block=${space.maxBlock},edits=${space.maxEdits})`
    : `neighborhood(L=${space.numLayers},radius=${space.radius},edits=${space.maxEdits})`;
}

const isPosInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x > 0;
const isNatInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** Throws an Error naming the bad parameter. */
export function validateRouteSpace(space: RouteSpace): void {
  if (!space || typeof space !== 'object') throw new Error('route space must be an object');
  if (!isPosInt(space.numLayers)) throw new Error(`route space numLayers must be a positive integer, got ${space.numLayers}`);
  if (!isPosInt(space.maxEdits)) throw new Error(`route space maxEdits must be a positive integer, got ${space.maxEdits}`);
  if (space.kind === 'blocks') {
    if (!isPosInt(space.maxBlock) || space.maxBlock > 4) throw new Error(`blocks maxBlock must be an integer in 1..4, got ${space.maxBlock}`);
    if (!isPosInt(space.minLen)) throw new Error(`blocks minLen must be a positive integer, got ${space.minLen}`);
    if (!isPosInt(space.maxLen) || space.maxLen < space.minLen) throw new Error(`blocks maxLen must be an integer ≥ minLen (${space.minLen}), got ${space.maxLen}`);
  } else if (space.kind === 'neighborhood') {
    if (!isNatInt(space.radius)) throw new Error(`neighborhood radius must be a non-negative integer, got ${space.radius}`);
  } else {
    throw new Error(`unknown route space kind "${(space as { kind: string }).kind}" (known: blocks, neighborhood)`);
  }
}

// ---------------------------------------------------------------- blocks

/** One step of a blocks route over the layer axis. */
type BlockStep = { op: 'keep'; at: number } | { op: 'skip' | 'repeat'; at: number; size: number };

function emitBlocks(steps: BlockStep[]): number[] {
  const out: number[] = [];
  for (const s of steps) {
    if (s.op === 'keep') out.push(s.at);
    else if (s.op === 'repeat') for (let r = 0; r < 2; r++) for (let i = 0; i < s.size; i++) out.push(s.at + i);
  }
  return out;
}

/** Parses a route into blocks steps, or returns a reason it is not a blocks route of L layers
 *  (ignoring length and edit limits). The parse is unique: skips are maximal runs, and a repeat
 *  is recognized by its second copy. */
function parseBlocks(route: readonly number[], L: number, maxBlock: number): BlockStep[] | string {
  const steps: BlockStep[] = [];
  let i = 0; // next route position
  let layer = 0; // next layer
  while (layer < L) {
    if (i < route.length && route[i] === layer) {
      // a repeat of size s starts here when route[i..i+2s) = layer..layer+s-1 twice; at most one s
      // can match (a smaller match puts `layer` where a larger one needs layer+s)
      let size = 0;
      for (let s = 1; s <= maxBlock && layer + s <= L && !size; s++) {
        let ok = true;
        for (let k = 0; k < s && ok; k++) ok = route[i + k] === layer + k && route[i + s + k] === layer + k;
        if (ok) size = s;
      }
      if (size) {
        steps.push({ op: 'repeat', at: layer, size });
        i += 2 * size;
        layer += size;
      } else {
        steps.push({ op: 'keep', at: layer });
        i++;
        layer++;
      }
    } else {
      let size = 0;
      while (layer + size < L && !(i < route.length && route[i] === layer + size)) size++;
      if (size > maxBlock) return `skips ${size} adjacent layers (${layer}..${layer + size - 1}); blocks skip at most ${maxBlock}`;
      steps.push({ op: 'skip', at: layer, size });
      layer += size;
    }
  }
  if (i !== route.length) return `is not the default order with skipped or repeated blocks (unexpected layer ${route[i]} at position ${i})`;
  return steps;
}

const editsOf = (steps: BlockStep[]) => steps.filter((s) => s.op !== 'keep').length;

// ---------------------------------------------------------------- neighborhood

function window(p: number, L: number, radius: number): number[] {
  const out: number[] = [];
  for (let q = Math.max(0, p - radius); q <= Math.min(L - 1, p + radius); q++) out.push(q);
  return out;
}

// ---------------------------------------------------------------- validation

/** null when the route belongs to the space, else the reason it does not. */
export function routeError(space: RouteSpace, route: readonly number[]): string | null {
  const L = space.numLayers;
  if (!Array.isArray(route) || route.length === 0) return 'route must be a non-empty list of layer indices';
  for (const l of route) if (!Number.isInteger(l) || l < 0 || l >= L) return `layer ${l} is outside 0..${L - 1}`;
  if (space.kind === 'blocks') {
    if (route.length < space.minLen || route.length > space.maxLen) return `length ${route.length} is outside ${space.minLen}..${space.maxLen}`;
    const steps = parseBlocks(route, L, space.maxBlock);
    if (typeof steps === 'string') return `route ${steps}`;
    const e = editsOf(steps);
    if (e === 0) return 'route is the default route (that is the deployment attempt)';
    if (e > space.maxEdits) return `route makes ${e} edits; the space allows ${space.maxEdits}`;
    return null;
  }
  if (route.length !== L) return `length ${route.length} differs from ${L}`;
  let edits = 0;
  for (let p = 0; p < L; p++) {
    if (Math.abs(route[p] - p) > space.radius) return `position ${p} runs layer ${route[p]}, beyond radius ${space.radius}`;
    if (route[p] !== p) edits++;
  }
  if (edits === 0) return 'route is the default route (that is the deployment attempt)';
  if (edits > space.maxEdits) return `route changes ${edits} positions; the space allows ${space.maxEdits}`;
  return null;
}

export function inRouteSpace(space: RouteSpace, route: readonly number[]): boolean {
  return routeError(space, route) === null;
}

// ---------------------------------------------------------------- counting and ranking

/**
 * A ranked space: size (BigInt, exact), unrank(r) → route, rank(route) → r.
 * blocks DP state: (layer, edits left, length so far, previous step was a skip, any edit made).
 * neighborhood DP state: (position, edits left, any edit made).
 */
export interface RankedSpace {
  space: RouteSpace;
  size: bigint;
  unrank(r: bigint): number[];
  rank(route: readonly number[]): bigint;
}

export function rankedSpace(space: RouteSpace): RankedSpace {
  validateRouteSpace(space);
  return space.kind === 'blocks' ? rankedBlocks(space) : rankedNeighborhood(space);
}

function rankedBlocks(space: Extract<RouteSpace, { kind: 'blocks' }>): RankedSpace {
  const { numLayers: L, minLen, maxLen, maxBlock, maxEdits } = space;
  const memo = new Map<string, bigint>();
  // actions from a state, in rank order: keep, skip 1..maxBlock, repeat 1..maxBlock
  const actions = (layer: number, e: number, prevSkip: boolean): BlockStep[] => {
    const out: BlockStep[] = [{ op: 'keep', at: layer }];
    if (e > 0) {
      if (!prevSkip) for (let s = 1; s <= maxBlock && layer + s <= L; s++) out.push({ op: 'skip', at: layer, size: s });
      for (let s = 1; s <= maxBlock && layer + s <= L; s++) out.push({ op: 'repeat', at: layer, size: s });
    }
    return out;
  };
  const next = (a: BlockStep, e: number, len: number) => ({
    layer: a.at + (a.op === 'keep' ? 1 : a.size),
    e: a.op === 'keep' ? e : e - 1,
    len: len + (a.op === 'keep' ? 1 : a.op === 'repeat' ? 2 * a.size : 0),
    prevSkip: a.op === 'skip',
    used: a.op !== 'keep',
  });
  const count = (layer: number, e: number, len: number, prevSkip: boolean, used: boolean): bigint => {
    if (len > maxLen) return 0n;
    if (layer === L) return used && len >= minLen ? 1n : 0n;
    const key = `${layer},${e},${len},${prevSkip ? 1 : 0},${used ? 1 : 0}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let c = 0n;
    for (const a of actions(layer, e, prevSkip)) {
      const n = next(a, e, len);
      c += count(n.layer, n.e, n.len, n.prevSkip, used || n.used);
    }
    memo.set(key, c);
    return c;
  };
  const size = count(0, maxEdits, 0, false, false);
  return {
    space,
    size,
    unrank(r) {
      if (r < 0n || r >= size) throw new RangeError(`rank ${r} outside 0..${size - 1n} of ${routeSpaceToString(space)}`);
      const steps: BlockStep[] = [];
      let st = { layer: 0, e: maxEdits, len: 0, prevSkip: false, used: false };
      while (st.layer < L) {
        let chosen = false;
        for (const a of actions(st.layer, st.e, st.prevSkip)) {
          const n = next(a, st.e, st.len);
          const used = st.used || n.used;
          const c = count(n.layer, n.e, n.len, n.prevSkip, used);
          if (r < c) {
            steps.push(a);
            st = { ...n, used };
            chosen = true;
            break;
          }
          r -= c;
        }
        if (!chosen) throw new Error('internal: blocks unrank ran out of actions');
      }
      return emitBlocks(steps);
    },
    rank(route) {
      const err = routeError(space, route);
      if (err) throw new Error(`cannot rank: ${err}`);
      const steps = parseBlocks(route, L, maxBlock) as BlockStep[];
      let r = 0n;
      let st = { layer: 0, e: maxEdits, len: 0, prevSkip: false, used: false };
      for (const step of steps) {
        for (const a of actions(st.layer, st.e, st.prevSkip)) {
          const n = next(a, st.e, st.len);
          const used = st.used || n.used;
          if (a.op === step.op && (a.op === 'keep' || (a as { size: number }).size === (step as { size: number }).size)) {
            st = { ...n, used };
            break;
          }
          r += count(n.layer, n.e, n.len, n.prevSkip, used);
        }
      }
      return r;
    },
  };
}

function rankedNeighborhood(space: Extract<RouteSpace, { kind: 'neighborhood' }>): RankedSpace {
  const { numLayers: L, radius, maxEdits } = space;
  const memo = new Map<string, bigint>();
  const count = (p: number, e: number, used: boolean): bigint => {
    if (p === L) return used ? 1n : 0n;
    const key = `${p},${e},${used ? 1 : 0}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let c = 0n;
    for (const q of window(p, L, radius)) {
      if (q === p) c += count(p + 1, e, used);
      else if (e > 0) c += count(p + 1, e - 1, true);
    }
    memo.set(key, c);
    return c;
  };
  const size = count(0, maxEdits, false);
  const sub = (p: number, q: number, e: number, used: boolean) => (q === p ? count(p + 1, e, used) : e > 0 ? count(p + 1, e - 1, true) : 0n);
  return {
    space,
    size,
    unrank(r) {
      if (r < 0n || r >= size) throw new RangeError(`rank ${r} outside 0..${size - 1n} of ${routeSpaceToString(space)}`);
      const route: number[] = [];
      let e = maxEdits;
      let used = false;
      for (let p = 0; p < L; p++) {
        for (const q of window(p, L, radius)) {
          const c = sub(p, q, e, used);
          if (r < c) {
            route.push(q);
            if (q !== p) [e, used] = [e - 1, true];
            break;
          }
          r -= c;
        }
      }
      return route;
    },
    rank(route) {
      const err = routeError(space, route);
      if (err) throw new Error(`cannot rank: ${err}`);
      let r = 0n;
      let e = maxEdits;
      let used = false;
      for (let p = 0; p < L; p++) {
        for (const q of window(p, L, radius)) {
          if (q === route[p]) {
            if (q !== p) [e, used] = [e - 1, true];
            break;
          }
          r += sub(p, q, e, used);
        }
      }
      return r;
    },
  };
}

/** Number of routes in the space (exact). */
export function routeSpaceSize(space: RouteSpace): bigint {
  return rankedSpace(space).size;
}

/** All routes in rank order; refuses spaces over `limit` routes. */
export function enumerateRoutes(space: RouteSpace, limit = 100_000): number[][] {
  const rs = rankedSpace(space);
  if (rs.size > BigInt(limit)) throw new Error(`${routeSpaceToString(space)} has ${rs.size} routes, over the enumeration limit ${limit}`);
  const out: number[][] = [];
  for (let r = 0n; r < rs.size; r++) out.push(rs.unrank(r));
  return out;
}

/** Uniform BigInt in [0, n) from 32-bit draws, by rejection (unbiased). */
function uniformBig(rng: Prng, n: bigint): bigint {
  if (n <= 0n) throw new RangeError('uniformBig: n must be positive');
  if (n <= 0x100000000n) return BigInt(rng.int(Number(n)));
  const words = Math.ceil((n - 1n).toString(2).length / 32);
  const bound = 1n << BigInt(32 * words);
  const limit = bound - (bound % n);
  for (;;) {
    let x = 0n;
    for (let w = 0; w < words; w++) x = (x << 32n) | BigInt(rng.nextU32());
    if (x < limit) return x % n;
  }
}

/** k distinct routes drawn uniformly without replacement, in draw order. Throws when k exceeds
 *  the space's size (a budget larger than the space cannot be spent on distinct routes). */
export function sampleRoutes(space: RouteSpace, k: number, rng: Prng): number[][] {
  const rs = rankedSpace(space);
  if (!Number.isInteger(k) || k < 0) throw new Error(`route count must be a non-negative integer, got ${k}`);
  if (BigInt(k) > rs.size) throw new Error(`budget ${k} exceeds the ${rs.size} distinct routes of ${routeSpaceToString(space)}`);
  const seen = new Set<bigint>();
  const out: number[][] = [];
  // Robert Floyd's algorithm keeps draws uniform without a rejection loop when k is near size.
  const N = rs.size;
  const picks: bigint[] = [];
  for (let j = N - BigInt(k); j < N; j++) {
    const t = uniformBig(rng, j + 1n);
    const pick = seen.has(t) ? j : t;
    seen.add(pick);
    picks.push(pick);
  }
  // Floyd's subset is uniform but not its order: shuffle so every prefix is a uniform draw too
  for (const p of shuffled(picks, rng)) out.push(rs.unrank(p));
  return out;
}

// ---------------------------------------------------------------- one-edit neighbors (MCTS children)

/**
 * Routes of the space one more edit away from `route` (in a fixed order, distinct, never `route`):
 * blocks: skip or repeat a block of 1..blockSize layers the route still runs once (unedited);
 * neighborhood: an unedited position runs another layer within the radius.
 */
export function childRoutes(space: RouteSpace, route: readonly number[], blockSize: number): number[][] {
  const out: number[][] = [];
  const seen = new Set<string>([routeToString(route)]);
  const add = (r: number[]) => {
    const k = routeToString(r);
    if (!seen.has(k) && routeError(space, r) === null) {
      seen.add(k);
      out.push(r);
    }
  };
  if (space.kind === 'neighborhood') {
    for (let p = 0; p < route.length; p++) {
      if (route[p] !== p) continue;
      for (const q of window(p, space.numLayers, space.radius)) if (q !== p) add(route.map((l, i) => (i === p ? q : l)));
    }
    return out;
  }
  const steps = parseBlocks(route, space.numLayers, space.maxBlock);
  if (typeof steps === 'string') throw new Error(`childRoutes: route ${routeToString(route)} ${steps}`);
  for (let i = 0; i < steps.length; i++) {
    for (let s = 1; s <= blockSize && i + s <= steps.length; s++) {
      if (steps.slice(i, i + s).some((st) => st.op !== 'keep')) break;
      const at = steps[i].at;
      for (const op of ['skip', 'repeat'] as const) add(emitBlocks([...steps.slice(0, i), { op, at, size: s }, ...steps.slice(i + s)]));
    }
  }
  return out;
}

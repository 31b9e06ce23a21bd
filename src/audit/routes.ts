// Route spaces (docs/ARCHITECTURE.md "Vocabulary"): validation, canonical string forms, exact counting, uniform sampling
// without replacement and enumeration. Routes are ranked by a counting DP over layer positions,
// so a uniform draw is a uniform rank in [0, size) decoded back into a route (no rejection over
// the route shape, exact for spaces of any size).

import { shuffled, type Prng } from '../util/prng';
import type { BlocksSpace, ColaSpace, NeighborhoodSpace, RouteSpace } from './types';

/** Skip or repeat blocks of 1–4 layers, up to two edits, length within L ± 8. */
export function blocksSpace(numLayers: number, o: Partial<Omit<BlocksSpace, 'kind' | 'numLayers'>> = {}): BlocksSpace {
  return { kind: 'blocks', numLayers, minLen: Math.max(1, numLayers - 8), maxLen: numLayers + 8, maxBlock: 4, maxEdits: 2, ...o };
}

/** Fixed length; each position within ±radius; at most maxEdits changed positions. */
export function neighborhoodSpace(numLayers: number, radius = 2, maxEdits = 3): NeighborhoodSpace {
  return { kind: 'neighborhood', numLayers, radius, maxEdits };
}

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

/** "blocks(L=6,len=4..8,block=4,edits=2)" / "neighborhood(L=6,radius=2,edits=3)" / "cola(L=6,len=4..7)". */
export function routeSpaceToString(space: RouteSpace): string {
  switch (space.kind) {
    case 'blocks':
      return `blocks(L=${space.numLayers},len=${space.minLen}..${space.maxLen},block=${space.maxBlock},edits=${space.maxEdits})`;
    case 'neighborhood':
      return `neighborhood(L=${space.numLayers},radius=${space.radius},edits=${space.maxEdits})`;
    case 'cola':
      return `cola(L=${space.numLayers},len=${space.minLen}..${space.maxLen})`;
  }
}

const isPosInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x > 0;
const isNatInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** Throws an Error naming the bad parameter. */
export function validateRouteSpace(space: RouteSpace): void {
  if (!space || typeof space !== 'object') throw new Error('route space must be an object');
  if (!isPosInt(space.numLayers)) throw new Error(`route space numLayers must be a positive integer, got ${space.numLayers}`);
  if (space.kind === 'cola') {
    const L = space.numLayers;
    if (!isPosInt(space.minLen) || space.minLen >= L) throw new Error(`cola minLen must be an integer in 1..${L - 1} (below the ${L} layers), got ${space.minLen}`);
    if (!Number.isInteger(space.maxLen) || space.maxLen <= L) throw new Error(`cola maxLen must be an integer above the ${L} layers, got ${space.maxLen}`);
    return;
  }
  if (!isPosInt(space.maxEdits)) throw new Error(`route space maxEdits must be a positive integer, got ${space.maxEdits}`);
  if (space.kind === 'blocks') {
    if (!isPosInt(space.maxBlock) || space.maxBlock > 4) throw new Error(`blocks maxBlock must be an integer in 1..4, got ${space.maxBlock}`);
    if (!isPosInt(space.minLen)) throw new Error(`blocks minLen must be a positive integer, got ${space.minLen}`);
    if (!isPosInt(space.maxLen) || space.maxLen < space.minLen) throw new Error(`blocks maxLen must be an integer ≥ minLen (${space.minLen}), got ${space.maxLen}`);
  } else if (space.kind === 'neighborhood') {
    if (!isNatInt(space.radius)) throw new Error(`neighborhood radius must be a non-negative integer, got ${space.radius}`);
  } else {
    throw new Error(`unknown route space kind "${(space as { kind: string }).kind}" (known: blocks, neighborhood, cola)`);
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
  if (space.kind === 'cola') {
    const parsed = parseCola(route, space);
    return typeof parsed === 'string' ? parsed : null;
  }
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
  switch (space.kind) {
    case 'blocks':
      return rankedBlocks(space);
    case 'neighborhood':
      return rankedNeighborhood(space);
    case 'cola':
      return rankedCola(space);
  }
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

// ---------------------------------------------------------------- cola

/**
 * A CoLa route is written as copies per layer in up to two runs: a route with no step back is one
 * ascending run (each layer 0–2 times); a route with one step back r[j] > r[j+1] is run A = r[..j]
 * then run B = r[j+1..], both ascending. A "family" fixes where B starts (b = r[j+1]) and the drop
 * d = r[j] − b ∈ 1..3 (the first block repeat had d + 1 layers, so it needs numLayers + d + 1 ≤
 * maxLen). Per layer v the family allows these (copies in A, copies in B), in rank order:
 */
type Copies = readonly [a: number, b: number];
const ONE_RUN: Copies[] = [[0, 0], [1, 0], [2, 0]];
const B_ONLY: Copies[] = [[0, 0], [0, 1], [0, 2]];
const BOTH: Copies[] = [[0, 0], [1, 0], [2, 0], [0, 1], [0, 2], [1, 1]];
const B_START: Copies[] = [[0, 1], [0, 2], [1, 1]]; // v = b: B starts here
const A_END: Copies[] = [[1, 0], [2, 0], [1, 1]]; // v = b + d: A ends here

/** null: one ascending run; else B starts at layer b and A ends at layer b + d. */
type ColaFamily = { b: number; d: number } | null;

function colaOptions(fam: ColaFamily, v: number): Copies[] {
  if (!fam) return ONE_RUN;
  const end = fam.b + fam.d;
  return v < fam.b ? ONE_RUN : v === fam.b ? B_START : v < end ? BOTH : v === end ? A_END : B_ONLY;
}

function colaFamilies(space: ColaSpace): ColaFamily[] {
  const out: ColaFamily[] = [null];
  for (let d = 1; d <= 3 && space.numLayers + d + 1 <= space.maxLen; d++) for (let b = 0; b + d < space.numLayers; b++) out.push({ b, d });
  return out;
}

function emitCola(copies: Copies[]): number[] {
  const a: number[] = [];
  const b: number[] = [];
  copies.forEach(([ca, cb], v) => {
    for (let k = 0; k < ca; k++) a.push(v);
    for (let k = 0; k < cb; k++) b.push(v);
  });
  return [...a, ...b];
}

/** The family and copies of a route, or why it is not in the space. */
function parseCola(route: readonly number[], space: ColaSpace): { fam: ColaFamily; copies: Copies[] } | string {
  const L = space.numLayers;
  if (route.length < space.minLen || route.length > space.maxLen) return `length ${route.length} is outside ${space.minLen}..${space.maxLen}`;
  const back: number[] = [];
  for (let j = 0; j + 1 < route.length; j++) if (route[j] > route[j + 1]) back.push(j);
  if (back.length > 1) return `route steps back ${back.length} times; CoLa's actions make at most one step back`;
  const counts = new Array<number>(L).fill(0);
  for (const l of route) if (++counts[l] > 2) return `layer ${l} runs more than twice`;
  let fam: ColaFamily = null;
  const copies: [number, number][] = Array.from({ length: L }, () => [0, 0]);
  if (back.length === 0) {
    if (route.length === L && route.every((l, i) => l === i)) return 'route is the default route (that is the deployment attempt)';
    for (const l of route) copies[l][0]++;
  } else {
    const j = back[0];
    fam = { b: route[j + 1], d: route[j] - route[j + 1] };
    if (fam.d > 3) return `route steps back ${fam.d} layers (from ${route[j]} to ${route[j + 1]}); a repeated block has at most 4 layers`;
    if (L + fam.d + 1 > space.maxLen) return `route steps back ${fam.d} layers, which needs a repeated block of ${fam.d + 1} and a length above ${space.maxLen} on the way`;
    route.forEach((l, i) => copies[l][i <= j ? 0 : 1]++);
  }
  for (let v = 0; v < L; v++) if (!colaOptions(fam, v).some(([a, b]) => a === copies[v][0] && b === copies[v][1])) return `layer ${v} runs where no CoLa action sequence puts it`;
  return { fam, copies };
}

function rankedCola(space: ColaSpace): RankedSpace {
  const { numLayers: L, minLen, maxLen } = space;
  const fams = colaFamilies(space);
  // suffix[v][n] = ways to choose copies for layers v..L-1 with n route positions in all
  const suffixOf = (fam: ColaFamily): bigint[][] => {
    const suffix: bigint[][] = Array.from({ length: L + 1 }, () => new Array<bigint>(maxLen + 1).fill(0n));
    suffix[L][0] = 1n;
    for (let v = L - 1; v >= 0; v--) {
      for (const [a, b] of colaOptions(fam, v)) for (let n = 0; n + a + b <= maxLen; n++) suffix[v][n + a + b] += suffix[v + 1][n];
    }
    return suffix;
  };
  const tables = fams.map(suffixOf);
  /** Completions of layers v.. when `used` positions are taken, within the length limits. */
  const completions = (f: number, v: number, used: number): bigint => {
    let c = 0n;
    for (let n = Math.max(0, minLen - used); n <= maxLen - used; n++) c += tables[f][v][n];
    return c;
  };
  // the default route is one assignment of the ascending family; ranks skip it
  const defaultRank = (() => {
    let r = 0n;
    for (let v = 0; v < L; v++) r += completions(0, v + 1, v); // option (0,0) at v precedes (1,0)
    return r;
  })();
  const famSize = fams.map((_, f) => completions(f, 0, 0) - (f === 0 ? 1n : 0n));
  const size = famSize.reduce((a, b) => a + b, 0n);
  return {
    space,
    size,
    unrank(r) {
      if (r < 0n || r >= size) throw new RangeError(`rank ${r} outside 0..${size - 1n} of ${routeSpaceToString(space)}`);
      let f = 0;
      while (r >= famSize[f]) r -= famSize[f++];
      if (f === 0 && r >= defaultRank) r++;
      const copies: Copies[] = [];
      let used = 0;
      for (let v = 0; v < L; v++) {
        for (const opt of colaOptions(fams[f], v)) {
          const c = completions(f, v + 1, used + opt[0] + opt[1]);
          if (r < c) {
            copies.push(opt);
            used += opt[0] + opt[1];
            break;
          }
          r -= c;
        }
      }
      return emitCola(copies);
    },
    rank(route) {
      const parsed = parseCola(route, space);
      if (typeof parsed === 'string') throw new Error(`cannot rank: ${parsed}`);
      const f = fams.findIndex((x) => (x === null ? parsed.fam === null : parsed.fam !== null && x.b === parsed.fam.b && x.d === parsed.fam.d));
      let r = famSize.slice(0, f).reduce((a, b) => a + b, 0n);
      let within = 0n;
      let used = 0;
      for (let v = 0; v < L; v++) {
        for (const opt of colaOptions(fams[f], v)) {
          if (opt[0] === parsed.copies[v][0] && opt[1] === parsed.copies[v][1]) {
            used += opt[0] + opt[1];
            break;
          }
          within += completions(f, v + 1, used + opt[0] + opt[1]);
        }
      }
      return r + (f === 0 && within > defaultRank ? within - 1n : within);
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

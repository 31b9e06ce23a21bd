import { describe, expect, it } from 'vitest';
import { createPrng } from '../util/prng';
import {
  defaultRoute,
  enumerateRoutes,
  inRouteSpace,
  parseRoute,
  rankedSpace,
  routeError,
  routeSpaceSize,
  routeSpaceToString,
  routeToString,
  sampleRoutes,
  validateRouteSpace,
} from './routes';
import type { RouteSpace } from './types';

const blocks = (L: number, maxBlock: number, maxEdits: number, minLen = 1, maxLen = 2 * L): RouteSpace => ({
  kind: 'blocks',
  numLayers: L,
  minLen,
  maxLen,
  maxBlock,
  maxEdits,
});
const hood = (L: number, radius: number, maxEdits: number): RouteSpace => ({ kind: 'neighborhood', numLayers: L, radius, maxEdits });

/** Every sequence over 0..L-1 with length in [1, maxLen], filtered by routeError: the brute-force oracle. */
function bruteForce(space: RouteSpace, maxLen: number): string[] {
  const L = space.numLayers;
  const out: string[] = [];
  const rec = (prefix: number[]) => {
    if (prefix.length > 0 && inRouteSpace(space, prefix)) out.push(routeToString(prefix));
    if (prefix.length === maxLen) return;
    for (let l = 0; l < L; l++) rec([...prefix, l]);
  };
  rec([]);
  return out.sort();
}

describe('route spaces', () => {
  it('counts small spaces by hand', () => {
    // one edit, blocks of 1: skip any of 3 layers or repeat any of 3
    expect(enumerateRoutes(blocks(3, 1, 1)).map(routeToString).sort()).toEqual(['0,0,1,2', '0,1', '0,1,1,2', '0,1,2,2', '0,2', '1,2'].sort());
    // blocks of up to 2 add two skips ([2], [0]) and two repeats
    expect(routeSpaceSize(blocks(3, 2, 1))).toBe(10n);
    expect(enumerateRoutes(blocks(3, 2, 1)).map(routeToString)).toContain('0,1,0,1,2');
    // neighborhood L=3, radius 1, one edit: position 0 → 1, position 1 → 0 or 2, position 2 → 1
    expect(enumerateRoutes(hood(3, 1, 1)).map(routeToString).sort()).toEqual(['0,0,2', '0,1,1', '0,2,2', '1,1,2']);
  });

  it('matches brute force over all sequences', () => {
    for (const space of [blocks(4, 2, 2, 2, 7), blocks(4, 4, 3, 1, 7), blocks(3, 1, 3, 1, 6)]) {
      expect(enumerateRoutes(space).map(routeToString).sort()).toEqual(bruteForce(space, 7));
    }
    for (const space of [hood(5, 2, 3), hood(4, 1, 2), hood(4, 0, 1)]) {
      expect(enumerateRoutes(space).map(routeToString).sort()).toEqual(bruteForce(space, space.numLayers));
    }
  });

  it('never contains the default route and respects length limits', () => {
    const space = blocks(6, 4, 2, 5, 8);
    const all = enumerateRoutes(space);
    expect(all.some((r) => routeToString(r) === routeToString(defaultRoute(6)))).toBe(false);
    expect(all.every((r) => r.length >= 5 && r.length <= 8)).toBe(true);
    expect(routeError(space, defaultRoute(6))).toMatch(/default route/);
  });

  it('rank and unrank are inverse', () => {
    for (const space of [blocks(6, 4, 3, 3, 10), hood(6, 2, 3)]) {
      const rs = rankedSpace(space);
      for (let r = 0n; r < rs.size; r += 7n) expect(rs.rank(rs.unrank(r))).toBe(r);
    }
  });

  it('explains why a route is outside the space', () => {
    expect(routeError(blocks(6, 2, 2), [0, 1, 5])).toMatch(/skips 3 adjacent layers/);
    expect(routeError(blocks(6, 4, 1), [0, 2, 3, 5])).toMatch(/2 edits/);
    expect(routeError(blocks(6, 4, 2), [0, 2, 1, 3, 4, 5])).toMatch(/not the default order/);
    expect(routeError(blocks(6, 4, 2), [0, 1, 7])).toMatch(/layer 7 is outside 0..5/);
    expect(routeError(blocks(6, 4, 2, 6, 8), [0, 1, 2, 3, 4])).toMatch(/length 5 is outside 6..8/);
    expect(routeError(hood(6, 1, 3), [0, 3, 2, 3, 4, 5])).toMatch(/beyond radius 1/);
    expect(routeError(hood(6, 2, 1), [1, 0, 2, 3, 4, 5])).toMatch(/changes 2 positions/);
    expect(routeError(hood(6, 2, 1), [0, 1])).toMatch(/length 2 differs from 6/);
    expect(routeError(hood(6, 2, 1), [])).toMatch(/non-empty/);
  });

  it('validates parameters by name', () => {
    expect(() => validateRouteSpace(blocks(6, 5, 1))).toThrow(/maxBlock must be an integer in 1..4/);
    expect(() => validateRouteSpace({ ...blocks(6, 2, 1), maxLen: 0 } as RouteSpace)).toThrow(/maxLen/);
    expect(() => validateRouteSpace(hood(6, -1, 1))).toThrow(/radius/);
    expect(() => validateRouteSpace(hood(0, 1, 1))).toThrow(/numLayers/);
    expect(() => validateRouteSpace({ kind: 'spiral' } as unknown as RouteSpace)).toThrow(/numLayers|unknown route space kind/);
  });

  it('has canonical string forms', () => {
    expect(routeSpaceToString(blocks(24, 4, 2, 20, 28))).toBe('blocks(L=24,len=20..28,block=4,edits=2)');
    expect(routeSpaceToString(hood(24, 2, 3))).toBe('neighborhood(L=24,radius=2,edits=3)');
    expect(parseRoute(routeToString([0, 1, 1, 2]))).toEqual([0, 1, 1, 2]);
    expect(() => parseRoute('0,a')).toThrow(/not a comma-separated list/);
  });

  it('samples distinct routes without replacement, reproducibly', () => {
    const space = blocks(6, 4, 2, 3, 10);
    const a = sampleRoutes(space, 50, createPrng(7));
    expect(a).toEqual(sampleRoutes(space, 50, createPrng(7)));
    expect(new Set(a.map(routeToString)).size).toBe(50);
    expect(a.every((r) => inRouteSpace(space, r))).toBe(true);
    const all = enumerateRoutes(space);
    expect(new Set(sampleRoutes(space, all.length, createPrng(1)).map(routeToString))).toEqual(new Set(all.map(routeToString)));
    expect(() => sampleRoutes(space, all.length + 1, createPrng(1))).toThrow(new RegExp(`budget ${all.length + 1} exceeds the ${all.length} distinct routes`));
  });

  it('draws each route with equal probability', () => {
    const space = hood(3, 1, 2); // 8 routes
    const size = Number(routeSpaceSize(space));
    const counts = new Map<string, number>();
    const rng = createPrng(3);
    const draws = 16000;
    for (let i = 0; i < draws; i++) {
      const [r] = sampleRoutes(space, 1, rng);
      counts.set(routeToString(r), (counts.get(routeToString(r)) ?? 0) + 1);
    }
    expect(counts.size).toBe(size);
    // chi-square with size-1 = 7 degrees of freedom; 24.3 is its 0.999 quantile
    const e = draws / size;
    const chi2 = [...counts.values()].reduce((s, c) => s + (c - e) ** 2 / e, 0);
    expect(chi2).toBeLessThan(24.3);
  });

  it('handles spaces larger than 2^32', () => {
    const space = blocks(36, 4, 6, 20, 60);
    expect(routeSpaceSize(space) > 2n ** 32n).toBe(true);
    const rs = sampleRoutes(space, 20, createPrng(11));
    expect(rs.every((r) => inRouteSpace(space, r))).toBe(true);
    expect(() => enumerateRoutes(space)).toThrow(/over the enumeration limit/);
  });
});

import { describe, expect, it } from 'vitest';
import { createPrng } from '../../util/prng';
import { enumerateRoutes, inRouteSpace, rankedSpace, routeSpaceSize, routeToString } from '../routes';
import { scriptedPrng } from '../testing/scripted-prng';
import type { ColaSpace } from '../types';
import { ColaSearch, colaActions, colaSpace } from './cola-mcts';

const space = (numLayers: number, minLen: number, maxLen: number): ColaSpace => ({ kind: 'cola', numLayers, minLen, maxLen });
const S = (r: number[]) => routeToString(r);

/** Every route CoLa's actions reach from the default route: block actions at the default route,
 *  single-position actions after (breadth-first closure, the default route excluded). */
function closure(sp: ColaSpace): string[] {
  const start = Array.from({ length: sp.numLayers }, (_, i) => i);
  const seen = new Set<string>([S(start)]);
  const queue = colaActions(sp, start, true).filter((r) => !seen.has(S(r)) && seen.add(S(r)));
  for (let k = 0; k < queue.length; k++) for (const r of colaActions(sp, queue[k], false)) if (!seen.has(S(r))) (seen.add(S(r)), queue.push(r));
  return queue.map(S).sort();
}

describe('CoLa route space', () => {
  it("holds exactly the routes CoLa's actions reach, and ranks them", () => {
    for (const sp of [space(3, 2, 4), space(4, 2, 6), space(5, 3, 7), space(6, 4, 7), space(6, 5, 10), space(5, 1, 9)]) {
      const all = enumerateRoutes(sp).map(S);
      expect(all.slice().sort()).toEqual(closure(sp));
      expect(new Set(all).size).toBe(all.length);
      const rs = rankedSpace(sp);
      enumerateRoutes(sp).forEach((r, i) => expect(rs.rank(r)).toBe(BigInt(i)));
    }
  });

  it('refuses routes its actions cannot make, naming why', () => {
    const sp = space(6, 4, 8);
    expect(inRouteSpace(sp, [0, 1, 2, 3, 4, 5])).toBe(false); // deployment
    expect(inRouteSpace(sp, [0, 1, 2, 1, 2, 3, 4, 5])).toBe(true); // block 1..2 repeated
    expect(inRouteSpace(sp, [0, 4, 0, 1, 2, 3, 5])).toBe(false); // steps back 4 layers
    expect(inRouteSpace(sp, [0, 2, 1, 3, 2, 4])).toBe(false); // two steps back
    expect(inRouteSpace(sp, [0, 1, 1, 1, 2, 3])).toBe(false); // a layer three times
    expect(inRouteSpace(sp, [0, 1])).toBe(false); // too short
  });

  it("takes CoLa's released limits at 24, 28 and 36 layers and scales the nearest for others", () => {
    expect(colaSpace(24)).toMatchObject({ minLen: 16, maxLen: 28 });
    expect(colaSpace(28)).toMatchObject({ minLen: 16, maxLen: 32 });
    expect(colaSpace(36)).toMatchObject({ minLen: 24, maxLen: 44 });
    expect(colaSpace(16)).toMatchObject({ minLen: 11, maxLen: 19 }); // 24's limits × 16/24
    expect(colaSpace(6)).toMatchObject({ minLen: 4, maxLen: 7 });
    expect(() => colaSpace(1)).toThrow(/at least 2 layers/);
    // the 24-layer space is far too large to list, but exact
    expect(routeSpaceSize(colaSpace(24)) > 10n ** 9n).toBe(true);
  });
});

describe('CoLa actions', () => {
  it('root: skip or repeat blocks of 1–4 in the released order; deeper: one position', () => {
    const sp = space(6, 2, 10);
    const root = colaActions(sp, [0, 1, 2, 3, 4, 5], true).map(S);
    // position 0: skip 1, 2, 3, 4, then repeat 1, 2, 3, 4
    expect(root.slice(0, 8)).toEqual(['1,2,3,4,5', '2,3,4,5', '3,4,5', '4,5', '0,0,1,2,3,4,5', '0,1,0,1,2,3,4,5', '0,1,2,0,1,2,3,4,5', '0,1,2,3,0,1,2,3,4,5']);
    expect(colaActions(sp, [0, 1, 2, 3, 4, 5], false).map(S)).toEqual(
      [0, 1, 2, 3, 4, 5].flatMap((i) => [S([0, 1, 2, 3, 4, 5].filter((_, k) => k !== i)), S([0, 1, 2, 3, 4, 5].flatMap((l, k) => (k === i ? [l, l] : [l])))]),
    );
    // a single repeat stops at twice; a copy made by a block repeat can itself be skipped
    const deeper = colaActions(sp, [0, 1, 0, 1, 2, 3, 4, 5], false).map(S);
    expect(deeper.some((r) => r.startsWith('0,0,1,0'))).toBe(false);
    expect(deeper).toContain('0,1,1,2,3,4,5');
  });
});

describe('CoLa search, worked by hand (L = 6, lengths 5..7)', () => {
  // Root children (12, generation order): per i, skip i then repeat i. Sorted as routes:
  // rep0 rep1 rep2 rep3 [0,1,2,3,4] rep4 rep5 skip4 skip3 skip2 skip1 skip0.
  const sp = space(6, 5, 7);

  it('expands a whole level, evaluates one uniform child, and descends by UCB or a uniform unfinished child', () => {
    const rng = scriptedPrng([
      0.35, // sim 1: uniform among the 12 sorted root children → index 4 = [0,1,2,3,4]
      0.5, 0.9, // sim 2: 0.5 ≥ 0.1 → highest UCB = [0,1,2,3,4] (the only one backed up); its 5 children (repeats) sorted, index 4
      0.05, 0.99, 0.1, // sim 3: < 0.1 → uniform unfinished root child, generation order index 11 = rep5 (never evaluated);
      // it has no children: all 5 of them generated (skips; 2 would be the default route, visited), one evaluated: sorted index 0
    ]);
    const s = new ColaSearch(sp, 3, rng);
    const proposed: string[] = [];
    for (const reward of [0, 1, 0]) {
      proposed.push(S(s.propose()!));
      s.observe(reward);
    }
    expect(proposed).toEqual(['0,1,2,3,4', '0,1,2,3,4,4', '0,1,2,3,5,5']);
    expect(s.depths).toEqual([1, 2, 2]);
    expect(rng.used).toBe(6);
    expect(s.stopReason).toBe('budget');
    expect(s.propose()).toBeNull();
  });

  it('a uniform draw can re-enter an evaluated child; below it UCB prefers the backed-up grandchild', () => {
    // after sims 1–2: [0,1,2,3,4,4] has UCB 1 − 5·6/6 + √(2·ln 2/1) = −2.82259 (N_root = 1 when its
    // backup ran), its four siblings never backed up: −∞.
    const rng = scriptedPrng([
      0.35, 0.5, 0.9, // sims 1–2 as above
      0.05, 0.9, // sim 3: uniform unfinished root child, generation order index 10 = [0,1,2,3,4] (skip 5)
      0.5, // 0.5 ≥ 0.1 → highest UCB among its children = [0,1,2,3,4,4]; no children yet: generate 8
      // (skips and repeats of one position; [0,1,2,3,4] is visited, a third 4 refused), sorted:
      // 0,0,1,2,3,4,4 · 0,1,1,2,3,4,4 · 0,1,2,2,3,4,4 · 0,1,2,3,3,4,4 · 0,1,2,4,4 · 0,1,3,4,4 · 0,2,3,4,4 · 1,2,3,4,4
      0.5, // uniform among the 8 → index 4
    ]);
    const s = new ColaSearch(sp, 3, rng);
    const proposed: string[] = [];
    for (const reward of [0, 1, 0]) {
      proposed.push(S(s.propose()!));
      s.observe(reward);
    }
    expect(proposed).toEqual(['0,1,2,3,4', '0,1,2,3,4,4', '0,1,2,4,4']);
    expect(s.depths).toEqual([1, 2, 3]);
    expect(rng.used).toBe(7);
  });

  it('spends exactly its budget in distinct routes of its space; a smaller space runs out', () => {
    for (const reward of [() => 0, () => 1, (r: number[]) => r.length % 2]) {
      const s = new ColaSearch(colaSpace(12), 60, createPrng(3));
      const seen = new Set<string>();
      for (let r = s.propose(); r; r = s.propose()) {
        expect(inRouteSpace(colaSpace(12), r)).toBe(true);
        seen.add(S(r));
        s.observe(reward(r));
      }
      expect(seen.size).toBe(60);
      expect(s.stopReason).toBe('budget');
    }
    const small = space(3, 2, 4);
    const s = new ColaSearch(small, 1000, createPrng(1));
    const seen = new Set<string>();
    for (let r = s.propose(); r; r = s.propose()) (seen.add(S(r)), s.observe(0));
    expect(s.stopReason).toBe('space-exhausted');
    expect(seen.size).toBeLessThanOrEqual(Number(routeSpaceSize(small)));
    expect(seen.size).toBe(s.evaluated.length);
  });
});

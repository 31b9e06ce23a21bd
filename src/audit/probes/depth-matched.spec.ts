import { describe, expect, it } from 'vitest';
import { createPrng } from '../../util/prng';
import { inRouteSpace, routeToString } from '../routes';
import type { NeighborhoodSpace } from '../types';
import { colaSpace } from './cola-mcts';
import { apportion, drawDepthMatched } from './depth-matched';
import { depthProfile } from './mcts';

/** Fewest single-position changes (Hamming distance) from the default route. */
const hamming = (r: number[]) => r.filter((l, p) => l !== p).length;

describe('depth-matched random walks', () => {
  it('counts a profile', () => {
    expect(depthProfile([1, 3, 1, 2, 1])).toEqual([0, 3, 1, 1]);
    expect(depthProfile([])).toEqual([]);
  });

  it('apportions a budget by the profile: floor of each share, the rest to the largest remainders', () => {
    expect(depthProfile(apportion([0, 10, 30, 60], 50))).toEqual([0, 5, 15, 30]);
    expect(depthProfile(apportion([0, 1, 1, 1], 10))).toEqual([0, 4, 3, 3]); // ties: the shallower
    expect(depthProfile(apportion([0, 2, 0, 1], 7))).toEqual([0, 5, 0, 2]); // 4.67, 2.33
  });

  it("walk at the profile's depths (their histogram is the profile scaled to the budget), in the preset's space", () => {
    const space = colaSpace(24);
    const profile = [0, 10, 30, 60];
    for (let q = 0; q < 10; q++) {
      const draw = drawDepthMatched('cola', space, profile, 50, createPrng(q));
      expect(draw.stop).toBe('budget');
      expect(new Set(draw.routes.map(routeToString)).size).toBe(50);
      for (const r of draw.routes) expect(inRouteSpace(space, r)).toBe(true);
      expect(depthProfile(draw.depths)).toEqual([0, 5, 15, 30]);
    }
  });

  it('program selection: a walk of d actions changes at most d positions, within the cap', () => {
    const space: NeighborhoodSpace = { kind: 'neighborhood', numLayers: 24, radius: 2, maxEdits: 3 };
    const draw = drawDepthMatched('program-selection', space, [0, 1, 1, 1, 1], 60, createPrng(7));
    draw.routes.forEach((r, i) => {
      expect(inRouteSpace(space, r)).toBe(true);
      expect(hamming(r)).toBeLessThanOrEqual(Math.min(draw.depths[i], 3));
    });
  });

  it('is fixed by its seed, and stops "space-exhausted" when the walks find nothing new', () => {
    const space = colaSpace(12);
    const a = drawDepthMatched('cola', space, [0, 1, 1], 20, createPrng(3));
    const b = drawDepthMatched('cola', space, [0, 1, 1], 20, createPrng(3));
    expect(a).toEqual(b);
    // depth 1 only: the root's actions, fewer than the budget
    const few = drawDepthMatched('cola', { kind: 'cola', numLayers: 3, minLen: 2, maxLen: 4 }, [0, 1], 40, createPrng(1));
    expect(few.stop).toBe('space-exhausted');
    expect(few.routes.length).toBeLessThan(40);
    expect(few.depths.every((d) => d === 1)).toBe(true);
  });

  it('refuses a profile without attempts', () => {
    expect(() => drawDepthMatched('cola', colaSpace(6), [], 4, createPrng(1))).toThrow(/depth profile/);
    expect(() => drawDepthMatched('cola', colaSpace(6), [3], 4, createPrng(1))).toThrow(/depth profile/);
    expect(() => drawDepthMatched('cola', colaSpace(6), [1, 3], 4, createPrng(1))).toThrow(/none at 0/);
  });
});

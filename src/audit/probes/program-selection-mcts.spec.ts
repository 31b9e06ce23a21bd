import { describe, expect, it } from 'vitest';
import { createPrng } from '../../util/prng';
import { inRouteSpace, routeSpaceSize, routeToString } from '../routes';
import { scriptedPrng } from '../testing/scripted-prng';
import type { NeighborhoodSpace } from '../types';
import { ProgramSelectionSearch, programSelectionActions } from './program-selection-mcts';

const hood = (numLayers: number, radius: number, maxEdits: number): NeighborhoodSpace => ({ kind: 'neighborhood', numLayers, radius, maxEdits });
const S = (r: number[]) => routeToString(r);
const KEEP = 0.999; // a Fisher–Yates draw that leaves its element in place

describe('program-selection actions', () => {
  it('set one position within the radius; at the edit cap only re-edit or revert a changed position', () => {
    const sp = hood(6, 1, 1);
    expect(programSelectionActions(sp, [0, 1, 2, 3, 4, 5])).toHaveLength(10);
    // one position changed = the cap: position 5 may go back to 5 (revert); nothing else may change
    expect(programSelectionActions(sp, [0, 1, 2, 3, 4, 4])).toEqual([{ position: 5, layer: 5 }]);
    const sp2 = hood(6, 2, 1);
    // position 4 runs 5: it may re-edit to 2 or 3, or revert to 4
    expect(programSelectionActions(sp2, [0, 1, 2, 3, 5, 5])).toEqual([
      { position: 4, layer: 2 },
      { position: 4, layer: 3 },
      { position: 4, layer: 4 },
    ]);
  });
});

describe('program-selection search, worked by hand (L = 6, radius 1, one edit, budget 10)', () => {
  it('expands by popping shuffled actions, stops to expand with p = 0.5, reverts reach the default route uncharged', () => {
    const rng = scriptedPrng([
      ...Array(9).fill(KEEP), // the root's 10 actions shuffled in place; expanding pops the last: (5 → 4)
      // sim 0: the root has no children: expand → [0,1,2,3,4,4] (its one action, the revert, needs no draw)
      0.7, // sim 1: root has children and untried actions: 0.7 ≥ 0.5, descend
      0.95, // 0.95 ≥ p = 0.8 − 0.7·1/9: UCB (its only child); that child has no children: expand its revert
      ...Array(9).fill(KEEP), // the reverted node is the default route: its 10 actions shuffled
      0.2, // sim 2: 0.2 < 0.5: stop at the root and expand its next action (4 → 5)
      KEEP, // [0,1,2,3,5,5] at the cap: position 4 may go to 3 or back to 4, shuffled
    ]);
    const s = new ProgramSelectionSearch(hood(6, 1, 1), 10, rng);
    const proposed: string[] = [];
    for (const reward of [0, 1, 0]) {
      proposed.push(S(s.propose()!));
      s.observe(reward);
    }
    expect(proposed).toEqual(['0,1,2,3,4,4', '0,1,2,3,4,5', '0,1,2,3,5,5']);
    expect(s.evaluated.map(S)).toEqual(['0,1,2,3,4,4', '0,1,2,3,5,5']); // the default route is never charged
    expect(s.depths).toEqual([1, 1]);
    expect(rng.used).toBe(22);
  });

  it('descends by UCB to the child of higher mean, not the first one', () => {
    // radius 2, one edit: the root has 18 actions (17 shuffle draws), popped from the end:
    // (5 → 4) then (5 → 3)
    const rng = scriptedPrng([
      ...Array(17).fill(KEEP),
      0.0, // A = [0,1,2,3,4,4]: its actions (5 → 3), (5 → 5) swapped
      0.1, // sim 1: 0.1 < 0.5: stop at the root and expand C = [0,1,2,3,4,3]
      KEEP, // C's actions (5 → 4), (5 → 5) in place: its first pop is the revert (5 → 5)
      0.7, 0.95, // sim 2: descend, by UCB (0.95 ≥ p = 0.8 − 0.7·2/9): C, rewarded 1, over A, rewarded 0
      ...Array(17).fill(KEEP), // C expands its revert: the default route, 18 actions shuffled
    ]);
    const s = new ProgramSelectionSearch(hood(6, 2, 1), 10, rng);
    expect(S(s.propose()!)).toBe('0,1,2,3,4,4');
    s.observe(0);
    expect(S(s.propose()!)).toBe('0,1,2,3,4,3');
    s.observe(1);
    expect(S(s.propose()!)).toBe('0,1,2,3,4,5');
    expect(rng.used).toBe(39);
  });

  it('spends exactly its budget in distinct routes; a small space is used up and says so', () => {
    for (const reward of [() => 0, () => 1, (r: number[]) => r[3] % 2]) {
      const sp = hood(12, 2, 3);
      const s = new ProgramSelectionSearch(sp, 80, createPrng(5));
      const seen = new Set<string>();
      for (let r = s.propose(); r; r = s.propose()) {
        if (S(r) !== '0,1,2,3,4,5,6,7,8,9,10,11') {
          expect(inRouteSpace(sp, r)).toBe(true);
          seen.add(S(r));
        }
        s.observe(reward(r));
      }
      expect(seen.size).toBe(80);
      expect(s.evaluated).toHaveLength(80);
      expect(s.stopReason).toBe('budget');
    }
    const small = hood(4, 1, 2);
    const s = new ProgramSelectionSearch(small, 1000, createPrng(2));
    for (let r = s.propose(); r; r = s.propose()) s.observe(0);
    expect(s.evaluated).toHaveLength(Number(routeSpaceSize(small)));
    expect(s.stopReason).toBe('space-exhausted');
  });
});

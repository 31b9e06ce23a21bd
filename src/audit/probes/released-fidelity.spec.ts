// ReachLab's presets against the released searches on the same scripted landscapes. The reference
// values were measured by running the released Python search functions themselves (CoLa's
// mcts_search / generate_mcts_candidates, program selection's MCTS.search / select_node / MCTSNode)
// with these landscapes as the reward, 200 questions, a random seed per question, 28 layers,
// B = 100 (CoLa) and 200 (program selection) distinct routes. Tolerances are 4 standard deviations
// of ReachLab's own 60-question means across seeds (npm run -s fidelity:mcts prints the full table).

import { describe, expect, it } from 'vitest';
import { createPrng } from '../../util/prng';
import { colaSpace } from '../presets';
import { seedFor } from '../seeds';
import { changedPositions, colaLandscapes, layerEdits, neighborhoodLandscapes } from '../testing/landscapes';
import { profileSearch, type SearchProfile } from '../testing/search-profile';
import { ColaSearch } from './cola-mcts';
import { ProgramSelectionSearch } from './program-selection-mcts';

const L = 28;
const Q = 60;
const rng = (q: number) => createPrng(seedFor(1, `q${q}`));

function expectNear(got: SearchProfile, released: Partial<SearchProfile>, tol: Partial<SearchProfile>) {
  for (const [k, v] of Object.entries(released) as [keyof SearchProfile, number][]) {
    expect(Math.abs(got[k] - v), `${k}: ReachLab ${got[k].toFixed(3)}, released ${v}`).toBeLessThanOrEqual(tol[k]!);
  }
}

describe('the presets behave like the released searches on scripted rewards (L = 28)', () => {
  it('CoLa: tree depth, root-child share, edits and route length; reach where the released search reaches', () => {
    const none = profileSearch((q) => new ColaSearch(colaSpace(L), 100, rng(q)), colaLandscapes(L).none, Q, (r) => layerEdits(r, L));
    // released: depth 4.560, root-child share 0.010, edits 6.029, length 26.32 (no reward anywhere)
    expectNear(none, { depth: 4.56, root_share: 0.01, edits: 6.03, length: 26.32 }, { depth: 0.25, root_share: 0.005, edits: 0.6, length: 0.8 });
    // released: reach 1.00 where successes need ≥ 3 edited layers
    const deep = profileSearch((q) => new ColaSearch(colaSpace(L), 100, rng(q)), colaLandscapes(L)['deep-3'], Q, (r) => layerEdits(r, L));
    expect(deep.reach).toBeGreaterThanOrEqual(0.9);
  });

  it('program selection: tree depth, root-child share, changed positions and reach', () => {
    const hood = { kind: 'neighborhood' as const, numLayers: L, radius: 2, maxEdits: 3 };
    const p = profileSearch((q) => new ProgramSelectionSearch(hood, 200, rng(q)), neighborhoodLandscapes().pos12, Q, changedPositions);
    // released: reach 0.975, depth 1.576, root-child share 0.500, changed positions 1.556
    expectNear(p, { reach: 0.975, depth: 1.576, root_share: 0.5, edits: 1.556, length: 28 }, { reach: 0.1, depth: 0.03, root_share: 0.02, edits: 0.03, length: 0 });
  });
});

// The mcts-routes probe: the released search its preset names, seeded per question.

import { createPrng } from '../../util/prng';
import { seedFor } from '../seeds';
import type { ProbeSpec } from '../types';
import { ColaSearch } from './cola-mcts';
import { ProgramSelectionSearch } from './program-selection-mcts';
import type { RouteSearch } from './search';

export type MctsSpec = Extract<ProbeSpec, { probe: 'mcts-routes' }>;

export function searchFor(spec: MctsSpec, docId: string): RouteSearch {
  const rng = createPrng(seedFor(spec.seed, docId));
  return spec.preset === 'cola' ? new ColaSearch(spec.space, spec.budget, rng) : new ProgramSelectionSearch(spec.space, spec.budget, rng);
}

// Random routes: B distinct routes drawn uniformly from a route space without the gold answer,
// per question (seeded by the question id) or one shared set for every question.

import { bool, obj, oneOf } from '../../util/check';
import { OKABE_ITO } from '../../util/okabe-ito';
import { createPrng } from '../../util/prng';
import { blocksSpace, sampleRoutes } from '../routes';
import { seedFor } from '../seeds';
import type { RouteSpace } from '../types';
import { oneShot, type Probe } from './probe';
import { routeSpaceOf, SPACE_SETTINGS } from './route-spaces';
import { flag } from './settings';
import { BUDGET_SEED_SETTINGS, budgetSeed, drawCount, drawSpace, routeSpaceSchema, seeded, sharedRoutes, validateRouteDraw } from './route-draws';

export type RandomRoutesSpec = { probe: 'random-routes'; space: RouteSpace; budget: number; seed: number; shared: boolean };

export function randomRoutes(space: RouteSpace, budget: number, seed: number, shared = false): RandomRoutesSpec {
  return { probe: 'random-routes', space, budget, seed, shared };
}

/** Routes a random-routes probe draws for one question. */
export function questionRoutes(spec: RandomRoutesSpec, docId: string): number[][] {
  return spec.shared ? sharedRoutes(spec) : sampleRoutes(spec.space, drawCount(spec), createPrng(seedFor(spec.seed, docId)));
}

const SETTINGS = { ...BUDGET_SEED_SETTINGS, ...SPACE_SETTINGS, shared: flag('one route set for every question (else drawn per question)') };

export const randomRoutesProbe: Probe<RandomRoutesSpec, typeof SETTINGS> = {
  name: 'random-routes',
  label: 'random routes',
  colour: OKABE_ITO.blue,
  dash: 'none',
  role: 'reach',
  schema: obj({ probe: oneOf('random-routes'), space: routeSpaceSchema, ...budgetSeed, shared: bool }),
  validate: validateRouteDraw,
  budget: (spec) => spec.budget,
  maxAttempts: drawCount,
  roundSize: drawCount,
  attemptMajor: (spec) => spec.shared,
  takesSpace: true,
  space: drawSpace,
  ...seeded,
  sawGold: false,
  curve: 'unbiased',
  candidates: sharedRoutes,
  settings: SETTINGS,
  fromChoice: (o, L) => randomRoutes(routeSpaceOf(o, L), o.budget, o.seed, o.shared),
  uniformBaseline: true,
  start: (spec, q) => oneShot(questionRoutes(spec, q.doc.id).map((route) => ({ route, silence: [] }))),
  recordFields: (spec) => ({ route_draw: spec.shared ? 'shared' : 'per-question' }),
  presets: [
    {
      id: 'uniform-routes',
      label: 'Random routes (budget 100 distinct routes)',
      short: 'Random routes',
      nominalBudget: 100,
      description: 'Block routes drawn uniformly per question, without the gold answer: skip or repeat blocks of 1–4 layers.',
      spec: (L) => randomRoutes(blocksSpace(L), drawCount({ space: blocksSpace(L), budget: 100 }), 1, false),
    },
  ],
  describe: (spec) => `random routes ×${spec.budget}`,
};

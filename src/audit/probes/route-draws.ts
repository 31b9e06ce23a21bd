// What every probe that draws routes shares: the route-space schema, the checks of a route probe's
// spec, and the seeded uniform draws (the shared route set is also the fixed-route selector's
// candidate set).

import { num, obj, oneOf, tagged, type Check } from '../../util/check';
import { createPrng } from '../../util/prng';
import { AuditError } from '../errors';
import { routeSpaceSize, sampleRoutes, validateRouteSpace } from '../routes';
import { seedFor } from '../seeds';
import type { RouteSpace } from '../types';
import { int } from './settings';

const pos = num({ int: true, min: 1 });
const nat = num({ int: true, min: 0 });
const anyInt = num({ int: true });

export const routeSpaceSchema = tagged<RouteSpace>('kind', {
  blocks: obj({ kind: oneOf('blocks'), numLayers: pos, minLen: pos, maxLen: pos, maxBlock: pos, maxEdits: pos }),
  neighborhood: obj({ kind: oneOf('neighborhood'), numLayers: pos, radius: nat, maxEdits: pos }),
  cola: obj({ kind: oneOf('cola'), numLayers: pos, minLen: pos, maxLen: pos }),
}) as Check<RouteSpace>;

/** The most attempts a probe may be charged per question. Pass@k studies go to k = 1024; past this
 *  bound one question alone would take hours on a laptop and its attempts would not fit in memory,
 *  so a larger budget is refused where it enters (Setup, plans, links, the CLI, run files). */
export const MAX_BUDGET = 10_000;

/** What a setup choice sets on every budgeted, seeded probe (settings.ts). */
export const BUDGET_SEED_SETTINGS = {
  budget: int({ min: 1, max: MAX_BUDGET, default: 16, help: "attempts charged per question (reach@B's B)" }),
  seed: int({ min: 0, default: 1, help: "seed of the probe's draws (routes, searches, samples); the questions have their own" }),
};

/** The fields a budgeted, seeded probe's schema holds. */
export const budgetSeed = { budget: num({ int: true, min: 1, max: MAX_BUDGET }), seed: anyInt };

export interface RouteDraw {
  probe: string;
  space: RouteSpace;
  budget: number;
  seed: number;
}

const bad = (msg: string) => new AuditError('bad-input', msg);

/** A positive integer budget and an integer seed. */
export function validateBudgetSeed(spec: { probe: string; budget: number; seed: number }): void {
  if (!Number.isInteger(spec.budget) || spec.budget < 1) throw bad(`${spec.probe} budget must be a positive integer, got ${spec.budget}`);
  if (spec.budget > MAX_BUDGET) throw bad(`${spec.probe} budget ${spec.budget} is over the most a probe may make, ${MAX_BUDGET} attempts per question`);
  if (!Number.isInteger(spec.seed)) throw bad(`${spec.probe} seed must be an integer, got ${spec.seed}`);
}

/** Budget, seed, and a valid route space of the model's depth. */
export function validateRouteDraw(spec: RouteDraw, numLayers: number): void {
  validateBudgetSeed(spec);
  try {
    validateRouteSpace(spec.space);
  } catch (e) {
    throw bad(`${spec.probe}: ${(e as Error).message}`);
  }
  if (spec.space.numLayers !== numLayers) throw bad(`${spec.probe} route space has ${spec.space.numLayers} layers; the model has ${numLayers}`);
}

/** The accessors every budgeted, seeded probe shares (probe.ts `seed`, `reseed`). */
export const seeded = {
  seed: (spec: { seed: number }): number => spec.seed,
  reseed: <S extends { seed: number; budget: number }>(spec: S, seed: number, budget?: number): S => ({ ...spec, seed, ...(budget === undefined ? {} : { budget }) }),
};

/** The route space a route probe's spec draws from (probe.ts `space`). */
export const drawSpace = (spec: { space: RouteSpace }): RouteSpace => spec.space;

/** Distinct routes a route probe can draw: its budget, or the whole space when that is smaller. */
export function drawCount(spec: Pick<RouteDraw, 'space' | 'budget'>): number {
  const size = routeSpaceSize(spec.space);
  return BigInt(spec.budget) <= size ? spec.budget : Number(size);
}

/** The shared route set of a route probe (also the fixed-route selector's candidates). */
export function sharedRoutes(spec: RouteDraw): number[][] {
  return sampleRoutes(spec.space, drawCount(spec), createPrng(seedFor(spec.seed, 'shared')));
}

// The mcts-routes probe: the released search its preset names (cola-mcts.ts,
// program-selection-mcts.ts), seeded per question, one route per round; reward = gold correctness.
// A revert that reaches the default route is decoded (its reward is the deployment attempt's) but
// never charged.

import { bool, num, obj, oneOf, tagged, type Check } from '../../util/check';
import { OKABE_ITO } from '../../util/okabe-ito';
import { createPrng } from '../../util/prng';
import { AuditError } from '../errors';
import { defaultRoute, neighborhoodSpace, routeToString } from '../routes';
import { seedFor } from '../seeds';
import type { ColaSpace, NeighborhoodSpace } from '../types';
import { ColaSearch, colaSpace } from './cola-mcts';
import type { Probe, ProbeSession } from './probe';
import { ProgramSelectionSearch } from './program-selection-mcts';
import { BUDGET_SEED_SETTINGS, budgetSeed, drawCount, drawSpace, routeSpaceSchema, seeded, sharedRoutes, validateRouteDraw } from './route-draws';
import type { RouteSearch } from './search';
import { SPACE_SETTINGS } from './route-spaces';

/** The released searches ReachLab runs. */
export type MctsPreset = 'cola' | 'program-selection';

export type MctsSpec =
  /** A released search, run as released (its constants are the preset's, not parameters). */
  | { probe: 'mcts-routes'; preset: 'cola'; space: ColaSpace; budget: number; seed: number }
  | { probe: 'mcts-routes'; preset: 'program-selection'; space: NeighborhoodSpace; budget: number; seed: number };

/** The route space each released search works in. */
const PRESET_SPACE: Record<MctsPreset, 'cola' | 'neighborhood'> = { cola: 'cola', 'program-selection': 'neighborhood' };
export const PRESET_NAME: Record<MctsPreset, string> = { cola: 'CoLa', 'program-selection': 'program selection' };

/** "MCTS routes (CoLa)": a probe built on a preset's actions, named with the preset. */
export const withPreset = (label: string, preset: string) => (Object.hasOwn(PRESET_NAME, preset) ? `${label} (${PRESET_NAME[preset as MctsPreset]})` : label);

/** Attempts per tree depth: profile[d] = how many of `depths` equal d. */
export function depthProfile(depths: Iterable<number>): number[] {
  const profile: number[] = [];
  for (const d of depths) {
    while (profile.length <= d) profile.push(0);
    profile[d]++;
  }
  return profile;
}

/** CoLa's released MCTS (cola-mcts.ts) in CoLa's route space for L layers; it ran 100 simulations,
 *  each evaluating one new route, so budget 100 = its protocol. */
export function colaMcts(numLayers: number, budget: number, seed: number): MctsSpec {
  return { probe: 'mcts-routes', preset: 'cola', space: colaSpace(numLayers), budget, seed };
}

/** Program selection's released MCTS (program-selection-mcts.ts): neighborhood radius 2, at most 3
 *  changed positions; it ran 200 simulations (ReachLab's budget counts distinct routes). */
export function programSelectionMcts(numLayers: number, budget: number, seed: number, space: NeighborhoodSpace = neighborhoodSpace(numLayers, 2, 3)): MctsSpec {
  return { probe: 'mcts-routes', preset: 'program-selection', space, budget, seed };
}

export function searchFor(spec: MctsSpec, docId: string): RouteSearch {
  const rng = createPrng(seedFor(spec.seed, docId));
  return spec.preset === 'cola' ? new ColaSearch(spec.space, spec.budget, rng) : new ProgramSelectionSearch(spec.space, spec.budget, rng);
}

const bad = (msg: string) => new AuditError('bad-input', msg);

/** A spec whose preset is a released search of its own space. */
export function validatePreset(spec: { probe: string; preset: string; space: { kind: string } }): void {
  const kind = PRESET_SPACE[spec.preset as MctsPreset];
  if (!kind) throw bad(`${spec.probe} preset must be cola or program-selection, got ${JSON.stringify(spec.preset)} (an earlier version's MCTS settings are not run any more: start the audit again)`);
  if (spec.space.kind !== kind) throw bad(`${spec.probe} preset ${spec.preset} searches the ${kind} space, got a ${spec.space.kind} space`);
}

const prob = num({ min: 0, max: 1 });
/** What every earlier version's MCTS spec held (kept so their runs stay readable under their keys). */
const earlier = {
  probe: oneOf('mcts-routes'),
  space: routeSpaceSchema,
  ...budgetSeed,
  preset: oneOf('cola', 'program-selection', 'custom'),
  exploration: num({ min: 0 }),
  lengthPenalty: num({ min: 0 }),
  rootBlockEdits: bool,
};
const released = tagged<MctsSpec>('preset', {
  cola: obj({ probe: oneOf('mcts-routes'), preset: oneOf('cola'), space: routeSpaceSchema, ...budgetSeed }) as Check<MctsSpec>,
  'program-selection': obj({ probe: oneOf('mcts-routes'), preset: oneOf('program-selection'), space: routeSpaceSchema, ...budgetSeed }) as Check<MctsSpec>,
});
/** The version before the released searches: the search's constants were in the spec. */
const beforeRelease = obj({
  ...earlier,
  explorationVisits: oneOf('parent', 'root'),
  randomChild: obj({ start: prob, end: prob }),
  randomChildScope: oneOf('all', 'expanded'),
  expandProb: prob,
}) as unknown as Check<MctsSpec>;
/** Run-file version 1: a simulation cap and a constant random-child probability. */
const schemaV1 = obj({ ...earlier, randomChildProb: prob, simulations: num({ int: true, min: 1 }) }) as unknown as Check<MctsSpec>;

function session(spec: MctsSpec, docId: string): ProbeSession {
  const search = searchFor(spec, docId);
  const defaultKey = routeToString(defaultRoute(spec.space.numLayers));
  return {
    propose() {
      const route = search.propose();
      return route && [{ route, silence: [], depth: search.proposedDepth!, charged: routeToString(route) !== defaultKey }];
    },
    observe: ([correct]) => search.observe(correct ? 1 : 0),
  };
}

/** The space chosen names the search: neighborhood program selection's, blocks or cola CoLa's. */
export const MCTS_SETTINGS = { ...BUDGET_SEED_SETTINGS, space: SPACE_SETTINGS.space, radius: SPACE_SETTINGS.radius, maxEdits: SPACE_SETTINGS.maxEdits };

/** A spec of a probe built on a released search's preset and route space. */
type PresetRouteSpec = { probe: string; preset: MctsPreset; space: ColaSpace | NeighborhoodSpace; budget: number; seed: number };

/** What every probe built on a preset shares (mcts-routes and its depth-matched baseline): the
 *  preset in its title and description, the route-draw checks, budget, space and seed accessors. */
export function presetRouteProbe<S extends PresetRouteSpec>(label: string) {
  return {
    title: (spec: S) => withPreset(label, spec.preset),
    role: 'reach',
    validate(spec: S, numLayers: number) {
      validateRouteDraw(spec, numLayers);
      validatePreset(spec);
    },
    budget: (spec: S) => spec.budget,
    maxAttempts: drawCount,
    takesSpace: true,
    space: drawSpace,
    ...seeded,
    searchPreset: (spec: S) => spec.preset,
    curve: 'first-success',
    candidates: sharedRoutes,
    settings: MCTS_SETTINGS,
    describe: (spec: S) => `${withPreset(label, spec.preset)} ×${spec.budget}`,
  } satisfies Partial<Probe<S, typeof MCTS_SETTINGS>>;
}

export const mctsProbe: Probe<MctsSpec, typeof MCTS_SETTINGS> = {
  ...presetRouteProbe<MctsSpec>('MCTS routes'),
  name: 'mcts-routes',
  label: 'MCTS routes',
  colour: OKABE_ITO.vermillion,
  dash: '8,4',
  style: (spec) => (spec.preset === 'program-selection' ? { colour: OKABE_ITO.orange, dash: '6,2,1,2' } : { colour: OKABE_ITO.vermillion, dash: '8,4' }),
  schemaV1,
  schema: (v, p) => (typeof v === 'object' && v !== null && 'exploration' in v ? beforeRelease(v, p) : released(v, p)),
  roundSize: () => 1,
  sawGold: true,
  // the neighborhood space names program selection's search; blocks or cola CoLa's (in its own space)
  fromChoice: (o, L) => (o.space === 'neighborhood' ? programSelectionMcts(L, o.budget, o.seed, neighborhoodSpace(L, o.radius, o.maxEdits ?? 3)) : colaMcts(L, o.budget, o.seed)),
  start: (spec, q) => session(spec, q.doc.id),
  // an earlier version's MCTS records state no depths
  summaryFields(rs) {
    const depths = rs.flatMap((r) => r.attempts.map((a) => a.depth));
    return { preset: (rs[0].probe_spec as MctsSpec).preset, ...(depths.every((d) => d !== undefined) ? { depth_profile: depthProfile(depths as number[]) } : {}) };
  },
  presets: [
    {
      id: 'cola-mcts',
      label: 'CoLa MCTS, as released (budget 100 distinct routes)',
      short: 'CoLa MCTS',
      nominalBudget: 100,
      description:
        "CoLa's released search: a node reached first has all its children generated (root: skip or repeat a block of 1–4 layers; deeper: one position, a layer at most twice, no edit limit, lengths " +
        "within CoLa's limits) and one of them, uniform, evaluated; descent takes a uniform unfinished child with p = 0.1, else the highest UCB = mean − 5·len/L + √(2·ln(N_root + 1)/n); reward = gold correctness. " +
        'Budget = distinct routes (CoLa ran 100 simulations). Its depth-matched random baseline runs beside it. Condition: greedy, 50 tokens, answer required in \\boxed{}.',
      spec: (L) => colaMcts(L, drawCount({ space: colaSpace(L), budget: 100 }), 1),
      boxed: true,
    },
    {
      id: 'program-selection-mcts',
      label: 'Program-selection MCTS, as released (budget 200 distinct routes)',
      short: 'Program-selection MCTS',
      nominalBudget: 200,
      description:
        'Neighborhood route space (radius 2, at most 3 changed positions; at the cap, actions re-edit or revert a changed position). Descent stops to expand with p = 0.5 where untried actions remain, else takes a random child with p decaying 0.8 → 0.1, ' +
        'else the highest mean + 1.8·√(ln N_parent / n); reward = gold correctness. Budget = distinct routes (it ran 200 simulations, some on routes already known). Its depth-matched random baseline runs beside it.',
      spec: (L) => programSelectionMcts(L, drawCount({ space: neighborhoodSpace(L), budget: 200 }), 1),
    },
  ],
};

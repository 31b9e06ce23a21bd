// The depth-matched random baseline of an MCTS preset: what the search's guidance adds, holding
// the kind of route fixed. Each route is a random walk from the default route: draw a depth d
// from the profile (profile[d] = the preset's MCTS attempts at tree depth d, pooled over the run's
// questions), then apply d actions, each uniform among the preset's actions at the current route
// (CoLa: a block action at the first step, single-position ones after; program selection: set a
// position, within the edit cap). The depths are stratified: a question's B walks take each depth
// in the profile's proportion (largest remainders), in a seeded random order, so the walks' depth
// histogram is the profile scaled to B. A walk that ends on the default route or on a route
// already drawn for this question is walked again; a depth whose MAX_FRUITLESS walks in a row find
// nothing new gives up its slot, and the probe then stops short ('space-exhausted'). The walks
// never see the gold answer, and the profile is a count over the run, not one question's outcome.

import { canonicalJson, sha256Hex } from '../../util/hash';
import { obj, oneOf, opt, str } from '../../util/check';
import { OKABE_ITO } from '../../util/okabe-ito';
import { createPrng, shuffled, type Prng } from '../../util/prng';
import { probeKey } from '../condition';
import { AuditError } from '../errors';
import { defaultRoute, routeToString } from '../routes';
import { seedFor } from '../seeds';
import type { ColaSpace, NeighborhoodSpace, QuestionRecord, StopReason } from '../types';
import { colaActions } from './cola-mcts';
import { depthProfile, MCTS_SETTINGS, mctsProbe, presetRouteProbe, type MctsPreset, type MctsSpec } from './mcts';
import { oneShot, type Probe } from './probe';
import { applySetAction, programSelectionActions } from './program-selection-mcts';
import { budgetSeed, routeSpaceSchema } from './route-draws';

const MAX_FRUITLESS = 1000;

/** B depths in the profile's proportions: floor(B·share) each, the rest to the largest remainders
 *  (ties to the shallower depth). */
export function apportion(profile: readonly number[], budget: number): number[] {
  const total = profile.reduce((a, b) => a + b, 0);
  const exact = profile.map((c) => (budget * c) / total);
  const counts = exact.map(Math.floor);
  const order = exact.map((x, d) => ({ d, rem: x - Math.floor(x) })).sort((a, b) => b.rem - a.rem || a.d - b.d);
  for (let k = 0, left = budget - counts.reduce((a, b) => a + b, 0); k < left; k++) counts[order[k].d]++;
  return counts.flatMap((c, d) => Array<number>(c).fill(d));
}

/** One route d actions of the preset away from the default route (null when a walk is stuck). */
function walk(preset: MctsPreset, space: ColaSpace | NeighborhoodSpace, d: number, rng: Prng): number[] | null {
  let route = defaultRoute(space.numLayers);
  for (let step = 0; step < d; step++) {
    if (preset === 'cola') {
      const next = colaActions(space as ColaSpace, route, step === 0);
      if (next.length === 0) return null;
      route = next[rng.int(next.length)];
    } else {
      const actions = programSelectionActions(space as NeighborhoodSpace, route);
      if (actions.length === 0) return null;
      route = applySetAction(route, actions[rng.int(actions.length)]);
    }
  }
  return route;
}

export interface DepthMatchedDraw {
  routes: number[][];
  depths: number[];
  stop: StopReason;
}

export function drawDepthMatched(preset: MctsPreset, space: ColaSpace | NeighborhoodSpace, profile: readonly number[], budget: number, rng: Prng): DepthMatchedDraw {
  if (profile.some((c) => !Number.isInteger(c) || c < 0) || !profile.some((c, d) => c > 0 && d > 0) || profile[0] > 0) {
    throw new Error(`a depth profile counts attempts at depths ≥ 1 (none at 0), got [${profile.join(', ')}]`);
  }
  const seen = new Set<string>([routeToString(defaultRoute(space.numLayers))]);
  const out: DepthMatchedDraw = { routes: [], depths: [], stop: 'budget' };
  for (const d of shuffled(apportion(profile, budget), rng)) {
    for (let tries = 0; tries < MAX_FRUITLESS; tries++) {
      const route = walk(preset, space, d, rng);
      if (!route || seen.has(routeToString(route))) continue;
      seen.add(routeToString(route));
      out.routes.push(route);
      out.depths.push(d);
      break;
    }
  }
  if (out.routes.length < budget) out.stop = 'space-exhausted';
  return out;
}

/** Random walks of d actions of a preset's own action set from the default route, d drawn from the
 *  depth profile of that preset's MCTS attempts in the same run. `matched` binds it to that MCTS
 *  probe and the run's questions (bind), so its probe key changes whenever the profile could. */
export type DepthMatchedSpec = {
  probe: 'depth-matched-routes';
  preset: MctsPreset;
  space: ColaSpace | NeighborhoodSpace;
  budget: number;
  seed: number;
  matched?: { mcts_probe_key: string; questions: string };
};

/** The depth-matched random baseline of an MCTS spec: the same preset, space, budget and seed. */
export function depthMatchedRoutes(mcts: MctsSpec): DepthMatchedSpec {
  return { probe: 'depth-matched-routes', preset: mcts.preset, space: mcts.space, budget: mcts.budget, seed: mcts.seed };
}

const bad = (msg: string) => new AuditError('bad-input', msg);

/** The profile of the matched MCTS probe's attempts (its records, computed or stored). */
const profiles = new WeakMap<readonly QuestionRecord[], number[]>();
function profileOf(mcts: readonly QuestionRecord[]): number[] {
  let p = profiles.get(mcts);
  if (!p) profiles.set(mcts, (p = depthProfile(mcts.flatMap((r) => r.attempts.map((a) => a.depth ?? 0)))));
  return p;
}

export const depthMatchedProbe: Probe<DepthMatchedSpec, typeof MCTS_SETTINGS> = {
  ...presetRouteProbe<DepthMatchedSpec>('depth-matched routes'),
  name: 'depth-matched-routes',
  label: 'depth-matched routes',
  colour: OKABE_ITO.skyBlue,
  dash: '1,3',
  schemaV1: null,
  schema: obj({
    probe: oneOf('depth-matched-routes'),
    preset: oneOf('cola', 'program-selection'),
    space: routeSpaceSchema,
    ...budgetSeed,
    matched: opt(obj({ mcts_probe_key: str({ nonEmpty: true }), questions: str({ nonEmpty: true }) })),
  }) as Probe<DepthMatchedSpec>['schema'],
  roundSize: (spec) => spec.budget,
  sawGold: false,
  /** Binds it to the run's MCTS probe of the same preset and space and to the run's questions. */
  async bind(spec, probes, questions) {
    const mcts = probes.find((p) => p.probe === mctsProbe.name && 'preset' in p && p.preset === spec.preset && canonicalJson(p.space) === canonicalJson(spec.space));
    if (!mcts) {
      throw bad(`depth-matched-routes (${spec.preset}) draws its walk lengths from the run's MCTS attempts: add mcts-routes with preset ${spec.preset} and the same route space to the audit`);
    }
    const matched = {
      mcts_probe_key: await probeKey(mcts),
      questions: (await sha256Hex(canonicalJson(questions.map((q) => [q.doc_id, q.doc_hash, q.prompt_hash])))).slice(0, 16),
    };
    if (spec.matched && canonicalJson(spec.matched) !== canonicalJson(matched)) {
      throw bad(`depth-matched-routes is bound to MCTS probe ${spec.matched.mcts_probe_key} over questions ${spec.matched.questions}; this run has ${matched.mcts_probe_key} over ${matched.questions}`);
    }
    return { ...spec, matched };
  },
  fromChoice: (o, L) => depthMatchedRoutes(mctsProbe.fromChoice!(o, L)),
  baselineOf: mctsProbe.name,
  baselineFor: (other) => depthMatchedRoutes(other as MctsSpec),
  dependsOn: (spec) => spec.matched?.mcts_probe_key ?? null,
  start(spec, q, ctx) {
    const draw = drawDepthMatched(spec.preset, spec.space, profileOf(ctx.dependency), spec.budget, createPrng(seedFor(spec.seed, q.doc.id, 'depth-matched')));
    return oneShot(draw.routes.map((route, i) => ({ route, silence: [], depth: draw.depths[i] })));
  },
  recordFields: (_spec, ctx) => ({ depth_profile: profileOf(ctx.dependency) }),
  summaryFields: (rs) => ({ preset: (rs[0].probe_spec as DepthMatchedSpec).preset, ...(rs[0].depth_profile ? { depth_profile: rs[0].depth_profile } : {}) }),
};

// Every probe ReachLab runs, listed once. Adding a probe: one file in this folder exporting its
// Probe, and one line in PROBES. Everything else — the audit driver, records, summaries, the run
// file, the CLI and the screens — asks this module.

import { tagged, CheckError, type Check } from '../../util/check';
import { AuditError } from '../errors';
import type { QuestionIdentity } from '../condition';
import type { ProbeChoice } from './choice';
import { depthMatchedProbe } from './depth-matched';
import { deploymentProbe } from './deployment';
import { mctsProbe, PRESET_NAME, type MctsPreset } from './mcts';
import { layerSkipProbe } from './layer-skip';
import { mlpSilencingProbe } from './mlp-silencing';
import type { Probe, ProbeRole, SetupPreset } from './probe';
import type { RouteSpace } from '../types';
import { randomRoutesProbe } from './random-routes';
import { samplingProbe } from './sampling';

export const PROBES = [deploymentProbe, randomRoutesProbe, mctsProbe, depthMatchedProbe, samplingProbe, layerSkipProbe, mlpSilencingProbe] as const;

type SpecOf<P> = P extends Probe<infer S> ? S : never;
/** A probe's settings; its `probe` field names the probe. */
export type ProbeSpec = SpecOf<(typeof PROBES)[number]>;
export type ProbeName = ProbeSpec['probe'];

export const PROBE_NAMES: readonly ProbeName[] = PROBES.map((p) => p.name);

/** The probes as one type, for the lookups below. */
const ALL = PROBES as unknown as readonly Probe<ProbeSpec>[];
const byName = new Map<string, Probe<ProbeSpec>>(ALL.map((p) => [p.name, p]));

/** Adds a probe of a test's own to PROBES and the lookups below (probeOf and what asks it: the
 *  driver, records, summaries, the screens; its presets to Setup's); returns its removal. Lists
 *  other modules derive when loaded (the CLI's settings) see it when it is registered before they
 *  load. Tests only: the app's probes are PROBES. */
export function registerProbe<S extends { probe: string }>(probe: Probe<S>): () => void {
  if (byName.has(probe.name)) throw new AuditError('bad-input', `a probe named "${probe.name}" is registered already`);
  const p = probe as unknown as Probe<ProbeSpec>;
  const lists = [[ALL, [p]], [PROBE_NAMES, [p.name]], [SETUP_PRESETS, p.presets ?? []]] as unknown as [unknown[], unknown[]][];
  byName.set(probe.name, p);
  for (const [list, added] of lists) list.push(...added);
  return () => {
    byName.delete(probe.name);
    for (const [list, added] of lists) for (const x of added) list.splice(list.indexOf(x), 1);
  };
}

/** The probe a name or spec names; throws on a name no probe has. */
export function probeOf(x: string | { probe: string }): Probe<ProbeSpec> {
  const name = typeof x === 'string' ? x : x.probe;
  const p = byName.get(name);
  if (!p) throw new AuditError('bad-input', `unknown probe "${name}" (known: ${PROBE_NAMES.join(', ')})`);
  return p;
}

export const isProbeName = (s: string): s is ProbeName => byName.has(s);

/** The deployment probe's name: the one probe every run holds ({ probe: DEPLOYMENT } is its spec). */
export const DEPLOYMENT = deploymentProbe.name;

export const roleOf = (x: string | { probe: string }): ProbeRole => probeOf(x).role;
export const isDeployment = (x: { probe: string }): boolean => roleOf(x) === 'deployment';
/** Probes whose attempts decide reachability (not deployment, not an intervention scan). */
export const isReach = (x: { probe: string }): boolean => roleOf(x) === 'reach';
export const isIntervention = (x: { probe: string }): boolean => roleOf(x) === 'intervention';
/** The intervention the silencing scan reads (the first such probe). */
export const INTERVENTION: ProbeName = PROBES.find((p) => p.role === 'intervention')!.name;

/** A spec as screens name it: "MCTS routes (CoLa)". */
export const titleOf = (spec: ProbeSpec): string => probeOf(spec).title?.(spec) ?? probeOf(spec).label;
/** Stroke colour and dash of a spec's curve. */
export function styleOf(spec: ProbeSpec): { colour: string; dash: string } {
  const p = probeOf(spec);
  return p.style?.(spec) ?? { colour: p.colour, dash: p.dash };
}

/** Any probe spec from untrusted JSON (run files, imports). */
export const checkProbeSpec: Check<ProbeSpec> = tagged<ProbeSpec>('probe', Object.fromEntries(PROBES.map((p) => [p.name, p.schema as Check<ProbeSpec>])));

/** Run-file version 1: the probes it knew, its MCTS spec in that version's shape. */
export const checkProbeSpecV1: Check<ProbeSpec> = tagged<ProbeSpec>(
  'probe',
  Object.fromEntries(PROBES.filter((p) => p.schemaV1 !== null).map((p) => [p.name, (p.schemaV1 ?? p.schema) as Check<ProbeSpec>])),
);

/** The spec's shape, then the probe's own checks for a model of numLayers layers. */
export function validateProbeSpec(spec: ProbeSpec, numLayers: number): void {
  const p = probeOf(spec);
  p.validate(spec, numLayers);
  try {
    p.schema(spec, 'probe');
  } catch (e) {
    if (e instanceof CheckError) throw new AuditError('bad-input', `${p.name}: ${e.message}`);
    throw e;
  }
}

/** The probes with the baselines that run beside them added (an MCTS probe's depth-matched walks),
 *  where the list does not already hold that probe. */
export function withBaselines(probes: readonly ProbeSpec[]): ProbeSpec[] {
  const out = [...probes];
  for (const spec of probes) {
    for (const p of baselinesOf(spec.probe)) if (!out.some((x) => x.probe === p.name)) out.push(p.baselineFor!(spec));
  }
  return out;
}

/** The probes that run beside `name` as its baselines. */
export const baselinesOf = (name: string): Probe<ProbeSpec>[] => ALL.filter((p) => p.baselineOf === name);

/** A probe whose spec draws from the route space a setup choice names. */
export const takesSpace = (name: string): boolean => probeOf(name).takesSpace === true;

/** A probe that draws routes (it has candidate routes for the fixed-route selector). */
export const drawsRoutes = (name: string): boolean => probeOf(name).candidates !== undefined;

/** The uniform random baseline's name (random routes). */
export const UNIFORM_BASELINE: ProbeName = ALL.find((p) => p.uniformBaseline)!.name;

/** Reach probes a study plan or the CLI names on their own (baselines come with their probe). */
export const STANDALONE_REACH: readonly ProbeName[] = ALL.filter((p) => p.role === 'reach' && !p.baselineOf).map((p) => p.name);

/** The route space a spec draws from, null for a probe without one. */
export const routeSpaceOfSpec = (spec: ProbeSpec): RouteSpace | null => probeOf(spec).space?.(spec) ?? null;
/** The seed of a spec's draws, null for a probe that draws nothing at random. */
export const seedOfSpec = (spec: ProbeSpec): number | null => probeOf(spec).seed?.(spec) ?? null;
/** The released search a spec runs ("cola", "program-selection"), else its probe's name. */
export const presetOfSpec = (spec: ProbeSpec): string => probeOf(spec).searchPreset?.(spec) ?? spec.probe;
/** A search preset as a sentence names it ("CoLa"); another name as it is. */
export const presetTitle = (preset: string): string => (Object.hasOwn(PRESET_NAME, preset) ? PRESET_NAME[preset as MctsPreset] : preset);
/** The layers a spec silences (none for a probe that silences nothing). */
export const silencedLayers = (spec: ProbeSpec): number[] => probeOf(spec).silenced?.(spec) ?? [];
/** The spec with another seed and, when given, budget; unchanged for a probe that takes neither. */
export function reseeded(spec: ProbeSpec, seed: number, budget?: number): ProbeSpec {
  const p = probeOf(spec);
  return p.reseed ? p.reseed(spec, seed, budget) : spec;
}

/** The spec a setup choice asks for (null for deployment, which every run holds). */
export const probeSpecOf = (name: ProbeName, o: ProbeChoice, numLayers: number): ProbeSpec | null => probeOf(name).fromChoice?.(o, numLayers) ?? null;

/** The protocols the Setup screen offers, probe by probe in registry order. */
export const SETUP_PRESETS: readonly SetupPreset<ProbeSpec>[] = ALL.flatMap((p) => p.presets ?? []);

/** The run's probes bound to it (a depth-matched baseline to its MCTS probe and questions). */
export async function bindProbes(probes: readonly ProbeSpec[], questions: readonly QuestionIdentity[]): Promise<ProbeSpec[]> {
  const out: ProbeSpec[] = [];
  for (const spec of probes) out.push((await probeOf(spec).bind?.(spec, probes, questions)) ?? spec);
  return out;
}

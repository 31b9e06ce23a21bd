// One definition of a run from a setup to the store, shared by the Setup screen, the audit CLI and
// studies: the probe list (deployment first, one spec per probe, refused in words otherwise), the
// CoLa condition's overrides, how a probe spec reads (with its route space), the model's layers a
// run states, and what a built-in model was not trained on or cannot be graded under.

import { builtinModel } from './builtin-models';
import { AuditError } from './errors';
import { DEPLOYMENT, isDeployment, probeOf, routeSpaceOfSpec } from './probes/registry';
import { arithLevelOf } from './tasks/arith';
import type { Condition, ProbeSpec, RunManifest } from './types';

export { colaOverrides } from './boxed';

/** A probe spec with the name a form or a plan gives it ("MCTS (CoLa)"). */
export interface NamedSpec {
  label: string;
  spec: ProbeSpec;
}

/** Why a list of probes cannot run together, in words: two specs of one probe ("A and B both run
 *  mcts-routes; choose one"). Empty when they can. */
export function probeConflicts(items: readonly NamedSpec[]): string[] {
  const byProbe = new Map<string, string[]>();
  for (const { label, spec } of items) byProbe.set(spec.probe, [...(byProbe.get(spec.probe) ?? []), label]);
  return [...byProbe].filter(([, labels]) => labels.length > 1).map(([probe, labels]) => `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]} both run ${probe}; choose one.`);
}

/** The probes of a run: deployment, then the chosen specs (a deployment among them is not
 *  repeated). Throws, naming them, when two specs run one probe. */
export function runProbes(specs: readonly ProbeSpec[]): ProbeSpec[] {
  const chosen = specs.filter((s) => !isDeployment(s));
  const conflicts = probeConflicts(chosen.map((spec) => ({ label: probeSpecText(spec), spec })));
  if (conflicts.length) throw new AuditError('bad-input', conflicts.join(' '));
  return [{ probe: DEPLOYMENT }, ...chosen];
}

/** "random routes ×32 · neighborhood": the probe as it describes itself (preset included), and
 *  the route space it draws from, when it draws from one. */
export function probeSpecText(spec: ProbeSpec): string {
  const text = probeOf(spec).describe(spec);
  const space = routeSpaceOfSpec(spec);
  return space ? `${text} · ${space.kind}` : text;
}

/** The layers of a run's model: as its manifest states them, else (a run stored before manifests
 *  stated them) as a route space of its probes does; null when neither does. */
export function manifestNumLayers(manifest: Pick<RunManifest, 'model' | 'probes'>): number | null {
  if (manifest.model.numLayers !== undefined) return manifest.model.numLayers;
  for (const p of manifest.probes) {
    const space = routeSpaceOfSpec(p);
    if (space) return space.numLayers;
  }
  return null;
}


/** The task a file's questions belong to for a built-in model's warning: the built-in arithmetic
 *  level every one of them is written as (`questions`: the rows read so far), else "a task file". */
export function fileTaskOf(questions: readonly string[]): string {
  const levels = new Set(questions.map(arithLevelOf));
  const [level] = levels;
  return questions.length > 0 && levels.size === 1 && level !== null ? level : 'a task file';
}

/** A warning when a built-in model is given a condition that leaves it nothing to grade: one that
 *  counts an answer only inside \boxed{} (CoLa's), which the built-in models never write, so every
 *  attempt is graded wrong ([invalid]) on every probe. null otherwise. */
export function boxedConditionWarning(model: string, condition: Pick<Condition, 'requireBoxed'>): string | null {
  const builtin = builtinModel(model);
  if (builtin === null || !condition.requireBoxed) return null;
  return `${builtin.id} never writes \\boxed{} (it answers with the number alone), so under a condition that counts only a boxed answer every attempt is graded [invalid]: realized and reachable are 0 on every probe. Untick the \\boxed{} requirement or reset the condition.`;
}

/** A warning when a built-in model is given a task it was not trained on ("builtin:arith-1d",
 *  "arith-1d", "hub:gsm8k"): what it finds there is mostly luck. null otherwise. */
export function untrainedTaskWarning(model: string, task: string): string | null {
  const builtin = builtinModel(model);
  if (builtin === null) return null;
  const id = task.startsWith('builtin:') ? task.slice('builtin:'.length) : task;
  const trained = builtin.trainedOn;
  if ((trained.tasks as readonly string[]).includes(id)) return null;
  return `${builtin.id} was trained only on ${trained.words}; on ${task} it was never trained, so what it realizes or reaches there is mostly luck, not hidden ability.`;
}

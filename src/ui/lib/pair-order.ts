// Which of two runs Compare puts first: the base model as A and the trained one as B, so B − A is
// what training changed (as the study report's F3 reads it). A pair is base/trained when a study
// preset names it so, or when one model's name extends the other's ("Qwen2.5-0.5B" →
// "Qwen2.5-0.5B-Instruct", "micro-arith" → "micro-arith-rl"); otherwise the order chosen stays.

import builtinPlan from '../../../studies/builtin.json';
import finding3Plan from '../../../studies/finding3-pairs.json';
import { builtinModel, builtinRef } from '../../audit/builtin-models';
import type { RunManifest } from '../../audit/types';

const KNOWN: readonly { base: string; trained: string }[] = [...builtinPlan.pairs, ...finding3Plan.pairs];

/** A run's model as a plan names it: "builtin:micro-arith", or its Hub repo / file name. */
export function modelRef(m: RunManifest['model']): string {
  const b = builtinModel(m.source) ?? builtinModel(m.name);
  return b ? builtinRef(b) : m.name;
}

/** Why `base` is the base of `trained`, or null when nothing says so. */
export function baseReason(base: string, trained: string): string | null {
  if (base === trained) return null;
  if (KNOWN.some((p) => p.base === base && p.trained === trained)) return 'a base/trained pair the study presets name';
  const name = (r: string) => r.replace(/^builtin:/, '').split('/').pop()!.toLowerCase();
  if (name(trained).startsWith(`${name(base)}-`)) return `the trained model's name extends the base's`;
  return null;
}

export interface OrderedPair<R> {
  pair: [R, R];
  /** Why A is the base and B the trained model; null when neither is known to be. */
  reason: string | null;
}

/** The pair with its base first when one is known to be the base of the other. */
export function baseFirst<R extends { manifest: Pick<RunManifest, 'model'> }>(pair: readonly [R, R]): OrderedPair<R> {
  const [a, b] = pair;
  const [ra, rb] = [modelRef(a.manifest.model), modelRef(b.manifest.model)];
  const forward = baseReason(ra, rb);
  if (forward) return { pair: [a, b], reason: forward };
  const backward = baseReason(rb, ra);
  if (backward) return { pair: [b, a], reason: backward };
  return { pair: [a, b], reason: null };
}

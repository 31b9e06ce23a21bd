// The Study screen's form over the plan's JSON text. The text is the source of truth: the form reads
// the plan as written (defaults shown where a field is omitted) and each edit rewrites the text.
// These functions only move values between fields; what a value means is normalizePlan's business.

import { DEFAULT_PROBE_CHOICE, isProbeName, probeSpecOf, routeSpaceEntry, routeSpaceOfSpec, SPACE_NAMES, STANDALONE_REACH, takesSpace, titleOf, withBaselines, type SpaceName } from '../../audit';
import { SELECTOR_NAMES } from '../../audit/selectors';
import { normalizePlan, probeLabel, type StudyProbe } from '../../audit/study-plan';
import { BUILTIN_MODELS, builtinRef } from '../../audit/builtin-models';
import { TASKS, taskChoiceLabel, type TaskEntry } from '../../audit/tasks/registry';
import { parseJsonInput } from '../../util/json-input';

export type RawPlan = Record<string, unknown>;

/** The plan as written, or null when the text is not a JSON object (the form is then disabled). */
export function rawPlan(text: string): RawPlan | null {
  try {
    const v: unknown = parseJsonInput(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as RawPlan) : null;
  } catch {
    return null;
  }
}

export const writePlan = (raw: RawPlan): string => JSON.stringify(raw, null, 2);

/** What a plan that omits a field gets (the audit CLI's defaults, from normalizePlan). */
export const PLAN_DEFAULTS = normalizePlan({ models: ['-'], tasks: ['-'] });

/** The built-in models as a plan names them ("builtin:micro-arith"). */
export const FORM_MODELS = BUILTIN_MODELS.map((m) => ({ ref: builtinRef(m), label: `${m.id} (built in, offline)` }));

export const FORM_TASKS = TASKS;

/** A task as the form offers it; `read`: the test questions a load read from its source. */
export const formTaskLabel = (t: TaskEntry, read?: number): string => `${taskChoiceLabel(t, read)} (${t.kind === 'hub' ? 'Hub' : 'built in'})`;

/** Any depth: the spec a choice builds differs in kind (probe, preset, space) the same at every depth. */
const SOME_DEPTH = 8;

/** The probes a plan may list (the registry's standalone reach probes): a route probe once per
 *  space that builds another spec (an MCTS preset works in its own space), named with the space
 *  its spec draws from and the baselines that run beside it. */
export const FORM_PROBES: { probe: StudyProbe; label: string }[] = STANDALONE_REACH.flatMap((name) => {
  const seen = new Set<string>();
  const spaces: (SpaceName | undefined)[] = takesSpace(name) ? [...SPACE_NAMES] : [undefined];
  return spaces.flatMap((space) => {
    const spec = probeSpecOf(name, { ...DEFAULT_PROBE_CHOICE, space: space ?? DEFAULT_PROBE_CHOICE.space }, SOME_DEPTH);
    if (!spec || seen.has(JSON.stringify(spec))) return [];
    seen.add(JSON.stringify(spec));
    const title = titleOf(spec);
    const beside = withBaselines([spec]).slice(1).map(titleOf);
    const parts = [title[0].toUpperCase() + title.slice(1), routeSpaceEntry(routeSpaceOfSpec(spec)?.kind ?? '')?.label ?? '', beside.length ? `with ${beside.join(', ')} beside it` : ''];
    return [{ probe: space ? { probe: name, space } : { probe: name }, label: parts.filter(Boolean).join(', ') }];
  });
});

export const FORM_SELECTORS = SELECTOR_NAMES;

/** A Hub model id the form adds: org/name, optionally @revision (each part starting with a letter or digit). */
export const HUB_MODEL_RE = /^[A-Za-z0-9][\w.-]{0,95}\/[A-Za-z0-9][\w.-]{0,95}(?:@[A-Za-z0-9][\w./-]{0,127})?$/;

/** The strings a list field holds as written (entries of another type are left alone by edits). */
export function listOf(raw: RawPlan, key: string): string[] {
  const v = raw[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Adds or removes one entry of a list field; the other entries keep their order. */
export function toggleIn(raw: RawPlan, key: string, item: string, on: boolean): RawPlan {
  const list: unknown[] = Array.isArray(raw[key]) ? [...(raw[key] as unknown[])] : [];
  const rest = list.filter((x) => x !== item);
  return { ...raw, [key]: on ? [...rest, item] : rest };
}

/** A plan's probe entry as written, when it names a probe the registry knows (an unknown name is
 *  normalizePlan's problem to report; the form shows it as no ticked box). */
const knownProbe = (p: unknown): p is StudyProbe => typeof p === 'object' && p !== null && typeof (p as StudyProbe).probe === 'string' && isProbeName((p as StudyProbe).probe);

/** The probe labels the plan lists ("random-routes/blocks", "sampling"); omitted probes mean the default. */
export function probeLabels(raw: RawPlan): string[] {
  const v = raw.probes === undefined ? PLAN_DEFAULTS.probes : raw.probes;
  if (!Array.isArray(v)) return [];
  return v.filter(knownProbe).map(probeLabel);
}

export function toggleProbe(raw: RawPlan, probe: StudyProbe, on: boolean): RawPlan {
  const label = probeLabel(probe);
  const list: unknown[] = raw.probes === undefined ? [...PLAN_DEFAULTS.probes] : Array.isArray(raw.probes) ? [...raw.probes] : [];
  const isIt = (p: unknown) => knownProbe(p) && probeLabel(p) === label;
  const rest = list.filter((p) => !isIt(p));
  return { ...raw, probes: on ? [...rest, { ...probe }] : rest };
}

/** Sets a number field as typed; null (an empty field) removes it, so the default applies. */
export function setField(raw: RawPlan, key: string, value: number | boolean | null): RawPlan {
  const { [key]: _old, ...rest } = raw;
  return value === null ? rest : { ...raw, [key]: value };
}

/** The pairs the plan lists as written (entries of another shape are kept by edits, not shown). */
export function pairsOf(raw: RawPlan): { base: string; trained: string; index: number }[] {
  const v = raw.pairs;
  if (!Array.isArray(v)) return [];
  return v.flatMap((p: unknown, index) =>
    typeof p === 'object' && p !== null && typeof (p as { base: unknown }).base === 'string' && typeof (p as { trained: unknown }).trained === 'string'
      ? [{ base: (p as { base: string }).base, trained: (p as { trained: string }).trained, index }]
      : [],
  );
}

export function addPair(raw: RawPlan, base: string, trained: string): RawPlan {
  const list: unknown[] = Array.isArray(raw.pairs) ? [...raw.pairs] : [];
  return { ...raw, pairs: [...list, { base, trained }] };
}

export function removePair(raw: RawPlan, index: number): RawPlan {
  const list: unknown[] = Array.isArray(raw.pairs) ? [...raw.pairs] : [];
  return { ...raw, pairs: list.filter((_, i) => i !== index) };
}

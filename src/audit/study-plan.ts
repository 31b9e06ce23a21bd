// A study plan: its one schema (util/check), its normalised form and the runs it asks for.
//
// A setting is (model, task). Each of the plan's probe entries is its own run of each setting
// (deployment + that probe), exactly the single audit `npm run -s audit -- --probe P --space S` with
// the plan's choices; an entry may set the probe's own settings (settings.ts, with the registry's
// bounds), the plan's budget and seed being the defaults. With `scan`, the setting's first
// random-routes run (else its first run) defines the failure set and an mlp-silencing run over its
// failure and realized questions follows.

import { canonicalJson, sha256Hex } from '../util/hash';
import { arr, bool, CheckError, describe, obj, oneOf, opt, str, tagged, type Check } from '../util/check';
import { clip, firstControl } from '../util/clip';
import { AuditError } from './errors';
import { failureSet } from './silencing';
import { INTERVENTION, probeOf, probeSpecOf, STANDALONE_REACH, takesSpace, UNIFORM_BASELINE, withBaselines } from './probes/registry';
import { DEFAULT_PROBE_CHOICE, settingOf, type ProbeChoice } from './probes/choice';
import { settingSchema, type Settings } from './probes/settings';
import { SPACE_NAMES, type SpaceName } from './probes/route-spaces';
import { RECIPE_NAMES } from './recipes';
import { runProbes } from './run-definition';
import { SELECTOR_NAMES } from './selectors';
import { checkTemplateVars } from './setup';
import type { ProbeName, ProbeSpec, QuestionRecord, SelectorName } from './types';
import { ENGINE_DTYPES, type EngineDtype, type TemplateVars } from '../engine/types';

/** A probe entry of a plan: a standalone reach probe (registry.ts STANDALONE_REACH), its route space
 *  (route probes; default blocks) and any of its own settings (default: the plan's budget and seed,
 *  the registry's defaults for the rest). */
export type StudyProbe = { probe: ProbeName } & Partial<ProbeChoice>;

/** An entry as normalised: its space always stated (blocks for a probe without one). */
export type PlanProbe = StudyProbe & { space: SpaceName };

/** A plan as a person writes it; what it omits takes the audit CLI's defaults. */
export interface StudyPlan {
  name?: string;
  /** Model references: "builtin:micro-arith", a Hub id "org/name[@revision]", or (headless) a folder. */
  models: string[];
  /** Task specs: "builtin:arith-2d", "hub:gsm8k", "hub:mmlu:abstract_algebra", … */
  tasks: string[];
  probes?: StudyProbe[];
  budget?: number;
  questions?: number;
  question_seed?: number;
  seed?: number;
  scan?: boolean;
  /** Seed of the silencing scan's identification / evaluation split. */
  split_seed?: number;
  selectors?: SelectorName[];
  pairs?: { base: string; trained: string }[];
  dtype?: EngineDtype;
  /** Apply each model's chat template (default false), with these template variables set (the
   *  rest keep condition.ts DEFAULT_TEMPLATE_VARS), as the audit CLI's --chat --template-var. */
  chat?: boolean;
  template_vars?: Partial<TemplateVars>;
  /** A math recipe's condition for every task (recipes.ts), as the audit CLI's --recipe. */
  recipe?: string;
  /** New tokens per attempt over the task's (or the recipe's), as the audit CLI's --max-new-tokens. */
  max_new_tokens?: number;
}

/** A plan with every default filled in. Fields a plan may leave out without a default (chat,
 *  template_vars, recipe, max_new_tokens, an entry's own settings) are present only when set, so
 *  the keys of plans without them are what they were. */
export interface NormalizedPlan extends Required<Omit<StudyPlan, 'probes' | 'chat' | 'template_vars' | 'recipe' | 'max_new_tokens'>> {
  probes: PlanProbe[];
  chat?: true;
  template_vars?: Partial<TemplateVars>;
  recipe?: string;
  max_new_tokens?: number;
}

/** The longest plan name: a title, never a document (every screen and log line quotes it). */
export const PLAN_NAME_CHARS = 200;

const planName: Check<string> = (v, p) => {
  const name = str()(v, p);
  if (name.length > PLAN_NAME_CHARS) throw new CheckError(p, `at most ${PLAN_NAME_CHARS} characters`, `${name.length.toLocaleString('en-US')} characters`);
  const control = firstControl(name);
  if (control) throw new CheckError(p, 'no control characters', `a name holding ${control}`);
  return name;
};

/** The entries of `list` that occur more than once, each once. */
function repeated(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(list.filter((x) => seen.has(x) || !seen.add(x)))];
}

/** A non-empty list with no entry twice (entries compared by `key`). */
const once =
  <T>(item: Check<T>, key: (x: T) => string): Check<T[]> =>
  (v, p) => {
    const list = arr(item)(v, p);
    if (list.length === 0) throw new CheckError(p, 'at least 1 entry', 'none');
    const twice = repeated(list.map(key));
    if (twice.length) throw new CheckError(p, 'no repeats', `${clip(twice.join(', '))} twice`);
    return list;
  };

const fail = (p: string, expected: string, v: unknown): never => {
  throw new CheckError(p, expected, describe(v));
};
const ref: Check<string> = (v, p) => (typeof v === 'string' && v.trim() !== '' ? v : fail(p, 'a non-empty string', v));
const whole =
  (min: number): Check<number> =>
  (v, p) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= min ? v : fail(p, `a whole number ≥ ${min}`, v);

const templateVars: Check<Partial<TemplateVars>> = (v, p) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? checkTemplateVars(v as Record<string, unknown>, p) : fail(p, 'an object like {"enable_thinking": false}', v);

/** A probe's own settings (its space apart: every entry may state one). */
const ownSettings = (name: string): [string, Settings[string]][] => Object.entries((probeOf(name).settings ?? {}) as Settings).filter(([k]) => k !== 'space');

/** A probe entry's shape: the probe, a space, and the probe's own settings within their bounds. */
const probeEntry: Check<StudyProbe> = tagged<StudyProbe>(
  'probe',
  Object.fromEntries(
    STANDALONE_REACH.map((name) => [
      name,
      obj({ probe: oneOf(name), space: opt(oneOf(...SPACE_NAMES)), ...Object.fromEntries(ownSettings(name).map(([k, s]) => [k, opt(settingSchema(s))])) }, { strict: true }) as Check<StudyProbe>,
    ]),
  ),
);

/** An entry as normalised: probe, space (a probe without one gets the default), then its settings
 *  in the probe's declared order. */
function planProbe(e: StudyProbe): PlanProbe {
  const own = ownSettings(e.probe).flatMap(([k]) => (e[k as keyof StudyProbe] === undefined ? [] : [[k, e[k as keyof StudyProbe]]]));
  return { probe: e.probe, space: takesSpace(e.probe) ? (e.space ?? DEFAULT_PROBE_CHOICE.space) : DEFAULT_PROBE_CHOICE.space, ...Object.fromEntries(own) };
}

const DEFAULT_PROBES: StudyProbe[] = [{ probe: UNIFORM_BASELINE, space: DEFAULT_PROBE_CHOICE.space }];

/** The plan's schema; the defaults and the rules between fields are normalizePlan's. */
const planSchema = obj(
  {
    name: opt(planName),
    models: once(ref, JSON.stringify),
    tasks: once(ref, JSON.stringify),
    probes: opt(once(probeEntry, (e) => probeLabel(planProbe(e)))),
    budget: opt(settingSchema(settingOf('budget'))),
    questions: opt(whole(1)),
    question_seed: opt(whole(0)),
    seed: opt(settingSchema(settingOf('seed'))),
    scan: opt(bool),
    split_seed: opt(whole(0)),
    selectors: opt(arr(oneOf(...SELECTOR_NAMES))),
    pairs: opt(arr(obj({ base: str(), trained: str() }))),
    dtype: opt(oneOf(...ENGINE_DTYPES)),
    chat: opt(bool),
    template_vars: opt(templateVars),
    recipe: opt(oneOf(...RECIPE_NAMES)),
    max_new_tokens: opt(whole(1)),
  },
  { strict: true },
);

const bad = (msg: string) => new AuditError('bad-input', `study plan: ${msg}`);

/** The plan with every default filled in; throws naming the first bad field and what it takes. */
export function normalizePlan(raw: unknown): NormalizedPlan {
  let p: ReturnType<typeof planSchema>;
  try {
    p = planSchema(raw, '');
  } catch (e) {
    throw e instanceof CheckError || e instanceof AuditError ? bad(e.message) : e;
  }
  if (p.template_vars !== undefined && !p.chat) throw bad('template_vars needs "chat": true (a raw prompt renders no chat template)');
  return {
    name: p.name ?? 'study',
    models: p.models,
    tasks: p.tasks,
    probes: (p.probes ?? DEFAULT_PROBES).map(planProbe),
    budget: (p.budget as number | undefined) ?? DEFAULT_PROBE_CHOICE.budget,
    questions: p.questions ?? 20,
    question_seed: p.question_seed ?? 1,
    seed: (p.seed as number | undefined) ?? DEFAULT_PROBE_CHOICE.seed,
    scan: p.scan ?? false,
    split_seed: p.split_seed ?? 0,
    selectors: p.selectors ?? [],
    pairs: p.pairs ?? [],
    dtype: p.dtype ?? 'f32',
    ...(p.chat ? { chat: true as const } : {}),
    ...(p.template_vars ? { template_vars: p.template_vars } : {}),
    ...(p.recipe !== undefined ? { recipe: p.recipe } : {}),
    ...(p.max_new_tokens !== undefined ? { max_new_tokens: p.max_new_tokens } : {}),
  };
}

/** SHA-256 of the normalized plan (its name excluded: renaming a plan changes nothing computed). */
export async function planKey(plan: NormalizedPlan): Promise<string> {
  const { name: _name, ...rest } = plan;
  return sha256Hex(canonicalJson(rest));
}

/** "random-routes/blocks", "mcts-routes/neighborhood", "sampling"; an entry setting its own
 *  settings adds them: "sampling (budget 64, temperature 1)". */
export function probeLabel(p: StudyProbe): string {
  const base = takesSpace(p.probe) ? `${p.probe}/${p.space ?? DEFAULT_PROBE_CHOICE.space}` : p.probe;
  const own = ownSettings(p.probe).flatMap(([k]) => (p[k as keyof StudyProbe] === undefined ? [] : [`${k} ${String(p[k as keyof StudyProbe])}`]));
  return own.length ? `${base} (${own.join(', ')})` : base;
}

// ------------------------------------------------------------------ the runs a plan asks for

/** Models the study audits: the plan's, then pair members not already listed. */
export function studyModels(plan: NormalizedPlan): string[] {
  const out = [...plan.models];
  for (const { base, trained } of plan.pairs) for (const m of [base, trained]) if (!out.includes(m)) out.push(m);
  return out;
}

export interface StudySetting {
  model: string;
  task: string;
}

export function studySettings(plan: NormalizedPlan): StudySetting[] {
  return studyModels(plan).flatMap((model) => plan.tasks.map((task) => ({ model, task })));
}

/** The probe label whose reachability defines a setting's failure set. */
export function scanProbe(plan: NormalizedPlan): string {
  return probeLabel(plan.probes.find((p) => p.probe === UNIFORM_BASELINE) ?? plan.probes[0]);
}

/** One run the plan asks for: a setting and a probe entry, or (probe null) its silencing scan. */
export interface PlannedRun {
  setting: StudySetting;
  label: string;
  probe: PlanProbe | null;
}

/** Every run the plan asks for, as (setting, label), scans after their defining run. */
export function plannedRuns(plan: NormalizedPlan): PlannedRun[] {
  return studySettings(plan).flatMap((setting) => [
    ...plan.probes.map((probe) => ({ setting, label: probeLabel(probe), probe })),
    ...(plan.scan ? [{ setting, label: INTERVENTION, probe: null }] : []),
  ]);
}

/** The probe specs of one run: deployment and the entry's probe (an MCTS probe with its
 *  depth-matched baseline), for a model of L layers, under the entry's settings over the plan's. */
export function studyRunProbes(plan: NormalizedPlan, p: StudyProbe, numLayers: number): ProbeSpec[] {
  const { probe, ...own } = p;
  const choice: ProbeChoice = { ...DEFAULT_PROBE_CHOICE, budget: plan.budget, seed: plan.seed, ...own, space: p.space ?? DEFAULT_PROBE_CHOICE.space };
  return withBaselines(runProbes([probeSpecOf(probe, choice, numLayers)!]));
}

/** The failure and realized questions a setting's scan runs on (from its defining run). */
export function scanQuestions(defining: QuestionRecord[]): { failures: string[]; realized: string[] } {
  const set = failureSet(defining);
  return { failures: set.failures.map((d) => d.id), realized: set.realized.map((d) => d.id) };
}

// Studies: a plan of settings (models × tasks × probes under one condition per task, with
// base/trained pairs), expanded into single audits; the paper's three findings are computed from
// those audits' stored records by study-report.ts.
//
// A setting is (model, task). Each of its probes is its own run (deployment + that probe), exactly
// the single audit `npm run -s audit -- --probe P --space S` with the plan's choices, so a study's
// numbers equal those audits' to the last digit and every run is content-addressed and reusable.
// With `scan`, the setting's first random-routes run (else its first run) defines the failure set
// and an mlp-silencing run over its failure and realized questions follows.

import { canonicalJson, sha256Hex } from '../util/hash';
import { AuditError } from './errors';
import { failureSet } from './silencing';
import { INTERVENTION, probeSpecOf, STANDALONE_REACH, takesSpace, UNIFORM_BASELINE, withBaselines } from './probes/registry';
import { RECIPE_NAMES } from './recipes';
import { checkTemplateVars } from './setup';
import { DEFAULT_PROBE_CHOICE, intBounds, type ProbeChoice } from './probes/choice';
import { SPACE_NAMES, type SpaceName } from './probes/route-spaces';
import { runProbes } from './run-definition';
import { SELECTOR_NAMES } from './selectors';
import type { ProbeName, ProbeSpec, QuestionRecord, SelectorName } from './types';
import { ENGINE_DTYPES, type EngineDtype, type TemplateVars } from '../engine/types';
import { clip, firstControl, quote } from '../util/clip';

/** A reach probe a plan names on its own (registry.ts STANDALONE_REACH). */
export type StudyProbeName = ProbeName;

export interface StudyProbe {
  probe: StudyProbeName;
  /** Route probes only (default blocks). */
  space?: SpaceName;
}

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

/** A plan with every default filled in. */
export interface NormalizedPlan {
  name: string;
  models: string[];
  tasks: string[];
  probes: Required<StudyProbe>[];
  budget: number;
  questions: number;
  question_seed: number;
  seed: number;
  scan: boolean;
  split_seed: number;
  selectors: SelectorName[];
  pairs: { base: string; trained: string }[];
  dtype: EngineDtype;
  /** Present only on chat plans, so the keys of plans without them are what they were. */
  chat?: true;
  template_vars?: Partial<TemplateVars>;
  /** Present only on plans that name them, so the keys of plans without them are what they were. */
  recipe?: string;
  max_new_tokens?: number;
}

const bad = (msg: string) => new AuditError('bad-input', `study plan: ${msg}`);
const DTYPES: readonly EngineDtype[] = ENGINE_DTYPES;
const KNOWN = ['name', 'models', 'tasks', 'probes', 'budget', 'questions', 'question_seed', 'seed', 'scan', 'split_seed', 'selectors', 'pairs', 'dtype', 'chat', 'template_vars', 'recipe', 'max_new_tokens'];

/** A plan's chat fields: template_vars only with chat, each variable as the CLI's --template-var takes it. */
function planChat(p: Record<string, unknown>): Pick<NormalizedPlan, 'chat' | 'template_vars'> {
  if (p.chat !== undefined && typeof p.chat !== 'boolean') throw bad('chat must be true or false');
  const tv = p.template_vars;
  if (tv === undefined) return p.chat ? { chat: true } : {};
  if (!p.chat) throw bad('template_vars needs "chat": true (a raw prompt renders no chat template)');
  if (typeof tv !== 'object' || tv === null || Array.isArray(tv)) throw bad('template_vars must be an object like {"enable_thinking": false}');
  try {
    return { chat: true, template_vars: checkTemplateVars(tv as Record<string, unknown>, 'template_vars') };
  } catch (e) {
    throw bad((e as Error).message);
  }
}

/** A plan's recipe: one of recipes.ts RECIPES. */
function planRecipe(p: Record<string, unknown>): Pick<NormalizedPlan, 'recipe'> {
  if (p.recipe === undefined) return {};
  if (typeof p.recipe !== 'string' || !RECIPE_NAMES.includes(p.recipe)) throw bad(`recipe must be one of ${RECIPE_NAMES.join(', ')}, got ${quote(p.recipe)}`);
  return { recipe: p.recipe };
}

/** The longest plan name: a title, never a document (every screen and log line quotes it). */
export const PLAN_NAME_CHARS = 200;

/** A plan's name: a string within PLAN_NAME_CHARS and without control characters. */
function planName(v: unknown): string {
  if (v === undefined) return 'study';
  if (typeof v !== 'string') throw bad('name must be a string');
  if (v.length > PLAN_NAME_CHARS) throw bad(`name must be at most ${PLAN_NAME_CHARS} characters, got ${v.length.toLocaleString('en-US')}`);
  const control = firstControl(v);
  if (control) throw bad(`name must not hold control characters (it has ${control})`);
  return v;
}

/** The entries of `list` that occur more than once, each once. */
function repeated(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(list.filter((x) => seen.has(x) || !seen.add(x)))];
}

/** The plan with every default filled in; throws naming the first bad field. */
export function normalizePlan(raw: unknown): NormalizedPlan {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('must be a JSON object');
  const p = raw as Record<string, unknown>;
  for (const k of Object.keys(p)) if (!KNOWN.includes(k)) throw bad(`unknown field "${k}" (known: ${KNOWN.join(', ')})`);
  const strings = (k: string, min: number): string[] => {
    const v = p[k] ?? [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.trim() === '')) throw bad(`${k} must be a list of non-empty strings`);
    if (v.length < min) throw bad(`${k} needs at least ${min} entr${min === 1 ? 'y' : 'ies'}`);
    const twice = repeated(v as string[]);
    if (twice.length) throw bad(`${k} lists ${clip(twice.map((x) => JSON.stringify(x)).join(', '))} twice`);
    return v as string[];
  };
  const int = (k: string, dflt: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = p[k] ?? dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(`${k} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, got ${quote(p[k])}`);
    return v;
  };
  /** A probe setting the plan sets for every probe, with its default and bounds (choice.ts). */
  const setting = (k: 'budget' | 'seed'): number => {
    const { min, max } = intBounds(k);
    return int(k, DEFAULT_PROBE_CHOICE[k], min, max);
  };
  const probes = (p.probes ?? [{ probe: UNIFORM_BASELINE, space: DEFAULT_PROBE_CHOICE.space }]) as unknown;
  if (!Array.isArray(probes) || probes.length === 0) throw bad('probes must be a non-empty list');
  const normProbes = probes.map((x, i): Required<StudyProbe> => {
    const q = x as Record<string, unknown>;
    if (typeof q !== 'object' || q === null || !STANDALONE_REACH.includes(q.probe as StudyProbeName)) throw bad(`probes[${i}].probe must be one of ${STANDALONE_REACH.join(', ')}`);
    const space = (q.space ?? DEFAULT_PROBE_CHOICE.space) as SpaceName;
    if (!SPACE_NAMES.includes(space)) throw bad(`probes[${i}].space must be ${SPACE_NAMES.slice(0, -1).join(', ')} or ${SPACE_NAMES.at(-1)}`);
    for (const k of Object.keys(q)) if (k !== 'probe' && k !== 'space') throw bad(`probes[${i}] has an unknown field "${k}"`);
    return { probe: q.probe as StudyProbeName, space: takesSpace(q.probe as string) ? space : DEFAULT_PROBE_CHOICE.space };
  });
  const labels = normProbes.map(probeLabel);
  const twice = repeated(labels);
  if (twice.length) throw bad(`probes list one probe twice (${clip(twice.join(', '))})`);
  const selectors = (p.selectors ?? []) as unknown;
  if (!Array.isArray(selectors) || selectors.some((s) => !SELECTOR_NAMES.includes(s))) throw bad(`selectors must be a list of ${SELECTOR_NAMES.join(', ')}`);
  const pairs = (p.pairs ?? []) as unknown;
  if (!Array.isArray(pairs) || pairs.some((x) => typeof x !== 'object' || x === null || typeof x.base !== 'string' || typeof x.trained !== 'string')) throw bad('pairs must be a list of { "base": model, "trained": model }');
  const dtype = (p.dtype ?? 'f32') as EngineDtype;
  if (!DTYPES.includes(dtype)) throw bad(`dtype must be one of ${DTYPES.join(', ')}`);
  if (p.scan !== undefined && typeof p.scan !== 'boolean') throw bad('scan must be true or false');
  return {
    name: planName(p.name),
    models: strings('models', 1),
    tasks: strings('tasks', 1),
    probes: normProbes,
    budget: setting('budget'),
    questions: int('questions', 20, 1),
    question_seed: int('question_seed', 1, 0),
    seed: setting('seed'),
    scan: (p.scan as boolean | undefined) ?? false,
    split_seed: int('split_seed', 0, 0),
    selectors: selectors as SelectorName[],
    pairs: (pairs as { base: string; trained: string }[]).map(({ base, trained }) => ({ base, trained })),
    dtype,
    ...planChat(p),
    ...planRecipe(p),
    ...(p.max_new_tokens !== undefined ? { max_new_tokens: int('max_new_tokens', 1, 1) } : {}),
  };
}

/** SHA-256 of the normalized plan (its name excluded: renaming a plan changes nothing computed). */
export async function planKey(plan: NormalizedPlan): Promise<string> {
  const { name: _name, ...rest } = plan;
  return sha256Hex(canonicalJson(rest));
}

/** "random-routes/blocks", "mcts-routes/neighborhood", "sampling". */
export function probeLabel(p: StudyProbe): string {
  return takesSpace(p.probe) ? `${p.probe}/${p.space ?? DEFAULT_PROBE_CHOICE.space}` : p.probe;
}

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

/** The probe specs of one run: deployment and the study probe (an MCTS probe with its
 *  depth-matched baseline), for a model of L layers. */
export function studyRunProbes(plan: NormalizedPlan, p: StudyProbe, numLayers: number): ProbeSpec[] {
  const choice: ProbeChoice = { ...DEFAULT_PROBE_CHOICE, budget: plan.budget, seed: plan.seed, space: p.space ?? DEFAULT_PROBE_CHOICE.space };
  return withBaselines(runProbes([probeSpecOf(p.probe, choice, numLayers)!]));
}

/** Every run the plan asks for, as (setting, label), scans after their defining run. */
export function plannedRuns(plan: NormalizedPlan): { setting: StudySetting; label: string; probe: Required<StudyProbe> | null }[] {
  return studySettings(plan).flatMap((setting) => [
    ...plan.probes.map((probe) => ({ setting, label: probeLabel(probe), probe })),
    ...(plan.scan ? [{ setting, label: INTERVENTION, probe: null }] : []),
  ]);
}

/** The failure and realized questions a setting's scan runs on (from its defining run). */
export function scanQuestions(defining: QuestionRecord[]): { failures: string[]; realized: string[] } {
  const set = failureSet(defining);
  return { failures: set.failures.map((d) => d.id), realized: set.realized.map((d) => d.id) };
}

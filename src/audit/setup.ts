// One definition of how an audit is set up from a handful of choices — which questions, which
// condition, which probe specs — shared by the audit CLI and studies, so a study's setting and the
// single audit with the same choices are the same run (same run key, same numbers).

import { AuditError } from './errors';
import { calibrates } from './selectors';
import { bindFewShotPool, DEFAULT_TEMPLATE_VARS, defaultCondition } from './condition';
import { colaOverrides } from './boxed';
import { recipeOf, type Recipe } from './recipes';
import type { LoadTaskOptions } from './tasks/index';
import type { Condition, LoadedTask, SelectorName, TaskSpec } from './types';
import type { EngineDtype, TemplateVars } from '../engine/types';
import { clip } from '../util/clip';
import { checked, checkTemplateVarsPartial } from './condition-schema';

export interface QuestionChoice {
  questions: number;
  /** Which questions (built-in generators) and which few-shot examples. */
  questionSeed: number;
  fewShot: number;
  /** Train questions to load; default: none unless few-shot examples or the fixed-route selector need them. */
  trainQuestions?: number;
  selectors: SelectorName[];
}

/** loadTask options for a question choice. */
export function taskLoadOptions(o: QuestionChoice): LoadTaskOptions {
  const train = o.trainQuestions ?? (o.fewShot || o.selectors.some(calibrates) ? Math.max(20, o.fewShot) : undefined);
  return { questions: o.questions, seed: o.questionSeed, ...(train !== undefined ? { trainQuestions: train } : {}) };
}

export interface ConditionChoice {
  dtype: EngineDtype;
  chat: boolean;
  fewShot: number;
  questionSeed: number;
  maxNewTokens?: number;
  /** CoLa's condition (boxed.ts colaOverrides): greedy, 50 new tokens, no stop sequences, the
   *  answer asked for and graded only in \boxed{}; a maxNewTokens given still sets the tokens. */
  boxed: boolean;
  /** Chat template variables set (chat only); the others keep DEFAULT_TEMPLATE_VARS. */
  templateVars?: Partial<TemplateVars>;
  /** Replace the task's prompt template and stop sequences (the app's Setup edits both). */
  promptTemplate?: string;
  stopSequences?: string[];
  /** A math recipe's condition (recipes.ts): its prompt, chat template, decoding, tokens, stops and
   *  answer reading over the task's; a maxNewTokens given still sets the tokens. */
  recipe?: string;
}

/** Template variables from "NAME=VALUE" settings (the CLI's --template-var): add_generation_prompt
 *  and enable_thinking take true or false, date_string a day as "%d %b %Y"; checked by the
 *  condition schema's (condition-schema.ts). */
export function parseTemplateVars(settings: readonly string[]): Partial<TemplateVars> {
  const raw: Record<string, unknown> = {};
  for (const s of settings) {
    const eq = s.indexOf('=');
    const [name, value] = eq < 0 ? [s, ''] : [s.slice(0, eq), s.slice(eq + 1)];
    if (Object.hasOwn(raw, name)) throw new AuditError('bad-input', `template variable ${clip(name)} is set twice (set each once)`);
    raw[name] = name !== 'date_string' && (value === 'true' || value === 'false') ? value === 'true' : value;
  }
  return checkTemplateVars(raw, '');
}

/** Template variables as JSON gives them (a plan's template_vars): each of its own type, never
 *  converted: a flag is a JSON boolean, a date a JSON string. Errors name the variable as `field.name`. */
export function checkTemplateVars(vars: Record<string, unknown>, field: string): Partial<TemplateVars> {
  return checked(checkTemplateVarsPartial, vars, field);
}

/** A recipe's condition fields over a task's (a boxed task keeps its answer in \boxed{} unless the
 *  recipe reads an answer line). */
export function recipeCondition(task: TaskSpec, recipe: Recipe): Partial<Condition> {
  return { ...recipe.overrides, ...(task.requireBoxed && recipe.overrides.answerLine === undefined ? { requireBoxed: true } : {}) };
}

/** The task's default condition with these choices, its few-shot pool bound. */
export async function auditCondition(task: LoadedTask, o: ConditionChoice): Promise<Condition> {
  if (!o.chat && !(o.recipe !== undefined && recipeOf(o.recipe).overrides.chatTemplate) && o.templateVars && Object.keys(o.templateVars).length) throw new AuditError('bad-input', 'template variables need the chat template (a raw prompt renders none)');
  const template = o.promptTemplate ?? task.spec.promptTemplate;
  const recipe = o.recipe === undefined ? null : recipeOf(o.recipe);
  if (recipe) {
    const clash = [o.boxed && 'the boxed condition', o.promptTemplate !== undefined && 'a prompt template', o.stopSequences !== undefined && 'stop sequences'].filter(Boolean);
    if (clash.length) throw new AuditError('bad-input', `recipe ${recipe.name} sets its own prompt, stops and answer reading; drop ${clash.join(' and ')}`);
    if (o.chat && !recipe.overrides.chatTemplate) throw new AuditError('bad-input', `recipe ${recipe.name} writes its chat markup into its prompt; drop the chat template`);
  }
  const chat = recipe ? recipe.overrides.chatTemplate : o.chat;
  const base = defaultCondition(task.spec, o.dtype, {
    ...(o.promptTemplate !== undefined ? { promptTemplate: o.promptTemplate } : {}),
    ...(o.stopSequences !== undefined ? { stopSequences: o.stopSequences } : {}),
    ...(o.boxed ? colaOverrides(template) : {}),
    ...(recipe ? recipeCondition(task.spec, recipe) : {}),
    chatTemplate: chat,
    ...(chat ? { templateVars: { ...DEFAULT_TEMPLATE_VARS, ...o.templateVars } } : {}),
    ...(o.maxNewTokens !== undefined ? { maxNewTokens: o.maxNewTokens } : {}),
  });
  return bindFewShotPool({ ...base, fewShot: { ...base.fewShot, n: o.fewShot, seed: o.questionSeed } }, task.train);
}

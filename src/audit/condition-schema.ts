// The one schema of a run condition and of its chat-template variables, with their bounds
// (util/check style). The audit driver (condition.ts validateCondition), Setup, permalinks, study
// plans and run files all check a condition through it; each adds only its own context rules
// (the driver: what a run made now must record).

import { ENGINE_DTYPES, type TemplateVars } from '../engine/types';
import { DEFAULT_DATE_STRING, parseDateString } from '../engine/template-date';
import { SHA256_HEX } from '../util/hash';
import { arr, bool, CheckError, describe, exact, num, obj, oneOf, opt, str, tagged, where, type Check } from '../util/check';
import { FORMAT_NAMES } from './formats/registry';
import { AuditError } from './errors';
import type { Condition, DecodeRule } from './types';

/** The decode rule of every condition made now: generated ids become text through the
 *  tokenizer.json decoder alone, as `tokenizers` and transformers 5 decode them; the tokenizer
 *  config's clean_up_tokenization_spaces (which drops the space in "1 ,000", and transformers 4
 *  applied) is never applied. It can change a grade, so it is part of the condition key. */
export const DECODE_RULE: DecodeRule = 'tokenizers';

/** The most new tokens a condition takes: above the longest recipe's (DAPO's 20,480, recipes.ts). */
export const MAX_NEW_TOKENS = 32_768;
export const MAX_FEW_SHOT = 32;
export const MAX_TEMPERATURE = 5;
/** Prompt templates and system prompts; markers (delimiters, stop sequences, answer lines). */
const MAX_TEXT = 20_000;
const MAX_MARKER = 64;
const MAX_STOPS = 16;

const int = num({ int: true });
const marker = str({ max: MAX_MARKER });

/** A template variable's value: a flag is a boolean, a date a "%d %b %Y" string (never converted). */
const flag: Check<boolean> = (v, p) => {
  if (typeof v !== 'boolean') throw new CheckError(p, 'true or false (a boolean)', describe(v));
  return v;
};
const dateString: Check<string> = (v, p) => {
  if (typeof v !== 'string' || parseDateString(v) === null) throw new CheckError(p, `a day as a string "%d %b %Y" (e.g. "${DEFAULT_DATE_STRING}")`, describe(v));
  return v;
};

const TEMPLATE_VAR_FIELDS = { add_generation_prompt: flag, date_string: dateString, enable_thinking: opt(flag) };

/** A condition's template variables: all but enable_thinking set, no other name. */
export const checkTemplateVars: Check<TemplateVars> = exact(TEMPLATE_VAR_FIELDS, 'template variable');

/** Some template variables (a plan's or the CLI's, over DEFAULT_TEMPLATE_VARS), no other name. */
export const checkTemplateVarsPartial: Check<Partial<TemplateVars>> = exact({
  add_generation_prompt: opt(flag),
  date_string: opt(dateString),
  enable_thinking: opt(flag),
}, 'template variable');

export const FEW_SHOT_FIELDS = {
  n: num({ int: true, min: 0, max: MAX_FEW_SHOT }),
  seed: int,
  delimiter: opt(marker),
  targetDelimiter: opt(marker),
  /** Bound by the run (condition.ts bindFewShotPool). */
  pool: opt(where(str(), (s) => SHA256_HEX.test(s), 'a SHA-256 hex digest')),
};

const decoding = tagged<Condition['decoding']>('kind', {
  greedy: obj({ kind: oneOf('greedy') }),
  sample: obj({ kind: oneOf('sample'), temperature: num({ above: 0, max: MAX_TEMPERATURE }), topP: num({ above: 0, max: 1 }), seed: int }),
});

/** Every field of a condition with its check; optional ones are absent on conditions made before
 *  they were recorded (templateVars, decodeRule) or unset (the rest). */
export const CONDITION_FIELDS = {
  promptTemplate: where(str({ max: MAX_TEXT }), (s) => s.includes('{{question}}'), `a string of at most ${MAX_TEXT} characters containing {{question}}`),
  chatTemplate: bool,
  templateVars: opt(checkTemplateVars),
  decodeRule: opt(oneOf(DECODE_RULE)),
  systemPrompt: opt(str({ max: MAX_TEXT })),
  fewShot: obj(FEW_SHOT_FIELDS),
  decoding,
  maxNewTokens: num({ int: true, min: 1, max: MAX_NEW_TOKENS }),
  stopSequences: where(arr(str({ nonEmpty: true, max: MAX_MARKER })), (a) => a.length <= MAX_STOPS, `at most ${MAX_STOPS} stop sequences`),
  answerFormat: oneOf(...FORMAT_NAMES),
  mcMode: opt(oneOf('generate', 'loglik')),
  requireBoxed: opt(bool),
  answerLine: opt(where(marker, (s) => s.trim() !== '', 'a non-empty marker such as "Answer:"')),
  graderVersion: num({ int: true, min: 1 }),
  engineDtype: oneOf(...ENGINE_DTYPES),
};

export const checkCondition: Check<Condition> = obj(CONDITION_FIELDS);

/** The condition of a version-1 run file: the current schema without the fields added since
 *  (template variables, decode rule, few-shot pool, requireBoxed, answerLine), with the answer
 *  formats version 1 knew, and maxNewTokens 0 as the lm-evaluation-harness import then wrote it. */
const { templateVars: _t, decodeRule: _d, requireBoxed: _r, answerLine: _a, ...V1_FIELDS } = CONDITION_FIELDS;
const { pool: _p, ...V1_FEW_SHOT_FIELDS } = FEW_SHOT_FIELDS;
export const checkConditionV1: Check<Condition> = obj({
  ...V1_FIELDS,
  fewShot: obj(V1_FEW_SHOT_FIELDS),
  maxNewTokens: num({ int: true, min: 0, max: MAX_NEW_TOKENS }),
  answerFormat: oneOf('numeric', 'mc-letter', 'exact'),
});

/** `check` of `v` at `path`, a refusal as the audit's bad-input error ("path: expected …, got …"). */
export function checked<T>(check: Check<T>, v: unknown, path: string): T {
  try {
    return check(v, path);
  } catch (e) {
    throw e instanceof CheckError ? new AuditError('bad-input', e.message) : e;
  }
}

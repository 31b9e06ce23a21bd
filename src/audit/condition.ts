// Conditions, probe specs and record keys: canonical JSON hashed with SHA-256.

import { canonicalJson, SHA256_HEX, sha256Hex } from '../util/hash';
import { AuditError } from './errors';
import { FORMAT_NAMES, formatOf, graderVersionOf, isAnswerFormat, scoresByLoglik, scoringFields } from './formats/registry';
import type { Condition, DecodeRule, Doc, ProbeSpec, QuestionRecord, TaskSpec } from './types';
import type { EngineDtype, TemplateVars } from '../engine/types';
import { DEFAULT_DATE_STRING, parseDateString } from '../engine/template-date';
import { quote } from '../util/clip';

const bad = (msg: string) => new AuditError('bad-input', msg);

/** The decode rule of every condition made now: generated ids become text through the
 *  tokenizer.json decoder alone, as `tokenizers` and transformers 5 decode them; the tokenizer
 *  config's clean_up_tokenization_spaces (which drops the space in "1 ,000", and transformers 4
 *  applied) is never applied. It can change a grade, so it is part of the condition key. */
export const DECODE_RULE: DecodeRule = 'tokenizers';

/** The most new tokens a link or a form takes: above the longest recipe's (DAPO's 20,480, recipes.ts). */
export const MAX_NEW_TOKENS = 32_768;

/** The template variables of a chat condition unless set: the generation prompt on, Llama 3.x
 *  templates' own fallback date, enable_thinking not passed (the template's default). */
export const DEFAULT_TEMPLATE_VARS: TemplateVars = { add_generation_prompt: true, date_string: DEFAULT_DATE_STRING };

const TEMPLATE_VAR_KEYS = ['add_generation_prompt', 'date_string', 'enable_thinking'];

function validateTemplateVars(c: Condition): void {
  const v = c.templateVars;
  if (!c.chatTemplate) {
    if (v !== undefined) throw bad('condition templateVars is set but chatTemplate is false (a raw prompt renders no chat template)');
    return;
  }
  if (v === undefined || typeof v !== 'object' || v === null) {
    throw bad('condition templateVars must be set with chatTemplate (add_generation_prompt, date_string, optional enable_thinking); a chat condition without them was made before they were recorded and is not run again');
  }
  for (const k of Object.keys(v)) if (!TEMPLATE_VAR_KEYS.includes(k)) throw bad(`condition templateVars has an unknown variable ${quote(k)} (known: ${TEMPLATE_VAR_KEYS.join(', ')})`);
  if (typeof v.add_generation_prompt !== 'boolean') throw bad('condition templateVars.add_generation_prompt must be true or false');
  if (typeof v.date_string !== 'string' || !parseDateString(v.date_string)) throw bad(`condition templateVars.date_string must be a day as "%d %b %Y" (e.g. "${DEFAULT_DATE_STRING}"), got ${quote(v.date_string)}`);
  if (v.enable_thinking !== undefined && typeof v.enable_thinking !== 'boolean') throw bad('condition templateVars.enable_thinking must be true, false or absent');
}

export function validateCondition(c: Condition): void {
  if (typeof c.promptTemplate !== 'string' || !c.promptTemplate.includes('{{question}}')) {
    throw bad(`condition promptTemplate must contain {{question}}, got ${quote(c.promptTemplate)}`);
  }
  if (typeof c.chatTemplate !== 'boolean') throw bad('condition chatTemplate must be true or false');
  validateTemplateVars(c);
  if (c.decodeRule !== DECODE_RULE) {
    throw bad(`condition decodeRule must be "${DECODE_RULE}", got ${quote(c.decodeRule)}${c.decodeRule === undefined ? ' (a condition made before the decode rule was recorded is not run again)' : ''}`);
  }
  if (!Number.isInteger(c.fewShot?.n) || c.fewShot.n < 0) throw bad(`condition fewShot.n must be a non-negative integer, got ${c.fewShot?.n}`);
  if (!Number.isInteger(c.fewShot.seed)) throw bad(`condition fewShot.seed must be an integer, got ${c.fewShot.seed}`);
  if (c.fewShot.n === 0 && c.fewShot.pool !== undefined) throw bad('condition fewShot.pool is set but fewShot.n is 0 (a 0-shot prompt has no pool)');
  if (c.fewShot.pool !== undefined && !SHA256_HEX.test(c.fewShot.pool)) throw bad(`condition fewShot.pool must be a SHA-256 hex digest, got ${quote(c.fewShot.pool)}`);
  const d = c.decoding;
  if (d?.kind === 'sample') {
    if (!(d.temperature > 0)) throw bad(`condition decoding temperature must be > 0, got ${d.temperature}`);
    if (!(d.topP > 0 && d.topP <= 1)) throw bad(`condition decoding topP must be in (0, 1], got ${d.topP}`);
    if (!Number.isInteger(d.seed)) throw bad(`condition decoding seed must be an integer, got ${d.seed}`);
  } else if (d?.kind !== 'greedy') {
    throw bad(`condition decoding must be greedy or sample, got ${quote(d)}`);
  }
  if (!Number.isInteger(c.maxNewTokens) || c.maxNewTokens < 1) throw bad(`condition maxNewTokens must be a positive integer, got ${c.maxNewTokens}`);
  if (!Array.isArray(c.stopSequences) || c.stopSequences.some((s) => typeof s !== 'string' || s === '')) {
    throw bad('condition stopSequences must be a list of non-empty strings');
  }
  if (!isAnswerFormat(c.answerFormat)) throw bad(`condition answerFormat ${quote(c.answerFormat)} is not one of ${FORMAT_NAMES.join(', ')}`);
  if (c.mcMode !== undefined && c.mcMode !== 'generate' && c.mcMode !== 'loglik') throw bad(`condition mcMode "${c.mcMode}" is not generate or loglik`);
  if (c.mcMode === 'loglik' && !scoresByLoglik(c.answerFormat)) {
    throw bad(`condition mcMode loglik needs answerFormat ${FORMAT_NAMES.filter(scoresByLoglik).join(' or ')} (${c.answerFormat} answers are generated)`);
  }
  if (c.requireBoxed !== undefined && typeof c.requireBoxed !== 'boolean') throw bad('condition requireBoxed must be true or false');
  if (c.requireBoxed && c.mcMode === 'loglik') throw bad('condition requireBoxed needs generated answers; mcMode loglik scores letters');
  if (c.answerLine !== undefined && (typeof c.answerLine !== 'string' || c.answerLine.trim() === '')) throw bad('condition answerLine must be a non-empty marker such as "Answer:"');
  if (c.answerLine !== undefined && c.mcMode === 'loglik') throw bad('condition answerLine needs generated answers; mcMode loglik scores letters');
  const version = graderVersionOf(c.answerFormat);
  if (c.graderVersion !== version) throw bad(`condition graderVersion ${c.graderVersion} is not this app's version of the ${c.answerFormat} grader (${version})`);
}

/** SHA-256 of a few-shot pool's content, in order (what `fewShot.pool` records). */
export async function fewShotPoolHash(train: readonly Doc[]): Promise<string> {
  return sha256Hex(canonicalJson(train.map((d) => ({ id: d.id, text: d.text, target: d.target, choices: d.choices, rationale: d.rationale }))));
}

/** The condition with its few-shot pool bound: `fewShot.pool` = the train split's hash when
 *  n > 0, absent when n = 0. Every audit's condition passes through here (runAudit refuses an
 *  n-shot condition whose pool is missing or another). */
export async function bindFewShotPool(c: Condition, train: readonly Doc[]): Promise<Condition> {
  const fewShot = { ...c.fewShot };
  delete fewShot.pool;
  if (fewShot.n > 0) fewShot.pool = await fewShotPoolHash(train);
  return { ...c, fewShot };
}

/** SHA-256 of the condition's canonical JSON. */
export async function conditionKey(c: Condition): Promise<string> {
  return sha256Hex(canonicalJson(c));
}

/** The condition a task suggests: its prompt template, raw (no chat template), 0-shot, greedy,
 *  its answer format with that format's new tokens, stop sequences, scoring and version; short answers (numeric
 *  built-ins) get 8 new tokens and stop at a newline. An override chatTemplate true without
 *  templateVars gets DEFAULT_TEMPLATE_VARS. */
export function defaultCondition(task: TaskSpec, engineDtype: EngineDtype, overrides: Partial<Condition> = {}): Condition {
  const builtin = task.id.startsWith('builtin:');
  const c: Condition = {
    promptTemplate: task.promptTemplate,
    chatTemplate: false,
    decodeRule: DECODE_RULE,
    // "Answer:" templates put a space before each example's target
    fewShot: { n: 0, seed: 1234, ...(task.promptTemplate.endsWith(':') ? { targetDelimiter: ' ' } : {}) },
    decoding: { kind: 'greedy' },
    maxNewTokens: builtin ? 8 : formatOf(task.answerFormat).maxNewTokens,
    stopSequences: builtin ? ['\n'] : [...formatOf(task.answerFormat).stopSequences],
    answerFormat: task.answerFormat,
    ...scoringFields(task.answerFormat, task.mcMode),
    ...(task.requireBoxed ? { requireBoxed: true } : {}),
    graderVersion: graderVersionOf(task.answerFormat),
    engineDtype,
    ...overrides,
  };
  if (c.chatTemplate && c.templateVars === undefined) c.templateVars = { ...DEFAULT_TEMPLATE_VARS };
  validateCondition(c);
  return c;
}

/** `${probe}:${first 16 hex of sha256(canonical spec)}`, e.g. "random-routes:3fa1…". */
export async function probeKey(spec: ProbeSpec): Promise<string> {
  return `${spec.probe}:${(await sha256Hex(canonicalJson(spec))).slice(0, 16)}`;
}

export interface RecordKeyParts {
  model_fingerprint: string;
  condition_key: string;
  probe_key: string;
  doc_id: string;
  /** The question's content (id, text, target, options) and the exact prompt it was asked with:
   *  a record is reused only for the same content, never for a same-named file or task. */
  doc_hash: string;
  prompt_hash: string;
}

/** One string per (model fingerprint, condition key, probe key, question id, doc hash, prompt
 *  hash); the skip hook of runAudit receives exactly this. */
export function recordKeyOf(p: RecordKeyParts): string {
  return [p.model_fingerprint, p.condition_key, p.probe_key, p.doc_id, p.doc_hash, p.prompt_hash].join('|');
}

/** A question as the run key sees it. */
export interface QuestionIdentity {
  doc_id: string;
  doc_hash: string;
  prompt_hash: string;
}

export interface RunKeyParts {
  model_fingerprint: string;
  condition_key: string;
  /** Probe keys in the run's order. */
  probe_keys: string[];
  /** The run's questions in order. */
  questions: readonly QuestionIdentity[];
}

/** A run's content address: SHA-256 over the model, condition, probes and the ordered content of
 *  its questions and prompts — never a file or task name. The CLI prints it as run_key; the store
 *  keys runs by it. */
export async function runKey(p: RunKeyParts): Promise<string> {
  return sha256Hex(
    canonicalJson({
      model: p.model_fingerprint,
      condition_key: p.condition_key,
      probes: p.probe_keys,
      questions: p.questions.map((q) => [q.doc_id, q.doc_hash, q.prompt_hash]),
    }),
  );
}

export function recordKey(r: QuestionRecord): string {
  return recordKeyOf(r);
}

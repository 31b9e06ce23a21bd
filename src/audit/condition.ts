// Conditions, probe specs and record keys: canonical JSON hashed with SHA-256.

import { canonicalJson, sha256Hex } from '../util/hash';
import { AuditError } from './errors';
import { FORMAT_NAMES, formatOf, graderVersionOf, scoresByLoglik, scoringFields } from './formats/registry';
import { checkCondition, checked, DECODE_RULE, MAX_NEW_TOKENS } from './condition-schema';
import type { Condition, Doc, ProbeSpec, QuestionRecord, TaskSpec } from './types';
import type { EngineDtype, TemplateVars } from '../engine/types';
import { DEFAULT_DATE_STRING } from '../engine/template-date';
import { quote } from '../util/clip';

const bad = (msg: string) => new AuditError('bad-input', msg);

export { DECODE_RULE, MAX_NEW_TOKENS };

/** The template variables of a chat condition unless set: the generation prompt on, Llama 3.x
 *  templates' own fallback date, enable_thinking not passed (the template's default). */
export const DEFAULT_TEMPLATE_VARS: TemplateVars = { add_generation_prompt: true, date_string: DEFAULT_DATE_STRING };

/** A condition the driver runs: the schema (condition-schema.ts, its bounds), then what a run made
 *  now must record and what its fields must agree on. */
export function validateCondition(c: Condition): void {
  checked(checkCondition, c, 'condition');
  if (!c.chatTemplate && c.templateVars !== undefined) throw bad('condition templateVars is set but chatTemplate is false (a raw prompt renders no chat template)');
  if (c.chatTemplate && c.templateVars === undefined) {
    throw bad('condition templateVars must be set with chatTemplate (add_generation_prompt, date_string, optional enable_thinking); a chat condition without them was made before they were recorded and is not run again');
  }
  if (c.decodeRule !== DECODE_RULE) {
    throw bad(`condition decodeRule must be "${DECODE_RULE}", got ${quote(c.decodeRule)} (a condition made before the decode rule was recorded is not run again)`);
  }
  if (c.fewShot.n === 0 && c.fewShot.pool !== undefined) throw bad('condition fewShot.pool is set but fewShot.n is 0 (a 0-shot prompt has no pool)');
  if (c.mcMode === 'loglik' && !scoresByLoglik(c.answerFormat)) {
    throw bad(`condition mcMode loglik needs answerFormat ${FORMAT_NAMES.filter(scoresByLoglik).join(' or ')} (${c.answerFormat} answers are generated)`);
  }
  if (c.requireBoxed && c.mcMode === 'loglik') throw bad('condition requireBoxed needs generated answers; mcMode loglik scores letters');
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

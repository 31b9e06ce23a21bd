// Conditions, probe specs and record keys: canonical JSON hashed with SHA-256.

import { canonicalJson, sha256Hex } from '../util/hash';
import { AuditError } from './errors';
import { GRADER_VERSION } from './graders';
import { validateRouteSpace } from './routes';
import type { Condition, ProbeSpec, QuestionRecord, TaskSpec } from './types';
import type { EngineDtype } from '../engine/types';

const bad = (msg: string) => new AuditError('bad-input', msg);

export function validateCondition(c: Condition): void {
  if (typeof c.promptTemplate !== 'string' || !c.promptTemplate.includes('{{question}}')) {
    throw bad(`condition promptTemplate must contain {{question}}, got ${JSON.stringify(c.promptTemplate)}`);
  }
  if (typeof c.chatTemplate !== 'boolean') throw bad('condition chatTemplate must be true or false');
  if (!Number.isInteger(c.fewShot?.n) || c.fewShot.n < 0) throw bad(`condition fewShot.n must be a non-negative integer, got ${c.fewShot?.n}`);
  if (!Number.isInteger(c.fewShot.seed)) throw bad(`condition fewShot.seed must be an integer, got ${c.fewShot.seed}`);
  const d = c.decoding;
  if (d?.kind === 'sample') {
    if (!(d.temperature > 0)) throw bad(`condition decoding temperature must be > 0, got ${d.temperature}`);
    if (!(d.topP > 0 && d.topP <= 1)) throw bad(`condition decoding topP must be in (0, 1], got ${d.topP}`);
    if (!Number.isInteger(d.seed)) throw bad(`condition decoding seed must be an integer, got ${d.seed}`);
  } else if (d?.kind !== 'greedy') {
    throw bad(`condition decoding must be greedy or sample, got ${JSON.stringify(d)}`);
  }
  if (!Number.isInteger(c.maxNewTokens) || c.maxNewTokens < 1) throw bad(`condition maxNewTokens must be a positive integer, got ${c.maxNewTokens}`);
  if (!Array.isArray(c.stopSequences) || c.stopSequences.some((s) => typeof s !== 'string' || s === '')) {
    throw bad('condition stopSequences must be a list of non-empty strings');
  }
  if (!['numeric', 'mc-letter', 'exact'].includes(c.answerFormat)) throw bad(`condition answerFormat "${c.answerFormat}" is not numeric, mc-letter or exact`);
  if (c.mcMode !== undefined && c.mcMode !== 'generate' && c.mcMode !== 'loglik') throw bad(`condition mcMode "${c.mcMode}" is not generate or loglik`);
  if (c.mcMode === 'loglik' && c.answerFormat !== 'mc-letter') throw bad('condition mcMode loglik needs answerFormat mc-letter');
  if (c.graderVersion !== GRADER_VERSION) throw bad(`condition graderVersion ${c.graderVersion} is not this grader's version ${GRADER_VERSION}`);
}

/** SHA-256 of the condition's canonical JSON. */
export async function conditionKey(c: Condition): Promise<string> {
  return sha256Hex(canonicalJson(c));
}

/** The condition a task suggests: its prompt template, raw (no chat template), 0-shot, greedy,
 *  its answer format; short answers (numeric built-ins) get 8 new tokens and stop at a newline. */
export function defaultCondition(task: TaskSpec, engineDtype: EngineDtype, overrides: Partial<Condition> = {}): Condition {
  const builtin = task.id.startsWith('builtin:');
  const c: Condition = {
    promptTemplate: task.promptTemplate,
    chatTemplate: false,
    // "Answer:" templates put a space before each example's target
    fewShot: { n: 0, seed: 1234, ...(task.promptTemplate.endsWith(':') ? { targetDelimiter: ' ' } : {}) },
    decoding: { kind: 'greedy' },
    maxNewTokens: builtin ? 8 : task.answerFormat === 'numeric' ? 256 : 32,
    stopSequences: builtin ? ['\n'] : ['\n\n', 'Question:'],
    answerFormat: task.answerFormat,
    ...(task.answerFormat === 'mc-letter' ? { mcMode: task.mcMode ?? 'loglik' } : {}),
    graderVersion: GRADER_VERSION,
    engineDtype,
    ...overrides,
  };
  validateCondition(c);
  return c;
}

export function validateProbeSpec(spec: ProbeSpec, numLayers: number): void {
  const budgetOk = (b: number) => Number.isInteger(b) && b >= 1;
  switch (spec.probe) {
    case 'deployment':
      return;
    case 'random-routes':
    case 'mcts-routes':
      if (!budgetOk(spec.budget)) throw bad(`${spec.probe} budget must be a positive integer, got ${spec.budget}`);
      if (!Number.isInteger(spec.seed)) throw bad(`${spec.probe} seed must be an integer, got ${spec.seed}`);
      try {
        validateRouteSpace(spec.space);
      } catch (e) {
        throw bad(`${spec.probe}: ${(e as Error).message}`);
      }
      if (spec.space.numLayers !== numLayers) throw bad(`${spec.probe} route space has ${spec.space.numLayers} layers; the model has ${numLayers}`);
      if (spec.probe === 'mcts-routes') {
        if (!(spec.exploration >= 0)) throw bad(`mcts-routes exploration must be ≥ 0, got ${spec.exploration}`);
        if (!(spec.lengthPenalty >= 0)) throw bad(`mcts-routes lengthPenalty must be ≥ 0, got ${spec.lengthPenalty}`);
        if (!(spec.randomChildProb >= 0 && spec.randomChildProb <= 1)) throw bad(`mcts-routes randomChildProb must be in [0, 1], got ${spec.randomChildProb}`);
        if (!budgetOk(spec.simulations)) throw bad(`mcts-routes simulations must be a positive integer, got ${spec.simulations}`);
      }
      return;
    case 'sampling':
      if (!budgetOk(spec.budget)) throw bad(`sampling budget must be a positive integer, got ${spec.budget}`);
      if (!(spec.temperature > 0)) throw bad(`sampling temperature must be > 0, got ${spec.temperature}`);
      if (!(spec.topP > 0 && spec.topP <= 1)) throw bad(`sampling topP must be in (0, 1], got ${spec.topP}`);
      if (!Number.isInteger(spec.seed)) throw bad(`sampling seed must be an integer, got ${spec.seed}`);
      return;
    case 'mlp-silencing':
      if (!Array.isArray(spec.layers) || spec.layers.length === 0) throw bad('mlp-silencing layers must be a non-empty list');
      for (const l of spec.layers) if (!Number.isInteger(l) || l < 0 || l >= numLayers) throw bad(`mlp-silencing layer ${l} is outside 0..${numLayers - 1}`);
      if (new Set(spec.layers).size !== spec.layers.length) throw bad('mlp-silencing layers must be distinct');
      return;
    default:
      throw bad(`unknown probe "${(spec as { probe: string }).probe}" (known: deployment, random-routes, mcts-routes, sampling, mlp-silencing)`);
  }
}

/** `${probe}:${first 16 hex of sha256(canonical spec)}`, e.g. "random-routes:3fa1…". */
export async function probeKey(spec: ProbeSpec): Promise<string> {
  return `${spec.probe}:${(await sha256Hex(canonicalJson(spec))).slice(0, 16)}`;
}

export interface RecordKeyParts {
  model_fingerprint: string;
  task_id: string;
  task_version: number;
  condition_key: string;
  probe_key: string;
  doc_id: string;
}

/** One string per (model fingerprint, task + version, condition key, probe key, question);
 *  the skip hook of runAudit receives exactly this. */
export function recordKeyOf(p: RecordKeyParts): string {
  return [p.model_fingerprint, p.task_id, String(p.task_version), p.condition_key, p.probe_key, p.doc_id].join('|');
}

export function recordKey(r: QuestionRecord): string {
  return recordKeyOf(r);
}

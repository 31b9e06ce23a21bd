// The schema of a run export: checks for every audit type a file carries (types.ts), so an
// imported file becomes typed data or is refused with its first problem named.

import type { Attempt, Condition, Doc, ProbeSpec, QuestionRecord, RouteSpace, RunManifest, SelectorPick } from '../audit/types.ts';
import { arr, bool, dict, json, nullable, num, obj, oneOf, opt, str, tagged, type Check } from './check.ts';

export const RUN_FILE_FORMAT = 'reachlab-run';
export const RUN_FILE_VERSION = 1;

const int = num({ int: true });
const nat = num({ int: true, min: 0 });
const pos = num({ int: true, min: 1 });
const text = str();
const id = str({ nonEmpty: true });

const decoding = tagged<Condition['decoding']>('kind', {
  greedy: obj({ kind: oneOf('greedy') }),
  sample: obj({ kind: oneOf('sample'), temperature: num({ min: 0 }), topP: num({ min: 0, max: 1 }), seed: int }),
});

export const checkCondition: Check<Condition> = obj({
  promptTemplate: text,
  chatTemplate: bool,
  systemPrompt: opt(text),
  fewShot: obj({ n: nat, seed: int, delimiter: opt(text) }),
  decoding,
  maxNewTokens: pos,
  stopSequences: arr(text),
  answerFormat: oneOf('numeric', 'mc-letter', 'exact'),
  mcMode: opt(oneOf('generate', 'loglik')),
  graderVersion: int,
  engineDtype: oneOf('f32', 'f16', 'q4', 'q4f16'),
});

const routeSpace = tagged<RouteSpace>('kind', {
  blocks: obj({ kind: oneOf('blocks'), numLayers: pos, minLen: pos, maxLen: pos, maxBlock: pos, maxEdits: pos }),
  neighborhood: obj({ kind: oneOf('neighborhood'), numLayers: pos, radius: nat, maxEdits: pos }),
});

export const checkProbeSpec = tagged<ProbeSpec>('probe', {
  deployment: obj({ probe: oneOf('deployment') }),
  'random-routes': obj({ probe: oneOf('random-routes'), space: routeSpace, budget: pos, seed: int, shared: bool }),
  'mcts-routes': obj({
    probe: oneOf('mcts-routes'),
    space: routeSpace,
    budget: pos,
    seed: int,
    preset: oneOf('cola', 'program-selection', 'custom'),
    exploration: num({ min: 0 }),
    lengthPenalty: num({ min: 0 }),
    randomChildProb: num({ min: 0, max: 1 }),
    simulations: pos,
    rootBlockEdits: bool,
  }),
  sampling: obj({ probe: oneOf('sampling'), budget: pos, temperature: num({ min: 0 }), topP: num({ min: 0, max: 1 }), seed: int }),
  'mlp-silencing': obj({ probe: oneOf('mlp-silencing'), layers: arr(nat) }),
});

const probeName = oneOf('deployment', 'random-routes', 'mcts-routes', 'sampling', 'mlp-silencing');

export const checkManifest: Check<RunManifest> = obj({
  id,
  appVersion: text,
  model: obj({ fingerprint: id, name: text, source: text, revision: opt(text) }),
  task: obj({ id, version: int, questions: nat }),
  condition: checkCondition,
  condition_key: id,
  probes: arr(checkProbeSpec),
  engine: obj({ ep: oneOf('webgpu', 'wasm'), dtype: oneOf('f32', 'f16', 'q4', 'q4f16') }),
  startedAt: text,
  finishedAt: opt(text),
  status: oneOf('queued', 'running', 'paused', 'interrupted', 'cancelled', 'finished', 'failed'),
});

const checkDoc: Check<Doc> = obj({
  id,
  text,
  target: text,
  choices: opt(arr(text)),
  rationale: opt(text),
  raw: opt(dict(json)),
});

/** JSON writes NaN and ±Infinity as null: a null log-prob reads back as NaN. */
const logprob: Check<number> = (v, p) => (v === null ? NaN : typeof v === 'number' ? v : num()(v, p));

const checkAttempt: Check<Attempt> = obj({
  index: nat,
  route: arr(nat),
  silence: arr(nat),
  sample: opt(nat),
  response: text,
  extracted: text,
  correct: bool,
  meanLogprob: logprob,
});

const checkPick: Check<SelectorPick> = obj({ extracted: text, correct: bool, attempt: nullable(nat), route: opt(arr(nat)) });

export const checkRecord: Check<QuestionRecord> = obj({
  doc_id: id,
  doc: checkDoc,
  target: text,
  arguments: obj({ prompt: text }),
  resps: arr(text),
  filtered_resps: arr(text),
  doc_hash: text,
  prompt_hash: text,
  probe: probeName,
  probe_key: id,
  probe_spec: checkProbeSpec,
  condition_key: id,
  model_fingerprint: id,
  task_id: id,
  task_version: int,
  attempts: arr(checkAttempt),
  budget: nat,
  first_success: nullable(nat),
  realized: nullable(bool),
  reachable: nullable(bool),
  invalid: nat,
  selection_saw_gold: bool,
  route_draw: opt(oneOf('per-question', 'shared')),
  selectors: opt(dict(checkPick)),
});

export interface RunFile {
  format: typeof RUN_FILE_FORMAT;
  version: typeof RUN_FILE_VERSION;
  exportedAt: string;
  manifest: RunManifest;
  records: QuestionRecord[];
}

export const checkRunFile: Check<RunFile> = obj({
  format: oneOf(RUN_FILE_FORMAT),
  version: oneOf(RUN_FILE_VERSION),
  exportedAt: text,
  manifest: checkManifest,
  records: arr(checkRecord),
});

// Audit vocabulary as data (see DESIGN.md): tasks, conditions, probes, question records.
// Records are shaped like lm-evaluation-harness's SampleResult plus our fields, and are the unit
// the store persists: one record per (model fingerprint, task + version, question, condition key, probe).

import type { EngineDtype, ExecutionProvider } from '../engine/types';

// ---------------------------------------------------------------- tasks

export type AnswerFormat = 'numeric' | 'mc-letter' | 'exact';
/** mc-letter answers are graded by generating and extracting a letter, or by log-likelihood over the letters. */
export type McMode = 'generate' | 'loglik';

export interface Doc {
  /** Stable id within the task split, e.g. "test-17". */
  id: string;
  /** The question as the model sees it before the prompt template. */
  text: string;
  /** The gold answer as text: "46", "B", "Paris". */
  target: string;
  /** Option texts for multiple choice (letters A, B, C, ... in order). */
  choices?: string[];
  /** The source row, kept for export and drill-down. */
  raw?: Record<string, unknown>;
}

export interface TaskSpec {
  /** e.g. "builtin:arith-2d", "hub:openai/gsm8k:main:test", "file:my.jsonl". */
  id: string;
  name: string;
  answerFormat: AnswerFormat;
  metadata: { version: number };
  /** Where test questions come from and how many there are. */
  numTest: number;
  numTrain: number;
}

// ---------------------------------------------------------------- condition

export type Decoding =
  | { kind: 'greedy' }
  | { kind: 'sample'; temperature: number; topP: number; seed: number };

/** Everything that must match between realized and reachable. Canonical JSON → SHA-256 = condition key. */
export interface Condition {
  /** Raw prompt template with {{question}} (and optionally {{choices}}), applied to doc.text. */
  promptTemplate: string;
  chatTemplate: boolean;
  systemPrompt?: string;
  fewShot: { n: number; seed: number };
  decoding: Decoding;
  maxNewTokens: number;
  stopSequences: string[];
  answerFormat: AnswerFormat;
  mcMode?: McMode;
  graderVersion: number;
  engineDtype: EngineDtype;
}

// ---------------------------------------------------------------- route spaces and probes

export type RouteSpace =
  | { kind: 'blocks'; numLayers: number; minLen: number; maxLen: number; maxBlock: number }
  | { kind: 'neighborhood'; numLayers: number; radius: number; maxEdits: number };

export type ProbeName = 'deployment' | 'random-routes' | 'mcts-routes' | 'sampling' | 'mlp-silencing';

export type ProbeSpec =
  | { probe: 'deployment' }
  | { probe: 'random-routes'; space: RouteSpace; budget: number; seed: number; shared: boolean }
  | {
      probe: 'mcts-routes';
      space: RouteSpace;
      budget: number;
      seed: number;
      preset: 'cola' | 'program-selection' | 'custom';
      exploration: number;
      lengthPenalty: number;
      randomChildProb: number;
    }
  | { probe: 'sampling'; budget: number; temperature: number; topP: number; seed: number }
  | { probe: 'mlp-silencing'; layers: number[] };

// ---------------------------------------------------------------- records

export interface Attempt {
  /** 0-based index in the probe's order; reachable@B looks at attempts with index < B. */
  index: number;
  route: number[];
  silence: number[];
  /** Sample index for the sampling probe. */
  sample?: number;
  /** Raw model response (generate) or "loglik" for scored multiple choice. */
  response: string;
  extracted: string; // "[invalid]" when nothing could be extracted
  correct: boolean;
  /** Mean token log-prob of the response (generate) or the chosen letter's log-prob (loglik). */
  meanLogprob: number;
}

export interface QuestionRecord {
  // lm-eval SampleResult fields
  doc_id: string;
  doc: Doc;
  target: string;
  arguments: { prompt: string };
  resps: string[];
  filtered_resps: string[];
  doc_hash: string;
  prompt_hash: string;
  // ours
  probe: ProbeName;
  condition_key: string;
  model_fingerprint: string;
  task_id: string;
  task_version: number;
  attempts: Attempt[];
  /** Index of the first correct attempt, or null. */
  first_success: number | null;
  /** true when the attempt choice used the gold answer (MCTS reward); random draws and sampling: false. */
  selection_saw_gold: boolean;
  /** For route probes, how the route set was drawn. */
  route_draw?: 'per-question' | 'shared';
  /** Answer-blind selectors' picks over this record's attempts. */
  selectors?: Record<string, { extracted: string; correct: boolean }>;
}

export interface ProbeSummary {
  probe: ProbeName;
  n: number;
  /** Share of questions with a correct attempt among the first B (B = budget). */
  reachable: number;
  /** reach_at_k[k-1] = estimated reachability@k, k = 1..B. */
  reach_at_k: number[];
  selectors?: Record<string, number>;
}

export interface AuditSummary {
  condition_key: string;
  n: number;
  realized: number;
  invalid: number;
  probes: ProbeSummary[];
}

export interface RunManifest {
  id: string;
  appVersion: string;
  model: { fingerprint: string; name: string; source: string; revision?: string };
  task: { id: string; version: number; questions: number };
  condition: Condition;
  condition_key: string;
  probes: ProbeSpec[];
  engine: { ep: ExecutionProvider; dtype: EngineDtype };
  startedAt: string;
  finishedAt?: string;
  status: 'queued' | 'running' | 'paused' | 'interrupted' | 'cancelled' | 'finished' | 'failed';
}

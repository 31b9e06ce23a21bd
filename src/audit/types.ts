// Audit vocabulary as data (docs/ARCHITECTURE.md "Vocabulary"): tasks, conditions, probes, question records.
// Records are shaped like lm-evaluation-harness's SampleResult plus our fields, and are the unit
// the store persists: one record per (model fingerprint, task + version, question, condition key, probe).

import type { ChatTemplateFile, EngineDtype, ExecutionProvider, RuntimeInfo, TemplateVars } from '../engine/types';
import type { MctsPreset } from './probes/mcts';
import type { ProbeName, ProbeSpec } from './probes/registry';

// ---------------------------------------------------------------- tasks

import type { AnswerFormat } from './formats/registry';
export type { AnswerFormat };
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
  /** A worked solution used as the few-shot target when present (GSM8K's full answer). */
  rationale?: string;
  /** The source row, kept for export and drill-down. */
  raw?: Record<string, unknown>;
}

export interface TaskSpec {
  /** e.g. "builtin:arith-2d", "hub:gsm8k", "file:my.jsonl". */
  id: string;
  name: string;
  answerFormat: AnswerFormat;
  /** Default way to grade multiple choice for this task. */
  mcMode?: McMode;
  /** Its condition reads the answer only from the last \boxed{} (a boxed task, e.g. hub:gsm8k-boxed). */
  requireBoxed?: boolean;
  /** Default raw prompt template for this task ({{question}}, {{choices}}). */
  promptTemplate: string;
  metadata: { version: number };
  /** Where test questions come from and how many there are. */
  numTest: number;
  numTrain: number;
}

/** A task with its questions loaded: lm-eval's doc_to_text / doc_to_target / doc_to_choice are
 *  Doc.text / Doc.target / Doc.choices, filled by the loader. */
export interface LoadedTask {
  spec: TaskSpec;
  test: Doc[];
  /** Few-shot examples and calibration questions (the fixed-route selector) come from here. */
  train: Doc[];
  /** For a task file: each question's row in it (1-based), so a problem with one names where it is. */
  rows?: Map<string, number>;
  /** For a Hub preset that takes a split's first rows: the test split's size as the source
   *  reported it (num_rows_total) when loaded. */
  sourceRows?: number;
}

// ---------------------------------------------------------------- condition

/** 'tokenizers': the tokenizer.json decoder alone, never clean_up_tokenization_spaces (as the
 *  `tokenizers` library and transformers 5 decode BPE tokenizers). */
export type DecodeRule = 'tokenizers';

export type Decoding =
  | { kind: 'greedy' }
  | { kind: 'sample'; temperature: number; topP: number; seed: number };

/** Everything that must match between realized and reachable. Canonical JSON → SHA-256 = condition key. */
export interface Condition {
  /** Raw prompt template with {{question}} (and optionally {{choices}}), applied to doc.text. */
  promptTemplate: string;
  chatTemplate: boolean;
  /** With chatTemplate (and only then): every variable the chat template's render receives beyond
   *  the messages and the model's special tokens, date included (strftime_now formats
   *  date_string, never the clock). Absent on a chat condition made before it was recorded: such
   *  records stay readable, their keys never equal a new condition's, and they are not run again. */
  templateVars?: TemplateVars;
  /** How generated ids become the graded text; required on conditions made now (absent on older
   *  ones, whose keys so never equal a new one's). DECODE_RULE (condition.ts) says what it is. */
  decodeRule?: DecodeRule;
  systemPrompt?: string;
  /** n examples drawn per question with the seed from the train split (the pool), joined by
   *  delimiter (default "\n\n"); each example is its prompt, targetDelimiter (default "") and its
   *  target. With n > 0, `pool` is the SHA-256 of the pool's content (condition.ts
   *  bindFewShotPool): the same n and seed over another pool is another condition. */
  fewShot: { n: number; seed: number; delimiter?: string; targetDelimiter?: string; pool?: string };
  decoding: Decoding;
  maxNewTokens: number;
  stopSequences: string[];
  answerFormat: AnswerFormat;
  mcMode?: McMode;
  /** The answer counts only inside the last \boxed{} (CoLa scores a missing box as wrong). */
  requireBoxed?: boolean;
  /** The answer is read only after the last occurrence of this marker, to the end of its line
   *  (DAPO's "Answer:" last line); absent on every condition that reads the whole response. */
  answerLine?: string;
  /** The answer format's own version (formats/registry.ts graderVersionOf). */
  graderVersion: number;
  engineDtype: EngineDtype;
}

// ---------------------------------------------------------------- route spaces and probes

/**
 * blocks: the default route with 1..maxEdits disjoint edits, each skipping or repeating
 * (a..b a..b) a contiguous block of 1..maxBlock layers; no reordering beyond the repeat, a layer
 * at most twice, adjacent skipped layers form one skip block, length within [minLen, maxLen].
 * neighborhood: length numLayers; position p runs a layer within ±radius of p; 1..maxEdits
 * positions differ from the default.
 * cola: every route CoLa's released search can reach from the default route (a block of 1–4
 * layers skipped or repeated first, then single positions skipped or repeated, any number of
 * times): each layer at most twice, at most one step back (r[j] > r[j+1], by at most 3 layers,
 * from the first block repeat), length within [minLen, maxLen] (minLen < numLayers < maxLen).
 * No space contains the default route (that is deployment).
 */
export type BlocksSpace = { kind: 'blocks'; numLayers: number; minLen: number; maxLen: number; maxBlock: number; maxEdits: number };
export type NeighborhoodSpace = { kind: 'neighborhood'; numLayers: number; radius: number; maxEdits: number };
export type ColaSpace = { kind: 'cola'; numLayers: number; minLen: number; maxLen: number };
export type RouteSpace = BlocksSpace | NeighborhoodSpace | ColaSpace;

export type { ProbeName, ProbeSpec } from './probes/registry';
export type { MctsPreset } from './probes/mcts';

// ---------------------------------------------------------------- records

/** Why a probe made the attempts it made: it spent its budget, or its space (or search tree)
 *  held fewer distinct attempts than the budget. */
export type StopReason = 'budget' | 'space-exhausted';

export interface Attempt {
  /** 0-based index in the probe's order; reachable@B looks at attempts with index < B.
   *  The deployment record's single attempt has index 0 and is not charged to any budget. */
  index: number;
  /** The route run; null when unknown (a record imported from a file that does not state it). */
  route: number[] | null;
  /** Route probes that build routes by actions (MCTS, depth-matched walks): actions from the
   *  default route (MCTS: the node's depth in the search tree). */
  depth?: number;
  silence: number[];
  /** Sample index for the sampling probe. */
  sample?: number;
  /** Raw model response (generate) or "loglik" for scored multiple choice. */
  response: string;
  extracted: string; // "[invalid]" when nothing could be extracted
  correct: boolean;
  /** Mean token log-prob of the response (generate; null for an empty response) or the chosen
   *  letter's mean token log-prob (loglik). */
  meanLogprob: number | null;
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
  /** `${probe}:${first 16 hex of sha256(canonicalJson(probe spec))}`. */
  probe_key: string;
  probe_spec: ProbeSpec;
  condition_key: string;
  model_fingerprint: string;
  task_id: string;
  task_version: number;
  attempts: Attempt[];
  /** Budget charged: distinct attempts allowed (0 for deployment). */
  budget: number;
  /** Probes: 'budget' when attempts.length = budget, 'space-exhausted' when fewer distinct attempts
   *  existed; null on the deployment record. */
  stop_reason: StopReason | null;
  /** Index of the first correct attempt, or null. */
  first_success: number | null;
  /** deployment: the deployment attempt is correct; null on probe records (join by doc_id). */
  realized: boolean | null;
  /** probes: a correct attempt among the first `budget`; null on the deployment record. */
  reachable: boolean | null;
  /** The decoy answer (decoy.ts): a wrong answer of the gold's kind fixed by the question seed and
   *  doc id, in the grader's canonical form; null when none can be made (exact-match answers, a
   *  single option) or known (condition unknown, another grader version). */
  decoy: string | null;
  /** Index of the first attempt whose extracted answer is the decoy, or null. */
  decoy_first_success: number | null;
  /** deployment: the deployment attempt is the decoy; null on probe records or without a decoy. */
  realized_decoy: boolean | null;
  /** probes: an attempt among the first `budget` is the decoy; null on the deployment record or
   *  without a decoy. */
  reachable_decoy: boolean | null;
  /** Attempts whose answer could not be extracted. */
  invalid: number;
  /** true when the choice of attempts used the gold answer (MCTS reward); random draws, sampling
   *  and a fixed silence list: false. Selectors over such attempts are not answer-blind. */
  selection_saw_gold: boolean;
  /** For route probes, how the route set was drawn. */
  route_draw?: 'per-question' | 'shared';
  /** depth-matched-routes: the depth profile its walk lengths were drawn from (profile[d] = the
   *  matched MCTS probe's attempts at depth d, pooled over the run's questions). */
  depth_profile?: number[];
  /** Answer-blind selectors' picks over this record's attempts. */
  selectors?: Record<string, SelectorPick>;
}

export type { SelectorName } from './selectors';
export interface SelectorPick {
  extracted: string;
  correct: boolean;
  /** false when the pick chose among attempts that were themselves chosen with the gold answer
   *  (majority or max-logprob over MCTS attempts): then it is not an answer-blind result. */
  blind: boolean;
  /** Attempt index picked (majority: first attempt with the winning answer); null when the pick
   *  needed an extra, uncharged decode (fixed route absent from this question's draws). */
  attempt: number | null;
  /** fixed-route: the route chosen on the train split. */
  route?: number[];
  /** An extra decode's response (attempt null), from which its pick is regraded on import. */
  response?: string;
}

export interface SelectorSummary {
  /** Share of the probe's questions on which the selector's pick is correct. */
  accuracy: number;
  /** false when any pick chose among gold-guided attempts (see SelectorPick.blind). */
  blind: boolean;
  /** (accuracy − realized) / (ceiling − realized) over the probe's questions with a deployment
   *  record: the share of the questions the probe reaches beyond deployment that the selector keeps
   *  (stats.ts retainedGain); null when the probe reaches no question deployment misses, or the
   *  selector did not pick on every question. */
  retained_gain: number | null;
  /** Its paired bootstrap 95% interval (stats.ts RETAINED_GAIN_BOOTSTRAP), or null. */
  retained_gain_ci: { lo: number; hi: number } | null;
  /** Why retained_gain is null, in words; null when it is a number. */
  retained_gain_reason: string | null;
  /** What the retained gain says, in words (stats.ts retainedGainNote): the reason when it is null,
   *  the counts behind it otherwise (a negative value said as the questions lost). */
  retained_gain_note: string;
  /** Questions with a pick, and how many of those picks are correct. */
  n: number;
  correct: number;
}

/** One probe's summary. Its metrics (metrics/registry.ts METRICS: reachable@B, cover@τ, ceiling@B,
 *  the decoy shares, mean attempts, …) are fields named by their ids, read through the registry
 *  (metricValue, metricCount), never by name. */
export interface ProbeSummary {
  probe: ProbeName;
  probe_key: string;
  n: number;
  budget: number;
  /** Realized share over the questions with both a deployment and this probe's record (`joined`). */
  realized: number;
  /** Questions with both this probe's record and a deployment record (the n of realized and of
   *  the metrics computed over joined records). */
  joined: number;
  /** The counts behind the shares: each share metric's k by its id (null where its value is), and
   *  realized over joined. */
  counts: { realized: number; [metric: string]: number | null };
  /** reach_at_k[k-1] = estimated reachability@k, k = 1..B (unbiased estimator for uniform draws
   *  and sampling, empirical first-success curve for MCTS). */
  reach_at_k: number[];
  /** Mean attempts actually made per question (≤ budget). */
  mean_attempts: number;
  /** Questions whose probe stopped because its space or tree held fewer than B attempts. */
  space_exhausted: number;
  /** Invalid (unextractable) attempts over all questions. */
  invalid: number;
  /** true when the attempts were chosen with the gold answer (MCTS). */
  selection_saw_gold: boolean;
  /** MCTS and depth-matched probes: the preset whose actions built the routes. */
  preset?: MctsPreset;
  /** MCTS: its attempts per tree depth (profile[d], pooled over questions); depth-matched: the
   *  profile its walk lengths were drawn from. */
  depth_profile?: number[];
  selectors?: Record<string, SelectorSummary>;
  /** Each metric's value, under its id. */
  [metric: string]: unknown;
}

export interface AuditSummary {
  condition_key: string;
  /** Questions with a deployment record. */
  n: number;
  realized: number;
  /** Realized questions (realized = realized_count / n). */
  realized_count: number;
  /** Deployment attempts with no extractable answer. */
  invalid: number;
  probes: ProbeSummary[];
}

export interface RunManifest {
  id: string;
  appVersion: string;
  /** chatTemplate: the file the chat template was read from, when the condition applied one.
   *  numLayers: the model's layers (absent on runs stored before it was recorded: manifestNumLayers). */
  model: { fingerprint: string; name: string; source: string; revision?: string; commit?: string; chatTemplate?: ChatTemplateFile; numLayers?: number };
  /** question_seed: which questions (built-in generators) and which few-shot examples. */
  task: { id: string; version: number; questions: number; question_seed?: number };
  /** null for an imported run whose file does not state its condition ("imported, condition
   *  unknown"); its condition_key then starts with "unknown:" and never equals a measured one. */
  condition: Condition | null;
  condition_key: string;
  probes: ProbeSpec[];
  /** null when unknown (imported). adapter: the WebGPU adapter in one line (engine/adapter.ts);
   *  runtime: the onnxruntime build and version it ran on. */
  engine: { ep: ExecutionProvider; dtype: EngineDtype; adapter?: string; runtime?: RuntimeInfo } | null;
  /** Set on runs read from a file rather than computed here. */
  imported?: { format: 'reachlab-run' | 'lm-eval-samples'; file: string };
  startedAt: string;
  finishedAt?: string;
  status: 'queued' | 'running' | 'paused' | 'interrupted' | 'cancelled' | 'finished' | 'failed';
}

// The IndexedDB schema, version by version. Every version's shape stays written down here so
// migrations (db.ts) can be read against it and tested from each earlier version.
//
// v1: runs (by manifest key), records (one run per record: `runId`).
// v2: records may belong to several runs (`runIds`, multiEntry index) so a record computed once
//     is reused by every run asking for its key; derived summaries get their own store.
// v3: content-addressed runs. A record's key is (model fingerprint, condition key, probe key,
//     doc_id, doc_hash, prompt_hash): no task name, and the question's content and exact prompt
//     are part of it. A run's manifest key is the audit core's run key (condition.ts runKey over
//     model, condition key, probe keys and the ordered question identities); the identities live
//     in the new `questions` store (one entry per run, written when the run is created, so the
//     per-record run update stays small). Runs written by v1/v2 become legacy runs:
//     `manifestKey = 'legacy:' + old key`, `legacy: true`, no `questions` entry. Their records are
//     re-keyed from their own fields; their condition keys (grader version 1) never equal a v3
//     condition key, so nothing of theirs is ever reused, and the run controller never resumes a
//     legacy run (see LEGACY_RUN_MESSAGE). Their stored summaries (an older AuditSummary shape,
//     derived data) are dropped.
// v4: studies.
// v5: records carry the decoy-answer control's fields (audit/decoy.ts): records stored before it
//     get them from their own question and attempts under their run's condition; stored summaries
//     (an older ProbeSummary shape) are dropped.
// v6: the summaries store is gone: nothing read it; every screen, the CLI and exports compute a
//     run's summary from its records (audit/summary.ts).

import type { DBSchema } from 'idb';
import type { QuestionIdentity } from '../audit/condition.ts';
import type { NormalizedPlan } from '../audit/study-plan.ts';
import type { AuditSummary, QuestionRecord, RunManifest } from '../audit/types.ts';
import type { RecordKey } from './keys.ts';

export const DB_NAME = 'reachlab';
export const DB_VERSION = 6;

/** Why a legacy run (schema v1/v2, or a version-1 run file) is never resumed nor reused. */
export const LEGACY_RUN_MESSAGE =
  'This run was made by an earlier version whose keys ignored question content, so it cannot be resumed or reused; it stays viewable, exportable and deletable. Start the audit again.';

/** Prefix of a legacy run's manifest key: never a SHA-256 hex run key, so no new run matches it. */
export const LEGACY_KEY_PREFIX = 'legacy:';

/** Counters kept with a run so lists show progress without reading its records. */
export interface RunCounters {
  /** Question × probe units the run asks for. */
  recordsTotal: number;
  /** Units with a stored record linked to this run (computed or reused). */
  recordsDone: number;
  /** Units taken from records other runs computed under the same key. */
  reused: number;
  /** Attempts this run computed itself (reused records excluded). */
  attemptsComputed: number;
  /** Wall time spent computing, over all sessions of the run. */
  computeMs: number;
  /** How many times the run was interrupted (device lost, worker crash, tab closed). */
  interruptions: number;
  /** Last error message when the run is interrupted or failed. */
  lastError?: string;
}

export interface StoredRun {
  id: string;
  manifest: RunManifest;
  /** The run's content address: the audit core's run key (keys.ts manifestKey), the same key the
   *  CLI prints as run_key. Legacy runs: LEGACY_KEY_PREFIX + the key their version computed. */
  manifestKey: string;
  /** Set on runs written by an earlier version (migrated from schema v1/v2, or imported from a
   *  version-1 run file): viewable, exportable and deletable, never resumed nor reused. Their
   *  manifests and probe specs keep the shape their version wrote (grader version 1; MCTS specs
   *  with `simulations` / `randomChildProb`). */
  legacy?: true;
  counters: RunCounters;
  updatedAt: string;
}

/** The ordered question identities of a run (v3 `questions` store): what its run key is made of. */
export interface StoredQuestions {
  runId: string;
  questions: QuestionIdentity[];
}

export interface StoredRecord {
  key: RecordKey;
  record: QuestionRecord;
  /** Every run this record counts for (v2). */
  runIds: string[];
  /** Run that computed it. */
  computedBy: string;
  savedAt: string;
  /** Set when the record was read from a file (import.ts) rather than computed here. */
  imported?: RecordProvenance;
  /** Other imported runs whose own file held this record (linked to it rather than stored twice):
   *  each of them owns it too, and keeps it when the import it was stored from is deleted. */
  alsoImported?: RecordProvenance[];
}

/** Where an imported record came from. A local audit reuses it only when asked to
 *  (RunRequest.includeImported) and only if it was regraded on import; deleting the imported run
 *  removes it from every run that reused it, unless another import's own file held it too
 *  (StoredRecord.alsoImported), which then owns it. */
export interface RecordProvenance {
  /** The file's name and the imported run's id. */
  file: string;
  runId: string;
  at: string;
  /** Regraded from its attempts on import (verify.ts); false where that cannot be done (a
   *  harness file, another grader version): such a record is never reused. */
  regraded: boolean;
}

/** Current schema (v3). */
/** A study (v4): its plan and the runs it has started, keyed by the plan's key. The runs are
 *  ordinary runs (found again by their run keys), so a study resumes by running its plan again. */
export interface StoredStudy {
  plan_key: string;
  plan: NormalizedPlan;
  status: 'running' | 'paused' | 'finished' | 'failed';
  /** One entry per planned run started so far. */
  runs: { model: string; task: string; label: string; run_id: string; run_key: string }[];
  lastError?: string;
  startedAt: string;
  updatedAt: string;
}

export interface ReachDB extends DBSchema {
  runs: { key: string; value: StoredRun; indexes: { 'by-manifest-key': string } };
  records: { key: RecordKey; value: StoredRecord; indexes: { 'by-run': string } };
  questions: { key: string; value: StoredQuestions };
  studies: { key: string; value: StoredStudy };
}

// ---------------------------------------------------------------- earlier versions

/** v2–v5: a run's derived summary, written when it finished and never read. */
export interface StoredSummaryV5 {
  runId: string;
  summary: AuditSummary;
  recordCount: number;
  computedAt: string;
}

/** The schema of v2–v5, which held the summaries store. */
export interface ReachDBV5 extends ReachDB {
  summaries: { key: string; value: StoredSummaryV5 };
}

/** v1/v2 record key: the scope (model, task name + version, condition, probe), then doc_id. It
 *  ignored the question's content, so two files naming a question alike shared a key. */
export type RecordKeyV2 = [model_fingerprint: string, task_id: string, task_version: number, condition_key: string, probe_key: string, doc_id: string];

/** v1 record shape, kept for the migrations. */
export interface StoredRecordV1 {
  key: RecordKeyV2;
  record: QuestionRecord;
  runId: string;
  savedAt: string;
}

/** v2 record shape: as StoredRecord, keyed by RecordKeyV2. Its QuestionRecord was written by the
 *  previous audit core: no `stop_reason`, selector picks without `blind`, MCTS probe specs with
 *  `simulations` / `randomChildProb`, meanLogprob NaN on lm-evaluation-harness imports. */
export interface StoredRecordV2 {
  key: RecordKeyV2;
  record: QuestionRecord;
  runIds: string[];
  computedBy: string;
  savedAt: string;
}

/** v1/v2 run shape: manifestKey = sha256(canonical {model fingerprint, task, condition_key,
 *  probes}) (keys.ts legacyManifestKey); no legacy marker. */
export interface StoredRunV2 {
  id: string;
  manifest: RunManifest;
  manifestKey: string;
  counters: RunCounters;
  updatedAt: string;
}

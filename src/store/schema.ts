// The IndexedDB schema, version by version. Every version's shape stays written down here so
// migrations (db.ts) can be read against it and tested from each earlier version.
//
// v1: runs (by manifest key), records (one run per record: `runId`).
// v2: records may belong to several runs (`runIds`, multiEntry index) so a record computed once
//     is reused by every run asking for its key; derived summaries get their own store.

import type { DBSchema } from 'idb';
import type { AuditSummary, QuestionRecord, RunManifest } from '../audit/types.ts';
import type { RecordKey } from './keys.ts';

export const DB_NAME = 'reachlab';
export const DB_VERSION = 2;

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
  /** keys.ts manifestKey(manifest). */
  manifestKey: string;
  counters: RunCounters;
  updatedAt: string;
}

export interface StoredRecord {
  key: RecordKey;
  record: QuestionRecord;
  /** Every run this record counts for (v2). */
  runIds: string[];
  /** Run that computed it. */
  computedBy: string;
  savedAt: string;
}

export interface StoredSummary {
  runId: string;
  summary: AuditSummary;
  /** Records the summary was computed from; stale when the run has more. */
  recordCount: number;
  computedAt: string;
}

/** Current schema (v2). */
export interface ReachDB extends DBSchema {
  runs: { key: string; value: StoredRun; indexes: { 'by-manifest-key': string } };
  records: { key: RecordKey; value: StoredRecord; indexes: { 'by-run': string } };
  summaries: { key: string; value: StoredSummary };
}

/** v1 record shape, kept for the migration. */
export interface StoredRecordV1 {
  key: RecordKey;
  record: QuestionRecord;
  runId: string;
  savedAt: string;
}

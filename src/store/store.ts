// The storage contract the run controller, export and import use. Two implementations:
// IndexedDB (idb-store.ts) and memory (memory-store.ts, when IndexedDB is unavailable or full).

import type { QuestionIdentity } from '../audit/condition.ts';
import type { QuestionRecord } from '../audit/types.ts';
import type { RecordKey } from './keys.ts';
import type { RecordProvenance, StoredRecord, StoredRun, StoredStudy } from './schema.ts';

/** What putRecord did: wrote a new record, linked an existing one to the run, or found it linked. */
export type PutOutcome = 'stored' | 'linked' | 'present';

export interface RecordItem {
  key: RecordKey;
  record: QuestionRecord;
  /** Set on records read from a file; kept with the record when it is newly stored. */
  imported?: RecordProvenance;
}

export interface ImportRunOptions {
  /** Called as records are placed, with how many of `items` are so far. */
  onStored?: (placed: number) => void;
  /** Aborting it rolls the import back (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface RunStore {
  readonly kind: 'indexeddb' | 'memory';
  /** Writes a run; with `questions` (its ordered question identities, what its manifest key is
   *  made of) writes them too, in the same transaction. */
  putRun(run: StoredRun, questions?: QuestionIdentity[]): Promise<void>;
  /** Creates a run with its questions unless a run with its manifest key that `reuse` accepts is
   *  stored (the latest started is returned then), in one transaction: two tabs starting one
   *  audit at one instant get one run. */
  createRun(run: StoredRun, questions: QuestionIdentity[], reuse: (r: StoredRun) => boolean): Promise<StoredRun>;
  getRun(id: string): Promise<StoredRun | undefined>;
  listRuns(): Promise<StoredRun[]>;
  runsByManifestKey(manifestKey: string): Promise<StoredRun[]>;
  /** A run's ordered question identities; undefined for a legacy run (or no such run). */
  getQuestions(runId: string): Promise<QuestionIdentity[] | undefined>;
  /** Removes the run, its questions and its links; records no other run uses are deleted, and
   *  so are records this run imported, from every run that reused them (those runs lose them
   *  from their counts and, if finished, become interrupted: resumable). */
  deleteRun(id: string): Promise<void>;
  /**
   * One transaction, the moment a record is complete: stores it, or links the record already
   * stored under its key (first write wins, so a repeat is harmless). `run`, when given, is
   * written in the same transaction so counters never disagree with records.
   */
  putRecord(runId: string, item: RecordItem, run?: StoredRun): Promise<PutOutcome>;
  /** putRecord for several records of one run (in order), and `run`, in one transaction: all or
   *  nothing. */
  putRecords(runId: string, items: RecordItem[], run?: StoredRun): Promise<PutOutcome[]>;
  /** Links existing records to a run in one transaction; returns how many were newly linked. */
  linkRecords(runId: string, keys: RecordKey[], run?: StoredRun): Promise<number>;
  /** Primary keys of the records in [lower, upper] (record-key order). */
  keysInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<RecordKey[]>;
  /** The records in [lower, upper] (record-key order). */
  recordsInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<StoredRecord[]>;
  /** Primary keys of the records linked to a run. */
  keysForRun(runId: string): Promise<RecordKey[]>;
  recordsForRun(runId: string): Promise<StoredRecord[]>;
  /** Writes a run, its question identities (none for a legacy run) and its records in one
   *  transaction: all of it or nothing (an aborted `signal` or a failure leaves nothing). */
  importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[], o?: ImportRunOptions): Promise<{ stored: number; linked: number }>;
  putStudy(study: StoredStudy): Promise<void>;
  getStudy(planKey: string): Promise<StoredStudy | undefined>;
  listStudies(): Promise<StoredStudy[]>;
  /** Forgets the study; its runs stay in the library. */
  deleteStudy(planKey: string): Promise<void>;
  close(): void;
}

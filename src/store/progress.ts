// Run progress as the UI shows it: units done of total, attempts, rate, ETA, reused records.
// Counted from the records themselves, so a resumed run's progress includes what earlier sessions
// (and other runs, reused) contributed. What the records say (realized, reachable) the audit
// core computes from them on the page.

import type { ProbeName, QuestionRecord, RunManifest } from '../audit/types.ts';
import { recordKey } from '../audit/condition.ts';
import { unitKey } from './keys.ts';
import type { RunFailure } from './run-failure.ts';

export interface RunProgress {
  runId: string;
  manifestKey: string;
  status: RunManifest['status'];
  /** Question × probe units with a record, of all the run asks for. */
  recordsDone: number;
  recordsTotal: number;
  /** Questions with a record for every probe. */
  questionsDone: number;
  questionsTotal: number;
  /** Attempts in the run's records (reused included). */
  attemptsDone: number;
  /** Attempts per second computed in this session; null before the first record. */
  attemptsPerSec: number | null;
  /** Seconds left at this session's pace; null before the first computed record. */
  etaSec: number | null;
  /** The question being worked on (best guess: the audit goes probe by probe, question by
   *  question); null when all are done. */
  currentDocId: string | null;
  currentProbe: ProbeName | null;
  /** Units taken from records other runs computed under the same key. */
  reused: number;
  /** Where records go; 'memory' after IndexedDB failed (export before closing the tab). */
  storage: 'indexeddb' | 'memory';
  /** Why the run stopped, for interrupted and failed runs. */
  message?: string;
  /** What kind of error stopped a failed run (this session's; a stored run keeps only the message). */
  failure?: RunFailure;
  /** Attempts decoded for the questions being worked on now, of the most they can make (the
   *  audit's onAttempts): a long question shows it is moving before its record. */
  inFlight?: InFlight | null;
}

export interface InFlight {
  probe: ProbeName;
  questions: number;
  attemptsDone: number;
  attemptsOf: number;
}

export class ProgressTracker {
  private readonly done = new Set<string>();
  /** The audit core's record keys (condition.ts recordKey: model, condition, probe, doc id, doc
   *  hash, prompt hash) of the units done: its skip hook, so a unit is skipped only for a record
   *  of the same question content and prompt. */
  private readonly doneKeys = new Set<string>();
  private lastProbe: ProbeName | null = null;
  private readonly perDoc = new Map<string, number>();
  private attempts = 0;
  private sessionStart: number | null = null;
  private sessionAttempts = 0;
  private sessionRecords = 0;
  reused = 0;
  /** The latest progress within the questions being worked on (null between sessions). */
  inFlight: InFlight | null = null;

  constructor(
    private readonly docIds: string[],
    private readonly probes: ProbeName[],
    private readonly now: () => number,
  ) {}

  /** Counts a record of the run (once per unit). */
  add(record: QuestionRecord, how: 'computed' | 'reused' | 'earlier'): void {
    const u = unitKey(record.doc_id, record.probe);
    if (this.done.has(u)) return;
    this.done.add(u);
    this.doneKeys.add(recordKey(record));
    this.perDoc.set(record.doc_id, (this.perDoc.get(record.doc_id) ?? 0) + 1);
    this.attempts += record.attempts.length;
    if (how === 'reused') this.reused++;
    if (how === 'computed') {
      this.lastProbe = record.probe;
      this.sessionRecords++;
      this.sessionAttempts += record.attempts.length;
    }
  }

  has(docId: string, probe: ProbeName): boolean {
    return this.done.has(unitKey(docId, probe));
  }

  /** Skip hook of the audit core: true for a record key (condition.ts recordKeyOf) already done. */
  hasKey(key: string): boolean {
    return this.doneKeys.has(key);
  }

  /** The probe still missing records that the audit most likely works on, and its next question. */
  private current(): { docId: string; probe: ProbeName } | null {
    const order = this.lastProbe ? [this.lastProbe, ...this.probes.filter((p) => p !== this.lastProbe)] : this.probes;
    for (const probe of order) {
      const docId = this.docIds.find((d) => !this.has(d, probe));
      if (docId !== undefined) return { docId, probe };
    }
    return null;
  }

  /** Marks the start of computing in this session (rate and ETA count from here). */
  startSession(): void {
    this.sessionStart = this.now();
    this.sessionAttempts = 0;
    this.sessionRecords = 0;
  }

  /** Milliseconds computed in this session so far. */
  sessionMs(): number {
    return this.sessionStart === null ? 0 : this.now() - this.sessionStart;
  }

  get recordsDone(): number {
    return this.done.size;
  }

  snapshot(base: Pick<RunProgress, 'runId' | 'manifestKey' | 'status' | 'storage' | 'message' | 'failure'>): RunProgress {
    const total = this.docIds.length * this.probes.length;
    const sec = this.sessionMs() / 1000;
    const rate = this.sessionRecords > 0 && sec > 0 ? this.sessionAttempts / sec : null;
    const secPerRecord = this.sessionRecords > 0 ? sec / this.sessionRecords : null;
    let questionsDone = 0;
    for (const n of this.perDoc.values()) if (n === this.probes.length) questionsDone++;
    const current = this.current();
    return {
      ...base,
      recordsDone: this.done.size,
      recordsTotal: total,
      questionsDone,
      questionsTotal: this.docIds.length,
      attemptsDone: this.attempts,
      attemptsPerSec: rate,
      etaSec: secPerRecord === null ? null : secPerRecord * (total - this.done.size),
      currentDocId: current?.docId ?? null,
      currentProbe: current?.probe ?? null,
      reused: this.reused,
      inFlight: this.inFlight,
    };
  }
}

// Run orchestration: a queue of audit runs on one engine; start, pause, resume, cancel; progress;
// each question record persisted as it completes (records completing while a write is in flight
// go in the next write, one transaction: WRITE_BATCH). A lost device or a crashed worker
// marks the run interrupted (not failed): starting it again resumes where it stopped, with
// finished and reusable records skipped, never recomputed.

import { recordKey, type QuestionIdentity } from '../audit/condition.ts';
import type { AttemptProgress } from '../audit/run.ts';
import type { QuestionRecord, RunManifest } from '../audit/types.ts';
import { isEngineError, type Engine } from '../engine/types.ts';
import { StoreError, isStoreError } from './errors.ts';
import { manifestKey, recordKeyIn, runScope, type RunScope } from './keys.ts';
import { FallbackRunStore } from './fallback-store.ts';
import { ProgressTracker, type RunProgress } from './progress.ts';
import { runFailureOf, type RunFailure } from './run-failure.ts';
import { latestRun, prepareResume } from './records.ts';
import { LEGACY_RUN_MESSAGE, type RunCounters, type StoredRun } from './schema.ts';
import type { RunStore } from './store.ts';
import { auditLockName, HEARTBEAT_MS, TabLocks, type ProgressChannel } from './tab-lock.ts';

/** What the controller hands the audit: the lead's input plus the store's hooks. */
export interface AuditCall<T> {
  input: T;
  /** true for record keys (audit/condition.ts recordKeyOf) already stored: the audit must not
   *  compute those units. */
  skip(key: string): boolean;
  /** The stored record under a key `skip` accepted (a depth-matched probe reads its MCTS
   *  probe's stored depths). */
  stored(key: string): QuestionRecord | undefined;
  /** Takes one complete record to persist: it is written at once, or with the others that complete
   *  while a write is in flight. Await it: it waits while a full batch is queued, and rejects once a
   *  write failed. */
  onRecord(record: QuestionRecord): Promise<void>;
  /** Progress within the questions being worked on (the audit's onAttempts). */
  onAttempts?(p: AttemptProgress): void;
  signal: AbortSignal;
}

/** Runs an audit, calling onRecord for each (question, probe) it completes. */
export type AuditFn<T> = (engine: Engine, call: AuditCall<T>) => Promise<unknown>;

export interface RunRequest<T> {
  manifest: RunManifest;
  /** The run's questions in order (id, content hash, prompt hash), as the audit will see them;
   *  their count is manifest.task.questions. With the manifest they make the run's key. */
  questions: QuestionIdentity[];
  /** Whatever the audit needs besides the store hooks (task, condition, probes, …). */
  input: T;
  /** Reuse records read from files (those regraded on import) and resume an imported run with
   *  this key; by default only records computed here are reused and a new run is started. */
  includeImported?: boolean;
}

export type RunEvent =
  | { type: 'progress'; progress: RunProgress }
  | { type: 'status'; run: StoredRun; failure?: RunFailure }
  | { type: 'storage-fallback'; message: string };

export interface RunControllerOptions<T> {
  store: RunStore;
  engine: Engine;
  audit: AuditFn<T>;
  locks?: TabLocks;
  /** Broadcasts progress to other tabs; omit in a single-context setting. */
  channel?: ProgressChannel;
  /** How often the running audit's progress is repeated to other tabs (default HEARTBEAT_MS). */
  heartbeatMs?: number;
  now?: () => number;
}

interface Job<T> {
  run: StoredRun;
  req: RunRequest<T>;
  scope: RunScope;
  /** What stopped it, when it failed in this session. */
  failure?: RunFailure;
}

interface Active<T> {
  job: Job<T>;
  /** The run's progress now (set while it runs). */
  snapshot?: () => RunProgress;
  abort: AbortController;
  stopAs?: 'paused' | 'cancelled';
  done: Promise<void>;
}

/** The most records one transaction writes. The audit waited on a transaction per record for
 *  about 8% of the app's built-in study (timed on 2 cores, where the writes' own work still competes
 *  with the engine's); now it goes on while a write is in flight, and a tab that closes loses at
 *  most the records of that write and the next. */
export const WRITE_BATCH = 64;

/** Engine error codes after which the engine is gone and the run can resume on a fresh one. */
const ENGINE_LOST = new Set(['device-lost', 'worker-crashed']);

export class RunController<T> {
  private storeRef: RunStore;
  private engine: Engine | null;
  private readonly audit: AuditFn<T>;
  private readonly locks: TabLocks;
  private readonly channel?: ProgressChannel;
  private readonly now: () => number;
  private readonly heartbeatMs: number;
  private readonly queue: Job<T>[] = [];
  private readonly jobs = new Map<string, Job<T>>();
  private readonly listeners = new Set<(e: RunEvent) => void>();
  private active: Active<T> | null = null;
  private pumping: Promise<void> | null = null;

  constructor(opts: RunControllerOptions<T>) {
    this.storeRef = opts.store;
    this.engine = opts.engine;
    this.audit = opts.audit;
    this.locks = opts.locks ?? TabLocks.fromNavigator();
    this.channel = opts.channel;
    this.now = opts.now ?? (() => performance.now());
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  }

  /** The tab is going away (pagehide): other tabs hear at once that its running audit stopped;
   *  the next start-up here marks it interrupted. */
  announceClosing(): void {
    const snapshot = this.active?.snapshot;
    if (snapshot && this.channel) this.channel.publish({ ...snapshot(), status: 'interrupted', message: 'the tab running it closed' });
  }

  /** The store in use: the IndexedDB one, or the memory one after a quota failure. */
  get store(): RunStore {
    return this.storeRef;
  }

  subscribe(listener: (e: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Queues a run. A run with the same run key (model, condition, probes, the content of its
   * questions and prompts) is resumed under its own id rather than started twice; a finished one
   * is returned as it is. Legacy runs never match (their keys carry LEGACY_KEY_PREFIX), imported
   * runs only with `includeImported`. Refused
   * with StoreError 'locked' when another tab is running this audit.
   */
  async start(req: RunRequest<T>): Promise<StoredRun> {
    checkRequest(req);
    const mk = await manifestKey(req.manifest, req.questions);
    const scope = await runScope(req.manifest, req.questions);
    const mine = [...this.jobs.values()].find((j) => j.run.manifestKey === mk);
    if (mine && (this.active?.job === mine || this.queue.includes(mine))) return mine.run;
    if (await this.locks.isHeld(auditLockName(mk))) {
      throw new StoreError('locked', 'This audit is already running in another tab; its progress shows in the Library here. Pause it there to run it in this tab.');
    }
    const reusable = (r: StoredRun) => !r.legacy && (req.includeImported === true || !r.manifest.imported);
    let previous = latestRun((await this.storeRef.runsByManifestKey(mk)).filter(reusable));
    if (!previous) {
      const clash = await this.storeRef.getRun(req.manifest.id);
      if (clash) throw new StoreError('bad-input', `a run with id ${req.manifest.id} is already stored for other settings or questions; start the run under a new id`);
      const fresh: StoredRun = {
        id: req.manifest.id,
        manifest: { ...req.manifest, status: 'queued' },
        manifestKey: mk,
        counters: zeroCounters(req.questions.length * req.manifest.probes.length),
        updatedAt: new Date().toISOString(),
      };
      // another tab may have created it since: one transaction decides
      const created = await this.storeRef.createRun(fresh, req.questions, reusable);
      if (created.id === fresh.id) return this.enqueue(req, created, scope);
      previous = created;
    }
    if (previous.manifest.status === 'finished') return previous;
    const run: StoredRun = { ...previous, manifest: { ...previous.manifest, status: 'queued' }, updatedAt: new Date().toISOString() };
    await this.storeRef.putRun(run);
    return this.enqueue(req, run, scope);
  }

  private enqueue(req: RunRequest<T>, run: StoredRun, scope: RunScope): StoredRun {
    const job: Job<T> = { run, req: { ...req, manifest: run.manifest }, scope };
    this.jobs.set(run.id, job);
    this.queue.push(job);
    this.emit({ type: 'status', run });
    this.pump();
    return run;
  }

  /** Stops a running or queued run; its finished records stay and `resume` continues it. */
  async pause(runId: string): Promise<void> {
    await this.stop(runId, 'paused');
  }

  async cancel(runId: string): Promise<void> {
    await this.stop(runId, 'cancelled');
  }

  /** Queues again a paused, interrupted or cancelled run started in this session. A legacy run
   *  (made by an earlier version) is refused with LEGACY_RUN_MESSAGE. */
  async resume(runId: string): Promise<StoredRun> {
    const job = this.jobs.get(runId);
    if (!job) {
      const stored = await this.storeRef.getRun(runId);
      if (stored?.legacy) throw new StoreError('legacy', LEGACY_RUN_MESSAGE);
      throw new StoreError('not-found', `run ${runId} was not started in this session; start it again with the same settings and it resumes where it stopped`);
    }
    return this.start(job.req);
  }

  /** Gives the controller a fresh engine after a lost device or a crashed worker. */
  setEngine(engine: Engine): void {
    this.engine = engine;
    this.pump();
  }

  /** Resolves when the queue is empty and nothing runs (or the engine is gone). */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /**
   * On app start: runs left 'running' or 'queued' by a closed tab or a crashed worker, and not
   * held by a live tab, become 'interrupted'. Returns them (resumable with `start`).
   */
  async recoverInterrupted(): Promise<StoredRun[]> {
    const out: StoredRun[] = [];
    for (const run of await this.storeRef.listRuns()) {
      const s = run.manifest.status;
      if (s !== 'running' && s !== 'queued') continue;
      if (this.jobs.has(run.id) || (await this.locks.isHeld(auditLockName(run.manifestKey)))) continue;
      const next = withStatus(run, 'interrupted', run.legacy ? LEGACY_RUN_MESSAGE : 'the tab closed or the engine stopped while the run was in progress');
      next.counters.interruptions++;
      await this.storeRef.putRun(next);
      out.push(next);
    }
    return out;
  }

  private async stop(runId: string, as: 'paused' | 'cancelled'): Promise<void> {
    const queued = this.queue.findIndex((j) => j.run.id === runId);
    if (queued >= 0) {
      const [job] = this.queue.splice(queued, 1);
      job.run = withStatus(job.run, as);
      await this.storeRef.putRun(job.run);
      this.emit({ type: 'status', run: job.run });
      return;
    }
    const active = this.active;
    if (active && active.job.run.id === runId) {
      active.stopAs = as;
      active.abort.abort();
      await this.engine?.cancel().catch(() => {});
      await active.done;
      return;
    }
    const run = await this.storeRef.getRun(runId);
    if (!run) throw new StoreError('not-found', `no run ${runId}`);
    if (run.manifest.status !== 'finished' && run.manifest.status !== as) {
      await this.storeRef.putRun(withStatus(run, as));
    }
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = (async () => {
      while (this.queue.length > 0 && this.engine) {
        const job = this.queue.shift()!;
        const abort = new AbortController();
        const active: Active<T> = { job, abort, done: Promise.resolve() };
        active.done = this.execute(active);
        this.active = active;
        await active.done;
        this.active = null;
      }
    })().finally(() => {
      this.pumping = null;
    });
  }

  private async execute(active: Active<T>): Promise<void> {
    const { job } = active;
    const lock = await this.locks.tryAcquire(auditLockName(job.run.manifestKey));
    if (!lock) {
      // Another tab took the audit after start(); it owns the run's status now.
      this.emit({ type: 'status', run: { ...job.run, counters: { ...job.run.counters, lastError: 'running in another tab' } } });
      return;
    }
    const probes = job.req.manifest.probes.map((p) => p.probe);
    const tracker = new ProgressTracker(job.req.questions.map((q) => q.doc_id), probes, this.now);
    const computeMsBefore = job.run.counters.computeMs;
    const snapshot = (active.snapshot = () => this.snapshotOf(job, tracker));
    const beat = this.channel ? setInterval(() => this.channel!.publish(snapshot()), this.heartbeatMs) : undefined;
    let writeError: unknown = null;
    /** Records counted but not yet written, and the loop writing them while it runs. */
    const pending: QuestionRecord[] = [];
    let writer: Promise<void> | null = null;
    const drain = (): Promise<void> => {
      if (writeError) return Promise.reject(writeError);
      writer ??= (async () => {
        try {
          while (pending.length) await this.persist(job, pending.splice(0, WRITE_BATCH), computeMsBefore, tracker);
        } catch (e) {
          writeError ??= e;
          active.abort.abort();
          throw e;
        } finally {
          writer = null;
        }
      })();
      return writer;
    };
    try {
      const plan = await prepareResume(this.storeRef, job.run.id, job.scope, job.req.questions, job.req.includeImported === true);
      for (const r of plan.records) tracker.add(r.stored.record, r.reused ? 'reused' : 'earlier');
      const earlier = new Map(plan.records.map((r) => [recordKey(r.stored.record), r.stored.record]));
      job.run = this.withTracker(withStatus(job.run, 'running'), tracker);
      await this.save(job.run);
      this.emit({ type: 'status', run: job.run });
      this.progress(job, tracker);
      tracker.startSession();
      if (tracker.recordsDone < job.run.counters.recordsTotal) {
        const engine = this.engine;
        if (!engine) throw new StoreError('internal', 'no engine to run the audit on');
        await this.audit(engine, {
          input: job.req.input,
          skip: (key) => tracker.hasKey(key),
          stored: (key) => earlier.get(key),
          onRecord: (record) => {
            if (writeError) return Promise.reject(writeError);
            if (tracker.has(record.doc_id, record.probe)) return Promise.resolve();
            tracker.add(record, 'computed');
            pending.push(record);
            this.progress(job, tracker);
            const written = drain();
            if (pending.length >= WRITE_BATCH) return written;
            written.catch(() => {}); // a failure stops the audit through writeError
            return Promise.resolve();
          },
          onAttempts: (p) => {
            tracker.inFlight = { probe: p.probe, questions: p.questions, attemptsDone: p.done, attemptsOf: p.of };
            this.progress(job, tracker);
          },
          signal: active.abort.signal,
        });
        await drain();
      }
      if (active.stopAs) throw new StoreError('internal', 'stopped');
      if (tracker.recordsDone < job.run.counters.recordsTotal) {
        throw new StoreError('internal', `the audit ended with ${tracker.recordsDone} of ${job.run.counters.recordsTotal} records`);
      }
      job.run = this.withTracker(withStatus(job.run, 'finished'), tracker);
      job.run.manifest.finishedAt = new Date().toISOString();
      job.run.counters.computeMs = computeMsBefore + tracker.sessionMs();
      await this.save(job.run);
    } catch (e) {
      // the records completed before the stop are kept
      await drain().catch(() => {});
      const cause = writeError ?? e;
      let status: RunManifest['status'];
      let message: string | undefined;
      if (active.stopAs) {
        status = active.stopAs;
      } else if (isEngineError(cause) && ENGINE_LOST.has(cause.code)) {
        status = 'interrupted';
        message = cause.message;
        this.engine = null; // wait for setEngine(fresh) before running anything else
      } else if (isStoreError(cause) && cause.code !== 'bad-input') {
        status = 'interrupted';
        message = cause.message;
      } else {
        status = 'failed';
        message = cause instanceof Error ? cause.message : String(cause);
        job.failure = runFailureOf(cause);
      }
      job.run = this.withTracker(withStatus(job.run, status, message), tracker);
      job.run.counters.computeMs = computeMsBefore + tracker.sessionMs();
      if (status === 'interrupted') job.run.counters.interruptions++;
      await this.save(job.run).catch(() => {});
    } finally {
      clearInterval(beat);
      lock.release();
      tracker.inFlight = null;
      this.emit({ type: 'status', run: job.run, ...(job.failure ? { failure: job.failure } : {}) });
      this.progress(job, tracker);
    }
  }

  /** Records of one run and its counters, one transaction; on a full quota the run moves to memory
   *  and goes on. */
  private async persist(job: Job<T>, records: QuestionRecord[], computeMsBefore: number, tracker: ProgressTracker): Promise<void> {
    const run: StoredRun = {
      ...job.run,
      counters: {
        ...job.run.counters,
        recordsDone: job.run.counters.recordsDone + records.length,
        attemptsComputed: job.run.counters.attemptsComputed + records.reduce((n, r) => n + r.attempts.length, 0),
        computeMs: computeMsBefore + tracker.sessionMs(),
      },
      updatedAt: new Date().toISOString(),
    };
    await this.onDisk(() => this.storeRef.putRecords(run.id, records.map((record) => ({ key: recordKeyIn(job.scope, record), record })), run));
    job.run = run;
  }

  /** A run status write; on a full quota the store moves to memory and the write goes there. */
  private save(run: StoredRun): Promise<void> {
    return this.onDisk(() => this.storeRef.putRun(run));
  }

  /** Runs a write; when IndexedDB's quota is full, falls back to memory (reads still see what
   *  IndexedDB holds: fallback-store.ts) and writes there. */
  private async onDisk<R>(write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } catch (e) {
      if (!(isStoreError(e) && e.code === 'quota-exceeded' && this.storeRef.kind === 'indexeddb')) throw e;
      const reason = `${e.message} The audit continues in memory: export the run from the Library before closing this tab.`;
      this.storeRef = new FallbackRunStore(this.storeRef, reason);
      this.emit({ type: 'storage-fallback', message: reason });
      return write();
    }
  }

  private withTracker(run: StoredRun, tracker: ProgressTracker): StoredRun {
    return { ...run, counters: { ...run.counters, recordsDone: tracker.recordsDone, reused: tracker.reused } };
  }

  private snapshotOf(job: Job<T>, tracker: ProgressTracker): RunProgress {
    return tracker.snapshot({
      runId: job.run.id,
      manifestKey: job.run.manifestKey,
      status: job.run.manifest.status,
      storage: this.storeRef.kind,
      message: job.run.counters.lastError,
      ...(job.failure ? { failure: job.failure } : {}),
    });
  }

  private progress(job: Job<T>, tracker: ProgressTracker): void {
    const progress = this.snapshotOf(job, tracker);
    this.emit({ type: 'progress', progress });
    this.channel?.publish(progress);
  }

  private emit(e: RunEvent): void {
    for (const l of this.listeners) l(e);
  }
}

function zeroCounters(recordsTotal: number): RunCounters {
  return { recordsTotal, recordsDone: 0, reused: 0, attemptsComputed: 0, computeMs: 0, interruptions: 0 };
}

function withStatus(run: StoredRun, status: RunManifest['status'], lastError?: string): StoredRun {
  const counters = { ...run.counters };
  if (lastError !== undefined) counters.lastError = lastError;
  else delete counters.lastError;
  return { ...run, manifest: { ...run.manifest, status }, counters, updatedAt: new Date().toISOString() };
}

function checkRequest<T>(req: RunRequest<T>): void {
  const { manifest, questions } = req;
  if (questions.length !== manifest.task.questions) {
    throw new StoreError('bad-input', `run ${manifest.id}: ${questions.length} questions given, the manifest says ${manifest.task.questions}`);
  }
  for (const q of questions) {
    if (typeof q.doc_id !== 'string' || typeof q.doc_hash !== 'string' || typeof q.prompt_hash !== 'string' || !q.doc_hash || !q.prompt_hash) {
      throw new StoreError('bad-input', `run ${manifest.id}: question ${String(q.doc_id)} lacks its doc_hash or prompt_hash`);
    }
  }
  if (new Set(questions.map((q) => q.doc_id)).size !== questions.length) throw new StoreError('bad-input', `run ${manifest.id}: question ids repeat`);
  if (manifest.probes.length === 0) throw new StoreError('bad-input', `run ${manifest.id} lists no probe`);
}

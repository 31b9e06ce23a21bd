// The Run screen's state: the model's load, then the store's progress of the run, the run's records
// (those stored by earlier sessions included, so a resumed run counts everything it holds), live
// counts, the attempts planned, the time since this start and the time left, both from the wall
// clock (lib/run-clock.ts).

import { questionState, reachedBy } from '../../audit';
import type { QuestionRecord, RunManifest } from '../../audit/types';
import type { LoadProgress } from '../../engine/types';
import type { AppBackend, RunHandle, RunProgress, RunSetup } from '../backend';
import { groupByQuestion, reachProbeKeys } from '../lib/analysis';
import { attemptsOf } from '../lib/estimate';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { probeMix, saveRate } from '../lib/rates';
import { runTimeLeft, type Sample, type TimeLeft } from '../lib/run-clock';
import { Clock } from './clock.svelte';
import { saveSetup } from '../lib/resumable';

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem'>;

const unit = (r: QuestionRecord) => `${r.doc_id}\u0000${r.probe_key}`;

/** `a` with the records of `b` it lacks (one record per question and probe). */
function merged(a: readonly QuestionRecord[], b: readonly QuestionRecord[]): QuestionRecord[] {
  const have = new Set(a.map(unit));
  return [...a, ...b.filter((r) => !have.has(unit(r)))];
}

export class RunState {
  /** The model's load, before the run exists. */
  load = $state.raw<LoadProgress | null>(null);
  progress = $state.raw<RunProgress | null>(null);
  /** The wall clock, ticking while the run is active. */
  readonly clock: Clock;
  /** When this start began and, once it stopped, when it stopped (wall-clock ms). */
  private startedAt = $state<number | null>(null);
  private stoppedAt = $state<number | null>(null);
  /** Attempts done when computing (re)started, and at the latest progress. */
  private first = $state.raw<Sample | null>(null);
  private last = $state.raw<Sample | null>(null);
  /** The run's question texts by doc id (the question being worked on is shown by its text). */
  texts = $state.raw<ReadonlyMap<string, string>>(new Map());
  records = $state.raw<QuestionRecord[]>([]);
  manifest = $state.raw<RunManifest | null>(null);
  error = $state.raw<UserMessage | null>(null);
  runId = $state<string | null>(null);
  /** The last start found this very audit finished already: its stored run is the result. */
  alreadyFinished = $state(false);
  /** A start is in flight (the model loading, the questions read, the prompts built): Cancel stops it. */
  starting = $state(false);
  /** The setup of the run started last: starting it again resumes that run under its id. */
  lastSetup = $state.raw<RunSetup | null>(null);
  private backend: AppBackend;
  /** Where run setups and measured rates are kept (localStorage in the app). */
  private storage: Storage | null;

  constructor(backend: AppBackend, storage: Storage | null = null, clock: Clock = new Clock()) {
    this.backend = backend;
    this.storage = storage;
    this.clock = clock;
  }

  /** Milliseconds from this start to now, or to when it stopped. */
  get elapsedMs(): number {
    return this.startedAt === null ? 0 : (this.stoppedAt ?? this.clock.now) - this.startedAt;
  }
  /** Time left at the pace measured since computing began; null before anything is measured or
   *  while the run is not computing. */
  get timeLeft(): TimeLeft | null {
    if (this.progress?.status !== 'running' || !this.last) return null;
    return runTimeLeft({ left: this.attemptsTotal - this.last.attempts, first: this.first, last: this.last, now: this.clock.now });
  }

  /** Follows a progress message: the pace is measured from the first one of each computing stretch. */
  private observe(p: RunProgress): void {
    const now = this.clock.tick();
    const sample = { t: now, attempts: p.attemptsDone + (p.inFlight?.attemptsDone ?? 0) };
    if (p.status !== 'running') this.first = null;
    else if (!this.first) this.first = sample;
    this.last = sample;
    const stopped = !['queued', 'running', 'paused'].includes(p.status);
    if (stopped && this.stoppedAt === null) {
      this.stoppedAt = now;
      this.clock.stop();
    }
  }

  questions = $derived(groupByQuestion(this.records));
  /** Over the questions whose deployment attempt is in: realized, reachable under any reach probe,
   *  reachable-only, and how many each reach probe reached (the core's questionState and reachedBy;
   *  this runs on every record, so it builds no summary with curves). */
  counts = $derived.by(() => {
    const done = this.questions.filter((q) => q.deployed !== null);
    return {
      questions: done.length,
      realized: done.filter((q) => q.realized).length,
      reachable: done.filter((q) => reachedBy(q.records)).length,
      reachableOnly: done.filter((q) => questionState(q.records) === 'reachable-only').length,
      perProbe: reachProbeKeys(this.records).map((p) => ({ ...p, reachable: done.filter((q) => reachedBy(q.records, { probeKey: p.key })).length })),
    };
  });

  /** The run's status, 'loading' while the model loads. */
  phase = $derived(this.progress?.status ?? (this.load ? 'loading' : null));
  active = $derived(this.phase === 'loading' || this.phase === 'queued' || this.phase === 'running' || this.phase === 'paused');
  /** The most attempts the run makes: each probe's at most, per question. */
  attemptsTotal = $derived(this.progress && this.lastSetup ? attemptsOf(this.progress.questionsTotal, this.lastSetup.probes) : 0);

  /** Starts a run; resolves once it is under way (its end arrives through `manifest`), or at once
   *  with `alreadyFinished` set when the same audit had finished before. */
  async start(setup: RunSetup): Promise<void> {
    this.records = [];
    this.load = null;
    this.progress = null;
    this.first = null;
    this.last = null;
    this.startedAt = this.clock.tick();
    this.stoppedAt = null;
    this.clock.start();
    this.texts = new Map();
    this.manifest = null;
    this.error = null;
    this.runId = null;
    this.alreadyFinished = false;
    this.lastSetup = setup;
    let handle: RunHandle;
    let seeded = false;
    this.starting = true;
    try {
      handle = await this.backend.startRun(setup, {
        load: (l) => (this.load = l),
        progress: (p) => {
          this.progress = p;
          this.observe(p);
          // once the run is under way its store holds what earlier sessions (or other runs) computed
          if (!seeded) {
            seeded = true;
            void this.addStored(p.runId);
          }
        },
        record: (r) => (this.records = merged(this.records, [r])),
      });
    } catch (e) {
      this.error = toUserMessage(e, 'start-run');
      this.load = null;
      this.halt();
      return;
    } finally {
      this.starting = false;
    }
    this.runId = handle.runId;
    this.texts = handle.texts;
    saveSetup(this.storage, handle.runId, setup);
    if (handle.alreadyFinished) {
      this.alreadyFinished = true;
      this.halt();
      await this.showStored(handle.runId);
      return;
    }
    handle.done.then(
      (m) => {
        this.manifest = m;
        this.halt();
        this.keepRate(m);
        void this.addStored(m.id);
      },
      (e) => {
        this.error = toUserMessage(e, 'run');
        this.halt();
        const lost = e instanceof Error && ['device-lost', 'worker-crashed'].includes((e as { code?: string }).code ?? '');
        if (this.progress) this.progress = { ...this.progress, status: lost ? 'interrupted' : 'failed' };
      },
    );
  }

  async pause(): Promise<void> {
    await this.call((id) => this.backend.pauseRun(id));
  }

  async resume(): Promise<void> {
    await this.call((id) => this.backend.resumeRun(id));
  }

  /** Cancels the run, or the start in flight before the run exists. */
  async cancel(): Promise<void> {
    if (this.starting) await this.backend.cancelStart();
    else await this.call((id) => this.backend.cancelRun(id));
  }

  /** Adds the stored records of the run that this page has not seen. */
  private async addStored(runId: string): Promise<void> {
    try {
      const stored = await this.backend.getRun(runId);
      if (this.progress?.runId === runId || this.runId === runId) this.records = merged(this.records, stored.records);
    } catch {
      // not stored (yet): the records streamed in are all there is
    }
  }

  /** A finished run, its stored records: the result (it has no progress, nothing ran). */
  private async showStored(runId: string): Promise<void> {
    try {
      const { manifest, records } = await this.backend.getRun(runId);
      this.records = records;
      this.manifest = manifest;
    } catch (e) {
      this.error = toUserMessage(e, 'start-run');
    }
  }

  /** Stops the clock: the elapsed time stays where the run stopped. */
  private halt(): void {
    if (this.stoppedAt === null) this.stoppedAt = this.clock.tick();
    this.clock.stop();
  }

  /** The session's measured pace, for the next estimate of this model on this device. */
  private keepRate(m: RunManifest): void {
    const rate = this.progress?.attemptsPerSec;
    if (!rate || !m.engine || !m.condition) return;
    saveRate(this.storage, { fingerprint: m.model.fingerprint, ep: m.engine.ep, dtype: m.engine.dtype, probes: probeMix(m.probes) }, { attemptsPerSecond: rate, maxNewTokens: m.condition.maxNewTokens });
  }

  private async call(f: (id: string) => Promise<void>): Promise<void> {
    if (!this.runId) return;
    try {
      await f(this.runId);
    } catch (e) {
      this.error = toUserMessage(e, 'run');
    }
  }
}

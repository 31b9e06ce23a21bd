// The Run screen's state: progress from the backend, the records so far, live counts, rate and ETA.

import type { QuestionRecord, RunManifest } from '../../audit/types';
import type { AppBackend, RunHandle, RunProgress, RunSetup } from '../backend';
import { groupByQuestion, isReachable, REACH_PROBES } from '../lib/analysis';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { saveSetup } from '../lib/resumable';

export class RunState {
  progress = $state.raw<RunProgress | null>(null);
  records = $state.raw<QuestionRecord[]>([]);
  manifest = $state.raw<RunManifest | null>(null);
  error = $state.raw<UserMessage | null>(null);
  runId = $state<string | null>(null);
  /** The setup of the run started last: starting it again resumes that run under its id. */
  lastSetup = $state.raw<RunSetup | null>(null);
  private backend: AppBackend;

  /** Where run setups are kept for resuming after a reload (localStorage in the app). */
  private storage: Pick<Storage, 'getItem' | 'setItem'> | null;

  constructor(backend: AppBackend, storage: Pick<Storage, 'getItem' | 'setItem'> | null = null) {
    this.backend = backend;
    this.storage = storage;
  }

  questions = $derived(groupByQuestion(this.records));
  /** Questions whose deployment attempt is in, and how many of them each outcome holds. */
  counts = $derived.by(() => {
    const done = this.questions.filter((q) => q.deployed !== null);
    const perProbe = Object.fromEntries(REACH_PROBES.map((p) => [p, done.filter((q) => isReachable(q, p)).length])) as Record<(typeof REACH_PROBES)[number], number>;
    return {
      questions: done.length,
      realized: done.filter((q) => q.realized).length,
      reachable: done.filter((q) => isReachable(q)).length,
      reachableOnly: done.filter((q) => !q.realized && isReachable(q)).length,
      perProbe,
    };
  });

  phase = $derived(this.progress?.phase ?? null);
  active = $derived(this.phase === 'loading' || this.phase === 'running' || this.phase === 'paused');
  fraction = $derived(this.progress && this.progress.attemptsTotal > 0 ? this.progress.attemptsDone / this.progress.attemptsTotal : 0);
  attemptsPerSecond = $derived(this.progress && this.progress.elapsedMs > 0 ? (1000 * this.progress.attemptsDone) / this.progress.elapsedMs : null);
  etaSeconds = $derived(
    this.progress && this.attemptsPerSecond ? (this.progress.attemptsTotal - this.progress.attemptsDone) / this.attemptsPerSecond : null,
  );

  /** Starts a run; resolves once it is under way (its end arrives through `manifest`). */
  async start(setup: RunSetup): Promise<void> {
    this.records = [];
    this.progress = null;
    this.manifest = null;
    this.error = null;
    this.lastSetup = setup;
    let handle: RunHandle;
    try {
      handle = await this.backend.startRun(
        setup,
        (p) => (this.progress = p),
        (r) => (this.records = [...this.records, r]),
      );
    } catch (e) {
      this.error = toUserMessage(e);
      return;
    }
    this.runId = handle.runId;
    saveSetup(this.storage, handle.runId, setup);
    handle.done.then(
      (m) => (this.manifest = m),
      (e) => {
        this.error = toUserMessage(e);
        const lost = e instanceof Error && ['device-lost', 'worker-crashed'].includes((e as { code?: string }).code ?? '');
        if (this.progress) this.progress = { ...this.progress, phase: lost ? 'interrupted' : 'failed' };
      },
    );
  }

  async pause(): Promise<void> {
    await this.call((id) => this.backend.pauseRun(id));
  }

  async resume(): Promise<void> {
    await this.call((id) => this.backend.resumeRun(id));
  }

  async cancel(): Promise<void> {
    await this.call((id) => this.backend.cancelRun(id));
  }

  private async call(f: (id: string) => Promise<void>): Promise<void> {
    if (!this.runId) return;
    try {
      await f(this.runId);
    } catch (e) {
      this.error = toUserMessage(e);
    }
  }
}

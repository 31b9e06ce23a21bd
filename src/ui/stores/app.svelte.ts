// Which screen is showing, the environment banner, the run being read, and app-wide errors.

import type { AppBackend, EnvironmentInfo, LibraryEntry, RunSetup, StoredRun } from '../backend';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { LibraryState } from './library.svelte';
import { Prefs } from './prefs.svelte';
import { RunState } from './run.svelte';
import { SetupState } from './setup.svelte';
import { StudyState } from './study.svelte';

export type Screen = 'setup' | 'run' | 'results' | 'question' | 'library' | 'compare' | 'help' | 'study' | 'study-report' | 'walk';

export class AppState {
  screen = $state<Screen>('setup');
  env = $state.raw<EnvironmentInfo | null>(null);
  error = $state.raw<UserMessage | null>(null);
  /** Problems a permalink had, shown on the Setup screen. */
  linkProblems = $state<string[]>([]);
  /** The run shown on Results and drill-down. */
  opened = $state.raw<StoredRun | null>(null);
  /** The opened run is the stored result of an identical audit a start found finished. */
  openedReused = $state(false);
  questionId = $state<string | null>(null);
  /** The question whose deployment attempt is read out as its screen opens (the walk's "look
   *  inside"); the screen scrolls to the read-out, then this is cleared. */
  lookInsideFor = $state<string | null>(null);
  /** The reach probe (its key) whose failure set the silencing scan of the opened run reads, as
   *  chosen on Results; null: the default (analysis.ts scanProbeKey). */
  scanProbe = $state<string | null>(null);
  pair = $state.raw<[StoredRun, StoredRun] | null>(null);
  /** Where the Results list was scrolled when a question was opened from it (restored on return). */
  resultsScrollY = 0;

  readonly backend: AppBackend;
  readonly prefs: Prefs;
  readonly setup = new SetupState();
  readonly run: RunState;
  readonly library: LibraryState;
  readonly study: StudyState;

  constructor(backend: AppBackend, storage: Pick<Storage, 'getItem' | 'setItem'> | null) {
    this.backend = backend;
    this.prefs = new Prefs(storage);
    this.run = new RunState(backend, storage);
    this.library = new LibraryState(backend);
    this.study = new StudyState(backend, storage);
  }

  /** One step from the home screen: the built-in study (offline, built-in models), then its report. */
  async reproducePaper(): Promise<void> {
    this.study.usePreset('builtin');
    this.go('study');
    await this.study.start();
    if (this.study.report) this.go('study-report');
  }

  async init(): Promise<void> {
    // the stored runs, so that Results (the latest finished run) works right after a reload
    void this.library.refresh();
    try {
      this.env = await this.backend.environment();
    } catch (e) {
      this.error = toUserMessage(e);
    }
  }

  /** The browser went on- or offline: the banner follows. */
  setOnline(online: boolean): void {
    if (this.env) this.env = { ...this.env, online };
  }

  go(screen: Screen): void {
    this.screen = screen;
  }

  /** Starts an audit from the Run screen; an identical audit that finished before opens its results. */
  async startAudit(setup: RunSetup): Promise<void> {
    this.go('run');
    await this.run.start(setup);
    if (!this.run.alreadyFinished || !this.run.runId || !this.run.manifest) return;
    this.openRun({ manifest: this.run.manifest, records: this.run.records }, { reused: true });
  }

  /** The latest finished run of the library, for the Results tab when no run is open. */
  get latestFinished(): LibraryEntry | null {
    return this.library.runs.find((r) => r.status === 'finished') ?? null;
  }

  /** The run this tab finished last (the library list may not hold it yet). */
  private get finishedHere(): string | null {
    return this.run.manifest?.status === 'finished' ? this.run.runId : null;
  }

  /** Whether Results has a run to show: one open, one this tab finished, or one in the library. */
  get hasResults(): boolean {
    return this.opened !== null || this.finishedHere !== null || this.latestFinished !== null;
  }

  /** Results: the open run, else the run this tab finished, else the latest finished run of the library. */
  async showResults(): Promise<void> {
    if (this.opened) return this.go('results');
    const id = this.finishedHere ?? this.latestFinished?.id;
    if (!id) return;
    const run = await this.library.open(id);
    if (run) this.openRun(run);
  }

  openRun(run: StoredRun, opts: { reused?: boolean } = {}): void {
    this.opened = run;
    this.openedReused = opts.reused === true;
    this.questionId = null;
    this.scanProbe = null;
    this.screen = 'results';
  }

  openQuestion(docId: string, opts: { lookInside?: boolean } = {}): void {
    if (this.screen === 'results') this.resultsScrollY = globalThis.scrollY ?? 0;
    this.lookInsideFor = opts.lookInside ? docId : null;
    this.questionId = docId;
    this.screen = 'question';
  }

  openPair(pair: [StoredRun, StoredRun]): void {
    this.pair = pair;
    this.screen = 'compare';
  }

  fail(e: unknown): void {
    this.error = toUserMessage(e);
  }
}

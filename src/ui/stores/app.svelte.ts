// Which screen is showing (a route of the screen table, src/ui/screens.ts), the environment banner,
// the run being read, and app-wide errors.

import type { AppBackend, EnvironmentInfo, LibraryEntry, RunSetup, StoredRun } from '../backend';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { permalinkPart, readAddress } from '../lib/address';
import { parsePermalink } from '../lib/permalink';
import { parseStudyLink } from '../lib/study-link';
import { addressOf, SCREENS, type PlainScreen, type Route, type ScreenName, type ScreenTable } from '../screens';
import { LibraryState } from './library.svelte';
import { Prefs } from './prefs.svelte';
import { RunState } from './run.svelte';
import { SetupState } from './setup.svelte';
import { StudyState } from './study.svelte';

export class AppState {
  /** The screen shown and its parameters. */
  route = $state.raw<Route>({ name: 'setup' });
  /** The route was opened from its address (a link, Back): the address bar keeps its entry. */
  routeFromAddress = false;
  /** How many times the route changed: an address read while the person moved on is dropped. */
  private moves = 0;
  env = $state.raw<EnvironmentInfo | null>(null);
  error = $state.raw<UserMessage | null>(null);
  /** Problems a permalink had, shown on the Setup screen. */
  linkProblems = $state<string[]>([]);
  /** The run last shown on Results or a question: the Results tab returns to it. */
  opened = $state.raw<StoredRun | null>(null);
  /** The opened run is the stored result of an identical audit a start found finished. */
  openedReused = $state(false);
  /** The question whose deployment attempt is read out as its screen opens (the walk's "look
   *  inside"); the screen scrolls to the read-out, then this is cleared. */
  lookInsideFor = $state<string | null>(null);
  /** The reach probe (its key) whose failure set the silencing scan of the opened run reads, as
   *  chosen on Results; null: the default (analysis.ts scanProbeKey). */
  scanProbe = $state<string | null>(null);
  /** Where the Results list was scrolled when a question was opened from it (restored on return). */
  resultsScrollY = 0;

  readonly backend: AppBackend;
  readonly prefs: Prefs;
  readonly setup = new SetupState();
  readonly run: RunState;
  readonly library: LibraryState;
  readonly study: StudyState;

  readonly screens: ScreenTable;

  /** screens: the table of screens (a test may add its own). */
  constructor(backend: AppBackend, storage: Pick<Storage, 'getItem' | 'setItem'> | null, screens: ScreenTable = SCREENS) {
    this.backend = backend;
    this.screens = screens;
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

  /** The name of the screen shown. */
  get screen(): ScreenName {
    return this.route.name;
  }

  /** Shows a screen: by name when it takes no parameters. A run shown becomes the one Results returns to. */
  go(to: Route | PlainScreen): void {
    const route = typeof to === 'string' ? ({ name: to } as Route) : to;
    if ('run' in route && route.run !== this.opened) {
      this.opened = route.run;
      this.openedReused = false;
      this.scanProbe = null;
    }
    this.routeFromAddress = false;
    this.moves++;
    this.route = route;
  }

  /** The address of the screen shown (lib/address.ts). */
  get address(): string {
    return addressOf(this.screens, this.route, this);
  }

  /** The page opened at an address: its permalink part fills Setup (problems are listed there),
   *  then its screen opens. */
  async openFirst(hash: string): Promise<void> {
    await this.openAddress(hash, this.setup.applyPermalink(parsePermalink(permalinkPart(hash))));
  }

  /** Shows the screen an address names (lib/address.ts): a study link opens Study with its plan, a
   *  hash without a screen is Setup's; an address whose parameters cannot be read opens Setup, which
   *  says why; a screen that cannot open now (its tab is off) opens its parent, or Setup. Setup
   *  lists this address's problems only (`problems`: those found in it already), never an earlier one's. */
  async openAddress(hash: string, problems: string[] = []): Promise<void> {
    this.linkProblems = problems;
    const study = parseStudyLink(hash);
    if (study) {
      // Back to the plan already in the editor leaves its text as it is
      if (readAddress(hash).params.get('study') !== readAddress(this.study.linkHash ?? '').params.get('study')) this.study.applyLink(study);
      return this.goFromAddress({ name: 'study' });
    }
    const { screen, params } = readAddress(hash);
    if (screen === null) return this.goFromAddress({ name: 'setup' });
    const def = Object.hasOwn(this.screens, screen) ? this.screens[screen]! : null;
    if (!def) return this.refuseAddress(`the link names no screen "${screen.slice(0, 40)}"`);
    const moves = this.moves;
    const read = def.params ? await def.params.read(params, this) : {};
    if (this.moves !== moves) return;
    if (typeof read === 'string') return this.refuseAddress(`the link to ${def.name} cannot open: ${read}`);
    // a screen of what only this tab held (a run in progress, a report): after a reload, the screen above it
    if (!def.params && def.unavailable?.(this)) return this.goFromAddress({ name: def.parent ?? 'setup' } as Route);
    this.goFromAddress({ ...read, name: screen } as Route);
  }

  private goFromAddress(route: Route): void {
    this.go(route);
    this.routeFromAddress = true;
  }

  private refuseAddress(problem: string): void {
    this.linkProblems = [...this.linkProblems.filter((p) => p !== problem), problem];
    this.goFromAddress({ name: 'setup' });
  }

  /** A stored run by id: the one open, or read from the store; null when there is none. */
  async runById(id: string): Promise<StoredRun | null> {
    return this.opened?.manifest.id === id ? this.opened : this.library.open(id);
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
    if (this.opened) return this.go({ name: 'results', run: this.opened });
    const id = this.finishedHere ?? this.latestFinished?.id;
    if (!id) return;
    const run = await this.library.open(id);
    if (run) this.openRun(run);
  }

  openRun(run: StoredRun, opts: { reused?: boolean } = {}): void {
    this.opened = run;
    this.openedReused = opts.reused === true;
    this.scanProbe = null;
    this.go({ name: 'results', run });
  }

  /** A question of the open run. */
  openQuestion(docId: string, opts: { lookInside?: boolean } = {}): void {
    if (!this.opened) return;
    if (this.screen === 'results') this.resultsScrollY = globalThis.scrollY ?? 0;
    this.lookInsideFor = opts.lookInside ? docId : null;
    this.go({ name: 'question', run: this.opened, docId });
  }

  openPair(pair: [StoredRun, StoredRun]): void {
    this.go({ name: 'compare', pair });
  }

  fail(e: unknown): void {
    this.error = toUserMessage(e);
  }
}

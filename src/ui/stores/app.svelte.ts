// Which screen is showing, the environment banner, the run being read, and app-wide errors.

import type { AppBackend, EnvironmentInfo, StoredRun } from '../backend';
import { toUserMessage, type UserMessage } from '../lib/errors';
import { LibraryState } from './library.svelte';
import { Prefs } from './prefs.svelte';
import { RunState } from './run.svelte';
import { SetupState } from './setup.svelte';

export type Screen = 'setup' | 'run' | 'results' | 'question' | 'library' | 'compare';

export class AppState {
  screen = $state<Screen>('setup');
  env = $state.raw<EnvironmentInfo | null>(null);
  error = $state.raw<UserMessage | null>(null);
  /** Problems a permalink had, shown on the Setup screen. */
  linkProblems = $state<string[]>([]);
  /** The run shown on Results and drill-down. */
  opened = $state.raw<StoredRun | null>(null);
  questionId = $state<string | null>(null);
  pair = $state.raw<[StoredRun, StoredRun] | null>(null);

  readonly backend: AppBackend;
  readonly prefs: Prefs;
  readonly setup = new SetupState();
  readonly run: RunState;
  readonly library: LibraryState;

  constructor(backend: AppBackend, storage: Pick<Storage, 'getItem' | 'setItem'> | null) {
    this.backend = backend;
    this.prefs = new Prefs(storage);
    this.run = new RunState(backend, storage);
    this.library = new LibraryState(backend);
  }

  async init(): Promise<void> {
    try {
      this.env = await this.backend.environment();
    } catch (e) {
      this.error = toUserMessage(e);
    }
  }

  go(screen: Screen): void {
    this.screen = screen;
  }

  openRun(run: StoredRun): void {
    this.opened = run;
    this.questionId = null;
    this.screen = 'results';
  }

  openQuestion(docId: string): void {
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

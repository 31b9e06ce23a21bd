// The screens, each once: its name, its parameters (one typed value, `{ name: 'question', run, docId }`),
// its tab in the navigation or the tab it belongs under, whether that tab can be pressed, its
// address (lib/address.ts), and its component. App.svelte draws the navigation and the screen from
// this table, AppState moves between its entries, and the address bar follows (Back, bookmarks).
// A new screen is one entry here plus its component (docs/ARCHITECTURE.md "Add a screen").

import type { Component } from 'svelte';
import type { StudyReport } from '../audit/study-report';
import type { StoredRun } from './backend';
import { joinAddress, writeAddress } from './lib/address';
import { MAX_STUDY_LINK } from './lib/study-link';
import type { AppState } from './stores/app.svelte';
import CompareScreen from './components/CompareScreen.svelte';
import HelpScreen from './components/HelpScreen.svelte';
import LibraryScreen from './components/LibraryScreen.svelte';
import QuestionScreen from './components/QuestionScreen.svelte';
import ReportScreen from './components/ReportScreen.svelte';
import ResultsScreen from './components/ResultsScreen.svelte';
import RunScreen from './components/RunScreen.svelte';
import SetupScreen from './components/SetupScreen.svelte';
import StudyScreen from './components/StudyScreen.svelte';
import WalkScreen from './components/WalkScreen.svelte';

type NoParams = Record<never, never>;

/** One screen. P: its parameters; C: what its component is given besides `app` (P unless `props`). */
export interface ScreenDef<P extends object, C extends object = P> {
  /** Its name: the page title (unless `title`), and the heading of its error when it cannot be drawn. */
  name: string;
  /** The page title when it names the parameters (a question's title names the question). */
  title?(p: P): string;
  /** The label of its button in the navigation, when it has one (in table order). */
  tab?: string;
  /** The tab shown as current while this screen is (a question: Results). */
  parent?: string;
  /** Why its tab cannot be pressed now; null when it can. Its address then opens `parent`, or Setup
   *  (what it shows lived only in the tab that made it: a run in progress, a study's report). */
  unavailable?(app: AppState): string | null;
  /** What pressing its tab does, when not showing it as it is (Results opens a run). */
  press?(app: AppState): void | Promise<void>;
  /** Its parameters in its address, and back (the parameters, or what is wrong). */
  params?: { write(p: P): Record<string, string>; read(q: URLSearchParams, app: AppState): Promise<P | string> };
  /** Its part of the address, when not `#screen=<name>` and its parameters (Setup's: none, the
   *  permalink alone; Study's: the link of its plan). */
  address?(app: AppState): string;
  component: Component<C & { app: AppState }>;
  /** What its component is given besides `app`; null: nothing to show yet. Default: the parameters. */
  props?(app: AppState, p: P): C | null;
}

/** Declares a screen (the identity: it only ties the types of an entry together). */
export function screen<P extends object = NoParams, C extends object = P>(def: ScreenDef<P, C>): ScreenDef<P, C> {
  return def;
}

/** The run an address names, or what is wrong. */
async function runOf(app: AppState, q: URLSearchParams, key = 'run'): Promise<StoredRun | string> {
  const id = q.get(key);
  if (!id) return `it names no run ("${key}=")`;
  return (await app.runById(id)) ?? `run "${id.slice(0, 80)}" is not in this browser's library`;
}

/** Study's address: the study link of the plan in its editor (lib/study-link.ts), while it is a JSON
 *  object short enough for a link. */
function studyAddress(app: AppState): string {
  const link = app.study.linkHash;
  return link !== null && link.length - '#study='.length <= MAX_STUDY_LINK ? link : writeAddress('study');
}

export const SCREENS = {
  setup: screen({ name: 'Set up an audit', tab: 'Setup', component: SetupScreen, address: (): string => '' }),
  run: screen({
    name: 'Audit run',
    tab: 'Run',
    component: RunScreen,
    unavailable: (app): string | null => (app.run.progress !== null || app.run.error !== null ? null : 'No audit started in this tab yet'),
  }),
  results: screen<{ run: StoredRun }>({
    name: 'Results',
    tab: 'Results',
    component: ResultsScreen,
    unavailable: (app): string | null => (app.hasResults ? null : 'No finished run yet: start an audit, or import one in the Library'),
    press: (app): Promise<void> => app.showResults(),
    params: {
      write: (p): Record<string, string> => ({ run: p.run.manifest.id }),
      read: async (q, app): Promise<{ run: StoredRun } | string> => {
        const run = await runOf(app, q);
        return typeof run === 'string' ? run : { run };
      },
    },
  }),
  question: screen<{ run: StoredRun; docId: string }>({
    name: 'Question',
    title: (p): string => `Question ${p.docId}`,
    parent: 'results',
    component: QuestionScreen,
    params: {
      write: (p): Record<string, string> => ({ run: p.run.manifest.id, q: p.docId }),
      read: async (q, app): Promise<{ run: StoredRun; docId: string } | string> => {
        const run = await runOf(app, q);
        if (typeof run === 'string') return run;
        const docId = q.get('q');
        if (!docId) return 'it names no question ("q=")';
        if (!run.records.some((r) => r.doc_id === docId)) return `run "${run.manifest.id}" has no question "${docId.slice(0, 80)}"`;
        return { run, docId };
      },
    },
  }),
  library: screen({ name: 'Library', tab: 'Library', component: LibraryScreen }),
  compare: screen<{ pair: [StoredRun, StoredRun] }>({
    name: 'Checkpoint comparison',
    component: CompareScreen,
    params: {
      write: (p): Record<string, string> => ({ a: p.pair[0].manifest.id, b: p.pair[1].manifest.id }),
      read: async (q, app): Promise<{ pair: [StoredRun, StoredRun] } | string> => {
        const a = await runOf(app, q, 'a');
        const b = await runOf(app, q, 'b');
        return typeof a === 'string' ? a : typeof b === 'string' ? b : { pair: [a, b] };
      },
    },
  }),
  study: screen({ name: 'Study', tab: 'Study', component: StudyScreen, address: studyAddress }),
  'study-report': screen<NoParams, { report: StudyReport }>({
    name: 'Study report',
    parent: 'study',
    component: ReportScreen,
    unavailable: (app): string | null => (app.study.report ? null : 'No study report open in this tab'),
    props: (app): { report: StudyReport } | null => (app.study.report ? { report: app.study.report } : null),
  }),
  walk: screen({ name: 'Guided walk', component: WalkScreen }),
  help: screen({ name: 'How to read this', tab: 'How to read this', component: HelpScreen }),
};

/** A table of screens (SCREENS, or SCREENS with a test's own). */
export type ScreenTable = Record<string, ScreenDef<any, any>>;
export type ScreenName = keyof typeof SCREENS;
type ParamsOf<D> = D extends ScreenDef<infer P, any> ? P : never;
/** A screen and its parameters: what is shown, and what its address holds. */
export type Route = { [K in ScreenName]: { name: K } & ParamsOf<(typeof SCREENS)[K]> }[ScreenName];
/** The screens that take no parameters, opened by name alone. */
export type PlainScreen = { [K in ScreenName]: NoParams extends ParamsOf<(typeof SCREENS)[K]> ? K : never }[ScreenName];

const TITLE_END = ' · ReachLab';

/** The page title of a route. */
export function titleOf(screens: ScreenTable, route: { name: string }): string {
  const def = screens[route.name]!;
  return `${def.title ? def.title(route) : def.name}${TITLE_END}`;
}

/** The address of a route: its own part, then the permalink of the setup. */
export function addressOf(screens: ScreenTable, route: { name: string }, app: AppState): string {
  const def = screens[route.name]!;
  return joinAddress(def.address ? def.address(app) : writeAddress(route.name, def.params?.write(route) ?? {}), app.setup.permalink);
}

/** The tab marked current while `route` shows. */
export function tabOf(screens: ScreenTable, route: { name: string }): string {
  return screens[route.name]!.parent ?? route.name;
}

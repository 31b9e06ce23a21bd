// The table of screens: every screen once, App drawn from it, its addresses read back
// (Back: screens.back.spec.ts).

import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import App from './App.svelte';
import type { StoredRun } from './backend';
import { parsePermalink } from './lib/permalink';
import { encodeStudyLink } from './lib/study-link';
import { screen, SCREENS, titleOf, type Route, type ScreenTable } from './screens';
import ExampleScreen from './screens.fixture.svelte';
import { AppState } from './stores/app.svelte';
import { TestBackend, auditedRun } from './testing/test-backend';

/** The real backend over the fake engine, holding two finished runs (4 and 5 questions). */
const backend = new TestBackend();
const runs: Record<'r1' | 'r2', StoredRun> = { r1: await auditedRun(4, backend), r2: await auditedRun(5, backend) };
const id1 = runs.r1.manifest.id;
/** The run's second question. */
const q2 = [...new Set(runs.r1.records.map((r) => r.doc_id))][1]!;
/** A screen's own part of an address, as the address bar writes it. */
const own = (params: Record<string, string>) => `#${new URLSearchParams(params).toString()}`;

const fresh = (screens: ScreenTable = SCREENS) => new AppState(backend, null, screens);
/** The address of a screen's own part followed by the setup's permalink, as every address ends. */
const withSetup = (app: AppState, own: string) => `${own}&${app.setup.permalink.slice(1)}`;
const body = (app: AppState) => render(App, { props: { app } }).body;

describe('the table of screens', () => {
  it('names a screen in every parent, and one tab per screen that has one, in order', () => {
    const names = Object.keys(SCREENS);
    for (const [name, def] of Object.entries(SCREENS)) {
      if ('parent' in def) expect(names, name).toContain(def.parent);
    }
    expect(Object.entries(SCREENS).filter(([, d]) => 'tab' in d).map(([n]) => n)).toEqual(['setup', 'run', 'results', 'library', 'study', 'help']);
  });

  it('titles the page after the screen, naming an open question', () => {
    expect(titleOf(SCREENS, { name: 'results' })).toBe('Results · ReachLab');
    expect(titleOf(SCREENS, { name: 'question', run: runs.r1, docId: '17' } as Route)).toBe('Question 17 · ReachLab');
    expect(titleOf(SCREENS, { name: 'study-report' })).toBe('Study report · ReachLab');
  });

  it('draws a new screen from its table entry alone: its tab, its title, its address and its component', async () => {
    const example = screen<{ word: string }>({
      name: 'Example',
      tab: 'Example',
      component: ExampleScreen,
      params: { write: (p) => ({ word: p.word }), read: async (q) => {
        const word = q.get('word');
        return word ? { word } : 'no word';
      } },
    });
    const app = fresh({ ...SCREENS, example });
    await app.openAddress('#screen=example&word=hello');
    expect(app.screen).toBe('example');
    expect(app.address).toBe(withSetup(app, '#screen=example&word=hello'));
    expect(titleOf(app.screens, app.route)).toBe('Example · ReachLab');
    const html = body(app);
    expect(html).toMatch(/<button[^>]*aria-current="page"[^>]*data-testid="nav-example"[^>]*>Example<\/button>/);
    expect(html).toContain('<p data-testid="example-word">hello</p>');
    // its address, without the word, opens Setup and says why
    await app.openAddress('#screen=example');
    expect([app.screen, app.linkProblems]).toEqual(['setup', ['the link to Example cannot open: no word']]);
  });

  it('marks the parent tab current, and disables a tab that cannot open, saying why', () => {
    const app = fresh();
    app.go('study-report'); // no report open: the screen has nothing to show yet
    const html = body(app);
    expect(html).toMatch(/aria-current="page"[^>]*data-testid="nav-study"/);
    expect(html.match(/aria-current/g)).toHaveLength(1);
    expect(html).toMatch(/disabled[^>]*title="No audit started in this tab yet"[^>]*data-testid="nav-run"/);
    expect(html).toMatch(/disabled[^>]*title="No finished run yet: start an audit, or import one in the Library"[^>]*data-testid="nav-results"/);
    expect(html).toContain('Nothing to show here yet.');
  });
});

describe('addresses', () => {
  it('opens a question, a comparison and a plain screen from their addresses', async () => {
    const app = fresh();
    app.openRun(runs.r1);
    app.openQuestion(q2);
    expect(app.address).toBe(withSetup(app, own({ screen: 'question', run: id1, q: q2 })));
    const other = fresh();
    await other.openAddress(app.address);
    expect(other.route).toEqual({ name: 'question', run: runs.r1, docId: q2 });
    // the run a question shows is the one the Results tab returns to
    expect(other.opened).toEqual(runs.r1);
    app.openPair([runs.r1, runs.r2]);
    await other.openAddress(app.address);
    expect(other.route).toEqual({ name: 'compare', pair: [runs.r1, runs.r2] });
    await other.openAddress('#screen=library');
    expect(other.route).toEqual({ name: 'library' });
  });

  it('keeps Setup\'s fields in every address, so a reload on any screen keeps them', async () => {
    const app = fresh();
    expect(app.setup.applyPermalink(parsePermalink('#task=builtin:arith-2d:5&qseed=7&pseed=3'))).toEqual([]);
    const setup = app.setup.permalink;
    expect(setup).toContain('qseed=7&pseed=3');
    expect(app.address).toBe(setup); // Setup's address: its permalink alone
    app.openRun(runs.r2);
    const reloaded = fresh();
    await reloaded.openFirst(app.address);
    expect([reloaded.route, reloaded.linkProblems]).toEqual([{ name: 'results', run: runs.r2 }, []]);
    // the same setup (a condition's members may come back in another order)
    expect(parsePermalink(reloaded.setup.permalink)).toEqual(parsePermalink(setup));
    // a study link carries no setup of its own: Setup keeps its defaults, the plan goes to Study
    const linked = fresh();
    await linked.openFirst(encodeStudyLink({ name: 'x' }));
    expect([linked.screen, linked.setup.permalink, linked.linkProblems]).toEqual(['study', fresh().setup.permalink, []]);
  });

  it('opens the parent, or Setup, for a screen of what only the tab that made it held (a reload on Run)', async () => {
    for (const [hash, name] of [['#screen=run', 'setup'], ['#screen=study-report', 'study']] as const) {
      const app = fresh();
      await app.openAddress(hash);
      expect([app.screen, app.linkProblems], hash).toEqual([name, []]);
    }
  });

  it('drops an address whose run is still being read when the person moves on', async () => {
    const app = fresh();
    const opening = app.openAddress(own({ screen: 'results', run: id1 }));
    app.go('library');
    await opening;
    expect(app.route).toEqual({ name: 'library' });
  });

  it('opens Setup, naming what is wrong, for an address it cannot open', async () => {
    const cases: [string, string][] = [
      ['#screen=nowhere', 'the link names no screen "nowhere"'],
      ['#screen=results&run=gone', 'the link to Results cannot open: run "gone" is not in this browser\'s library'],
      [own({ screen: 'question', run: id1, q: 'q-9' }), `the link to Question cannot open: run "${id1}" has no question "q-9"`],
      [own({ screen: 'question', run: id1 }), 'the link to Question cannot open: it names no question ("q=")'],
    ];
    for (const [hash, problem] of cases) {
      const app = fresh();
      await app.openAddress(hash);
      expect([app.screen, app.linkProblems], hash).toEqual(['setup', [problem]]);
    }
  });

  it('opens a study link on the Study screen with its plan in the editor', async () => {
    const app = fresh();
    const plan = { name: 'linked', models: ['builtin:reachlab/micro-arith'], tasks: ['arith-2d'], budget: 8 };
    await app.openAddress(encodeStudyLink(plan));
    expect(app.screen).toBe('study');
    expect(JSON.parse(app.study.planText)).toEqual(plan);
    // Study's address is the link of the plan in its editor, so a bookmark keeps the plan
    expect(app.address).toBe(withSetup(app, encodeStudyLink(plan)));
    app.study.planText = JSON.stringify({ ...plan, budget: 9 });
    expect(app.address).toBe(withSetup(app, encodeStudyLink({ ...plan, budget: 9 })));
    app.study.planText = 'not JSON yet';
    expect(app.address).toBe(withSetup(app, '#screen=study'));
    // Back to the plan in the editor keeps its text as typed
    app.study.planText = JSON.stringify(plan);
    await app.openAddress(encodeStudyLink(plan));
    expect(app.study.planText).toBe(JSON.stringify(plan));
  });
});

// Server-rendered screens over runs of the real audit (TestBackend: a fake model, in memory):
// untrusted text stays text, key controls are present.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { AppState } from '../stores/app.svelte';
import { TestBackend, auditedRun, fullProbes, runToEnd, testSetup } from '../testing/test-backend';
import { BUILTIN_MODEL_ID, type RunSetup, type StoredRun } from '../backend';
import { DEFAULT_CONDITION } from '../lib/presets';
import { saveSetup } from '../lib/resumable';
import { GLOSSARY } from '../lib/glossary';
import { DEFINITIONS } from '../../audit/definitions';
import CompareScreen from './CompareScreen.svelte';
import HelpScreen from './HelpScreen.svelte';
import LibraryScreen from './LibraryScreen.svelte';
import QuestionScreen from './QuestionScreen.svelte';
import ResultsScreen from './ResultsScreen.svelte';
import RunScreen from './RunScreen.svelte';
import SetupScreen from './SetupScreen.svelte';
import StudyScreen from './StudyScreen.svelte';

const app = new AppState(new TestBackend(), null);
const run = await auditedRun();
/** The same audit of another model (a different fingerprint, more skill). */
const b = await auditedRun(24, new TestBackend({ fingerprint: 'fake-other', name: 'other', skill: 0.6 }));
/** The first question of the run. */
const first = run.records[0].doc_id;

/** A question text that looks like markup: the UI must show it as text. */
const MARKUP_QUESTION = 'What is <b>2</b> + <img src=x onerror="alert(1)"> 3?';

/** The run as an import would hold it: no condition, no engine, no routes. */
const imported: StoredRun = {
  manifest: { ...run.manifest, id: 'imp', condition: null, condition_key: 'unknown:abc', engine: null, imported: { format: 'lm-eval-samples', file: 'samples_x.jsonl' } },
  records: run.records.map((r) => ({ ...r, condition_key: 'unknown:abc', attempts: r.attempts.map((a) => ({ ...a, route: null })) })),
};

describe('screens', () => {
  it('shows a question that looks like markup as text', async () => {
    const file = new File([[{ question: '2 + 3 =', answer: '5' }, { question: MARKUP_QUESTION, answer: '5' }].map((q) => JSON.stringify(q)).join('\n')], 'markup.jsonl');
    const task = { kind: 'file' as const, file, mapping: { question: 'question', answer: 'answer' }, answerFormat: 'numeric' as const, count: 2 };
    const marked = await runToEnd(new TestBackend(), testSetup(fullProbes(8), 2, task));
    const docId = marked.records.find((r) => r.doc.text === MARKUP_QUESTION)!.doc_id;
    const { body } = render(QuestionScreen, { props: { app, run: marked, docId } });
    expect(body).not.toContain('<img');
    expect(body).not.toContain('<b>2</b>');
    expect(body).toContain('What is &lt;b>2&lt;/b> + &lt;img src=x onerror="alert(1)"> 3?');
    expect(MARKUP_QUESTION).toContain('<img');
  });

  it('renders results with the rate and outcome tables, and the question list', () => {
    const { body } = render(ResultsScreen, { props: { app, run } });
    for (const id of ['screen-results', 'table-rates', 'table-realized-reachable', 'question-list', `open-question-${first}`, 'export-definitions']) expect(body).toContain(`data-testid="${id}"`);
    expect(body).not.toContain('<img');
  });

  it('shows seeds, selectors with blindness and retained gain, attempts made, and the out-of-sample scan', () => {
    const { body } = render(ResultsScreen, { props: { app, run } });
    expect(body).toMatch(/data-testid="results-seeds"[^>]*>.*question seed.*data-testid="term-questionSeed".*<\/span>(<!---->)? 1, .*probe seed.*data-testid="term-probeSeed".*<\/span>(<!---->)? 1<\/dd>/);
    for (const id of ['table-selectors', 'table-attempts', 'table-silencing', 'table-silencing-in-sample', 'silencing-summary']) expect(body).toContain(`data-testid="${id}"`);
    // the selectors over MCTS attempts are labelled, and only they
    expect(body.match(/not blind: chose among gold-guided attempts/g)).toHaveLength(2);
    for (const h of ['space exhausted (questions)', 'held-out failures']) expect(body.replace(/<!--[^>]*-->/g, '')).toContain(`>${h}</th>`);
    // explained columns carry their definition
    const header = (label: string) => body.split('</th>').find((cell) => cell.includes(`<!---->${label}<!---->`));
    for (const [h, id] of [['answer-blind', 'blind'], ['retained gain', 'retainedGain'], ['gain CI low', 'retainedGain'], ['gain CI high', 'retainedGain'], ['attempts made (mean)', 'attemptsMade']]) {
      expect(header(h), h).toContain(`data-testid="term-${id}"`);
    }
    expect(body).toContain('Per-layer scan over the whole failure set (in-sample)');
  });

  it('says how many attempts a probe made, and when its space ran out', () => {
    const cut: StoredRun = {
      ...run,
      records: run.records.map((r) => (r.doc_id === first && r.probe === 'mcts-routes' ? { ...r, attempts: r.attempts.slice(0, 5), stop_reason: 'space-exhausted' as const } : r)),
    };
    const { body } = render(QuestionScreen, { props: { app, run: cut, docId: first } });
    expect(body).toMatch(/MCTS routes \(CoLa\) \(budget 16; first success (at attempt \d+|none); decoy (first at attempt \d+|not reached); 5 attempts made, space exhausted\)/);
    expect(body).toMatch(/random routes \(budget 16; first success (at attempt \d+|none); decoy (first at attempt \d+|not reached); 16 attempts made\)/);
  });

  it("names the failure set its silencing effects are counted on, the one chosen on Results", () => {
    const mcts = run.records.find((r) => r.probe === 'mcts-routes')!.probe_key;
    const chosen = new AppState(new TestBackend(), null);
    const hint = () => render(QuestionScreen, { props: { app: chosen, run, docId: first } }).body.split('data-testid="silencing-effects-probe"')[1].split('</p>')[0].replace(/<[^>]*>/g, '');
    expect(hint()).toMatch(/ from random routes\.$/);
    chosen.scanProbe = mcts;
    expect(hint()).toMatch(/ from MCTS routes \(CoLa\)\.$/);
  });

  it('shows the decoy answer of a question and where each probe first said it', () => {
    const records = run.records.filter((r) => r.doc_id === first);
    const { body } = render(QuestionScreen, { props: { app, run, docId: first } });
    const decoy = records[0].decoy!;
    expect(decoy).not.toBe(records[0].target);
    expect(body).toMatch(new RegExp(`data-testid="question-decoy"[^>]*>${decoy}<`));
    const random = records.find((r) => r.probe === 'random-routes')!;
    const said = random.attempts.findIndex((a) => a.extracted === decoy);
    expect(body).toContain(`random routes (budget 16; first success ${random.first_success === null ? 'none' : `at attempt ${random.first_success + 1}`}; ${said < 0 ? 'decoy not reached' : `decoy first at attempt ${said + 1}`}`);
  });

  it('puts reachable@B and ceiling@B against the decoy beside each reachable number, with its definition', () => {
    const { body } = render(ResultsScreen, { props: { app, run } });
    for (const m of ['reachable@16 (decoy)', 'ceiling@16 (decoy)', 'reachable@8 (decoy)', 'ceiling@8 (decoy)']) expect(body).toContain(`>${m}<`);
    expect(body).toContain('data-testid="term-decoy"');
    const header = (label: string) => body.split('</th>').find((cell) => cell.includes(`<!---->${label}<!---->`));
    expect(header('random (decoy)')).toContain('data-testid="term-decoy"');
  });

  it('shows an imported run as such, and its routes as unknown', () => {
    const results = render(ResultsScreen, { props: { app, run: imported } }).body;
    expect(results).toMatch(/data-testid="results-condition-unknown"[^>]*>imported, condition unknown</);
    expect(results).toContain('unknown (imported)');
    expect(results).toContain('samples_x.jsonl (lm-eval-samples)');
    const question = render(QuestionScreen, { props: { app, run: imported, docId: first } }).body;
    expect(question).toContain('route unknown');
    expect(question).not.toContain('data-testid="route-strip"');
    app.library.runs = [{ ...imported.manifest, legacy: false }];
    expect(render(LibraryScreen, { props: { app } }).body).toMatch(/data-testid="library-condition-imp"[^>]*>(<!--[^>]*-->)?imported, condition unknown</);
  });

  it('marks a run of an earlier version in the Library and offers no Resume for it', () => {
    // both runs interrupted with a kept setup: only the current-version one may resume
    const kept = new Map<string, string>();
    const withStorage = new AppState(new TestBackend(), { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => void kept.set(k, v) });
    const setup: RunSetup = {
      model: { kind: 'builtin', id: BUILTIN_MODEL_ID },
      task: { kind: 'builtin', id: 'arith-2d', count: 4, seed: 1 },
      condition: DEFAULT_CONDITION,
      questionSeed: 1,
      probes: [{ probe: 'deployment' }],
      load: { ep: 'auto', dtype: 'f32' },
    };
    for (const id of ['old', 'new']) saveSetup(withStorage.prefs.storage, id, setup);
    const m = { ...run.manifest, status: 'interrupted' as const };
    withStorage.library.runs = [
      { ...m, id: 'old', legacy: true },
      { ...m, id: 'new', legacy: false },
    ];
    const body = render(LibraryScreen, { props: { app: withStorage } }).body;
    expect(body).toContain('data-testid="library-legacy-old"');
    expect(body).not.toContain('data-testid="library-legacy-new"');
    expect(body).not.toContain('data-testid="library-resume-old"');
    expect(body).toContain('data-testid="library-resume-new"');
  });

  it('renders the setup screen with labelled controls', () => {
    const { body } = render(SetupScreen, { props: { app } });
    for (const id of ['load-model', 'task-count', 'prompt-template', 'start-run', 'probe-cola-mcts']) expect(body).toContain(`data-testid="${id}"`);
    // every input, select and textarea sits inside a <label> (or carries aria-label)
    const controls = body.match(/<(input|select|textarea)\b[^>]*>/g) ?? [];
    expect(controls.length).toBeGreaterThan(10);
    for (const c of controls) {
      const at = body.indexOf(c);
      const before = body.slice(0, at);
      const labelled = c.includes('aria-label=') || before.lastIndexOf('<label') > before.lastIndexOf('</label>');
      expect(labelled, c).toBe(true);
    }
  });

  it('renders a checkpoint comparison: labelled runs, paired deltas, the transition table', () => {
    const { body } = render(CompareScreen, { props: { app, pair: [run, b] } });
    expect(body).toContain('data-testid="table-transitions"');
    expect(body).toMatch(/data-testid="compare-shared"[^>]*>24</);
    expect(body).toMatch(/data-testid="compare-label-a"[^>]*>fake · f32 · random routes ×16 · blocks · probe seed 1 · question seed 1</);
    expect(body).toMatch(/data-testid="compare-label-b"[^>]*>other · f32 · random routes ×16 · blocks/);
    expect(body).toMatch(/data-testid="compare-deployed"[^>]*>Deployed Δ \(realized, B − A\): [+−]?\d+\.\d pts \(95% CI [+−]?\d+\.\d to [+−]?\d+\.\d\), McNemar p = /);
    expect(body).toContain('data-testid="compare-ceiling"');
    expect(body).toContain('data-testid="compare-probe"'); // random routes, MCTS and sampling in both
    expect(body).not.toContain('data-testid="compare-refused"');
    // the table's McNemar p reads as the sentence's does (it read 0.000 beside 0.000066)
    const p = body.match(/McNemar p (?:= )?(< 0\.001|\d\.\d{3})/)![1];
    const rates = body.split('data-testid="table-compare-rates"')[1].split('</table>')[0].replace(/<!--.*?-->/g, '');
    const deployedRow = rates.split('</tr>').find((r) => r.includes('>deployed (realized)<'))!;
    expect(deployedRow).toMatch(new RegExp(`>${p.replace(/[.<]/g, (c) => `\\${c}`)}</td>$`));
    // runs are named by model, probes and date, never by id
    expect(body).toMatch(/data-testid="compare-name-a"[^>]*>run A: fake, random routes ×16 · blocks, [^<]*, \d{4}-\d\d-\d\d \d\d:\d\d UTC</);
    expect(body).not.toContain(run.manifest.id);
  });

  it('refuses to compare across conditions, naming the fields, and an imported run', () => {
    const other: StoredRun = { ...b, manifest: { ...b.manifest, condition: { ...DEFAULT_CONDITION, chatTemplate: true } } };
    const refused = render(CompareScreen, { props: { app, pair: [run, other] } }).body;
    expect(refused).toMatch(/data-testid="compare-refused"[^>]*>Not compared. The runs were audited under different conditions: chat template differs\./);
    expect(refused).not.toContain('data-testid="table-transitions"');
    expect(render(CompareScreen, { props: { app, pair: [imported, run] } }).body).toContain('Run A is imported, condition unknown');
  });

  it('refuses to compare runs probed in different route spaces, naming the space', () => {
    const neighborhood = { kind: 'neighborhood' as const, numLayers: 8, radius: 1, maxEdits: 2 };
    const other: StoredRun = {
      manifest: b.manifest,
      records: b.records.map((r) => (r.probe_spec.probe === 'random-routes' ? { ...r, probe_spec: { ...r.probe_spec, space: neighborhood } } : r)),
    };
    const { body } = render(CompareScreen, { props: { app, pair: [run, other] } });
    expect(body).toMatch(/data-testid="compare-refused"[^>]*>Not compared. The runs were probed differently: space \(A: blocks, B: neighborhood\) differs\./);
    expect(body).not.toContain('data-testid="table-transitions"');
  });
});

describe('what the screens explain', () => {
  it('says the Results in a sentence, and that reused results were reused', () => {
    const fresh = new AppState(new TestBackend(), null);
    fresh.openRun(run);
    const plain = render(ResultsScreen, { props: { app: fresh, run } }).body;
    expect(plain).toMatch(/data-testid="results-sentence"[^>]*>11 of 24 questions were answered correctly as deployed; 8 more were reachable with random routes within 16 attempts/);
    expect(plain).not.toContain('data-testid="results-reused"');
    fresh.openRun(run, { reused: true });
    expect(render(ResultsScreen, { props: { app: fresh, run } }).body).toMatch(/data-testid="results-reused"[^>]*>\s*Reused: this exact audit \(same model, condition, probes and questions\) had already finished on /);
  });

  it('never says "no gain to retain" beside "N more were reachable", and says what a negative retained gain loses', () => {
    const plain = render(ResultsScreen, { props: { app, run } }).body.replace(/<!--[^>]*-->/g, '');
    const more = /(\d+) more were reachable with random routes within/.exec(plain)!;
    expect(Number(more[1])).toBeGreaterThan(0);
    const notes = /data-testid="retained-gain-reasons"[^>]*>([^<]*)/.exec(plain)![1];
    expect(notes).not.toMatch(/no gain to retain|reaches no question/);
    // random routes' max-logprob picks 7 right against 11 realized: below 0, said as the questions it loses
    expect(plain).toMatch(
      new RegExp(`data-testid="retained-gain-reasons"[^>]*>Retained gain: random routes, max-logprob: below 0: the selector answers 7 questions correctly, 4 fewer than deployment's 11 — choosing blindly among the probe's attempts loses more realized questions than it wins of the ${more[1]} the probe reaches beyond deployment;`),
    );
  });

  it('puts every definition on "How to read this"', () => {
    const body = render(HelpScreen, { props: { app } }).body;
    for (const [id, d] of Object.entries(GLOSSARY)) expect(body).toContain(`<dt id="def-${id}">${d.term}</dt> <dd>${d.text.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</dd>`); // text escaped as Svelte escapes it
  });

  it('Compare says which run is the base, and offers the swap', async () => {
    const named = (r: StoredRun, name: string): StoredRun => ({ ...r, manifest: { ...r.manifest, model: { ...r.manifest.model, name, source: `hub:${name}` } } });
    const base = named(await auditedRun(4, new TestBackend({ fingerprint: 'fake-base' })), 'me/tiny');
    const rl = named(await auditedRun(4, new TestBackend({ fingerprint: 'fake-rl', skill: 0.6 })), 'me/tiny-rl');
    const order = (pair: [StoredRun, StoredRun]) => /data-testid="compare-order"[^>]*>([\s\S]*?)<button/.exec(render(CompareScreen, { props: { app, pair } }).body)![1].replace(/<!--[^>]*-->/g, '').trim();
    expect(order([rl, base])).toMatch(/^B is the base model and A the trained one \(the trained model's name extends the base's\): every Δ below is B − A, so a gain from training reads negative\./);
    expect(order([base, rl])).toMatch(/^A is the base model and B the trained one/);
    expect(render(CompareScreen, { props: { app, pair: [base, rl] } }).body).toContain('data-testid="compare-swap"');
  });

  it('puts every table of every component inside a box that scrolls sideways on its own', () => {
    const dir = new URL('.', import.meta.url).pathname;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.svelte'))) {
      const src = readFileSync(join(dir, f), 'utf8');
      for (const m of src.matchAll(/<table\b/g)) expect(src.slice(Math.max(0, m.index - 120), m.index), `${f}: a <table> outside .table-wrap`).toMatch(/class="table-wrap"[^<]*>\s*$/);
    }
    expect(readFileSync(join(dir, '../styles.css'), 'utf8')).toMatch(/\.table-wrap \{ overflow-x: auto;/);
  });

  it('puts every term of the study report and the look inside on "How to read this"', () => {
    const body = render(HelpScreen, { props: { app } }).body;
    for (const d of DEFINITIONS) expect(body, d.term).toContain(`${d.term}</dt>`);
    for (const term of ['Holm-adjusted p', 'logit lens', 'direct attribution', 'route spaces (blocks, neighborhood, cola)', 'in-sample and held-out', 'F1 outcome', 'opening', 'ceiling Δ beyond the decoy']) expect(body, term).toContain(`${term}</dt>`);
  });

  it('offers Retry and Back when a start fails, with the cause in the headline', () => {
    const failed = new AppState(new TestBackend(), null);
    failed.run.error = { title: 'The audit did not start: the Hub dataset server cannot be reached.', hint: 'Check the connection and retry.', action: 'retry' };
    const body = render(RunScreen, { props: { app: failed } }).body;
    expect(body).toMatch(/data-testid="error-title"[^>]*>The audit did not start: the Hub dataset server cannot be reached\.</);
    expect(body).toMatch(/data-testid="error-action"[^>]*>Retry</);
    expect(body).toContain('data-testid="run-back"');
    expect(body).not.toContain('data-testid="run-retry"'); // the action is the retry already
    failed.run.error = { ...failed.run.error, action: 'none' };
    expect(render(RunScreen, { props: { app: failed } }).body).toContain('data-testid="run-retry"');
  });

  it('shows progress within a long first question on the Run screen', () => {
    const s = new AppState(new TestBackend(), null);
    const base = { runId: 'r', manifestKey: 'k', status: 'running' as const, recordsDone: 0, recordsTotal: 2, questionsDone: 0, questionsTotal: 1, attemptsDone: 0, attemptsPerSec: null, etaSec: null, currentDocId: 'q1', currentProbe: 'random-routes' as const, reused: 0, storage: 'indexeddb' as const };
    s.run.progress = { ...base, inFlight: { probe: 'random-routes', questions: 1, attemptsDone: 192, attemptsOf: 3000 } };
    expect(render(RunScreen, { props: { app: s } }).body).toMatch(/data-testid="run-in-flight"[^>]*>192 of 3,000 attempts decoded for the question being worked on \(random routes\)/);
    s.run.progress = { ...base, status: 'finished', inFlight: null };
    expect(render(RunScreen, { props: { app: s } }).body).not.toContain('data-testid="run-in-flight"');
  });

  it('shows two runs side by side in Compare, naming what differs', () => {
    const q4: StoredRun = { ...run, manifest: { ...run.manifest, id: 'q4', engine: { ep: 'wasm', dtype: 'q4' }, condition: { ...DEFAULT_CONDITION, engineDtype: 'q4' } } };
    const body = render(CompareScreen, { props: { app, pair: [run, q4] } }).body;
    expect(body).toMatch(/<caption>The two runs side by side: they differ in dtype<\/caption>/);
    expect(body).toMatch(/data-testid="compare-fact-dtype"[^>]*><th scope="row">dtype \(differs\)<\/th><td>f32<\/td><td>q4<\/td>/);
    expect(body).toMatch(/data-testid="compare-refused"[^>]*>Not compared. The runs were audited under different conditions: dtype differs\./);
  });

  it('shows each side\'s Hub commit in Compare\'s facts, marked when the two loads differ', () => {
    const at = (id: string, commit: string): StoredRun => ({ ...run, manifest: { ...run.manifest, id, model: { ...run.manifest.model, revision: 'main', commit } } });
    const body = render(CompareScreen, { props: { app, pair: [at('c1', 'ab'.repeat(20)), at('c2', 'cd'.repeat(20))] } }).body;
    expect(body).toMatch(/<caption>The two runs side by side: they differ in commit<\/caption>/);
    expect(body).toMatch(/data-testid="compare-fact-commit"[^>]*><th scope="row">commit \(differs\)<\/th><td>abababababab<\/td><td>cdcdcdcdcdcd<\/td>/);
  });

  it('lists dtype, engine, probes with budgets and seeds in the Library', () => {
    const lib = new AppState(new TestBackend(), null);
    lib.library.runs = [{ ...run.manifest, legacy: false }];
    const body = render(LibraryScreen, { props: { app: lib } }).body;
    expect(body).toMatch(new RegExp(`data-testid="library-engine-${run.manifest.id}"[^>]*>f32, WebAssembly<`));
    expect(body).toMatch(new RegExp(`data-testid="library-probes-${run.manifest.id}"[^>]*>random routes ×16 · blocks, MCTS routes \\(CoLa\\) ×16 · cola, sampling ×8, MLP silencing \\(8 layers\\)<`));
    expect(body).toMatch(new RegExp(`data-testid="library-seeds-${run.manifest.id}"[^>]*>1, 1<`));
  });

  it("offers the chat template's variables the loaded model's template reads", async () => {
    const backend = new TestBackend();
    const s = new AppState(backend, null);
    const fakeInfo = await backend.loadModel({ kind: 'builtin', id: BUILTIN_MODEL_ID }, { ep: 'auto', dtype: 'f32' }, () => {});
    s.setup.condition.chatTemplate = true;
    const before = render(SetupScreen, { props: { app: s } }).body; // no model yet: every variable
    for (const id of ['enable-thinking', 'date-string', 'add-generation-prompt']) expect(before).toContain(`data-testid="${id}"`);
    s.setup.modelLoaded({ ...fakeInfo, hasChatTemplate: true, chatTemplateFile: 'tokenizer_config.json', chatTemplateReads: ['add_generation_prompt', 'enable_thinking'] });
    const qwen3 = render(SetupScreen, { props: { app: s } }).body;
    expect(qwen3).toContain('data-testid="enable-thinking"');
    expect(qwen3).not.toContain('data-testid="date-string"');
  });

  it('says next to a disabled Load button why it is disabled', () => {
    const s = new AppState(new TestBackend(), null);
    s.setup.setModelKind('hub');
    expect(render(SetupScreen, { props: { app: s } }).body).toMatch(/data-testid="load-blocked"[^>]*>Enter a Hub repo id like owner\/name to load it\.</);
    s.setup.hubRepo = 'Qwen/Qwen2.5-0.5B';
    expect(render(SetupScreen, { props: { app: s } }).body).not.toContain('data-testid="load-blocked"');
  });

  it('refuses both MCTS presets in words, with Start disabled', () => {
    const s = new AppState(new TestBackend(), null);
    s.setup.togglePreset('cola-mcts', true);
    expect(s.setup.problems.join(' ')).not.toMatch(/both run/);
    s.setup.togglePreset('program-selection-mcts', true);
    const body = render(SetupScreen, { props: { app: s } }).body;
    expect(body).toMatch(/data-testid="setup-problems"[^>]*>.*<li>CoLa MCTS and Program-selection MCTS both run mcts-routes; choose one\.<\/li>/s);
    expect(body).toMatch(/<button[^>]*disabled[^>]*data-testid="start-run"/);
  });

  it("shows every field of the condition with a control, the \\boxed{} requirement included, and warns of CoLa's condition on the built-in model", () => {
    const s = new AppState(new TestBackend(), null);
    const body = () => render(SetupScreen, { props: { app: s } }).body;
    for (const id of ['condition-reset', 'prompt-template', 'chat-template', 'few-shot', 'few-shot-delimiter', 'few-shot-target-delimiter', 'max-new-tokens', 'answer-format', 'require-boxed', 'stop-sequences', 'decoding-greedy', 'decoding-sample', 'condition-fixed']) {
      expect(body(), id).toContain(`data-testid="${id}"`);
    }
    expect(body()).not.toContain('data-testid="condition-warning"');
    expect(body()).not.toMatch(/<input[^>]*checked[^>]*data-testid="require-boxed"/);
    s.setup.applyProtocol('cola-mcts');
    s.setup.togglePreset('cola-mcts', false);
    expect(body()).toMatch(/<input[^>]*checked[^>]*data-testid="require-boxed"/);
    expect(body()).toMatch(/data-testid="condition-warning"[^>]*>reachlab\/micro-arith never writes \\boxed\{\}/);
    s.setup.resetCondition();
    expect(body()).not.toContain('data-testid="condition-warning"');
  });

  it('says on Setup, after a reload, that an audit was interrupted, and offers to resume it', () => {
    const m = new Map<string, string>();
    const storage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    const s = new AppState(new TestBackend(), storage);
    expect(render(SetupScreen, { props: { app: s } }).body).not.toContain('data-testid="resume-notice"');
    const setup: RunSetup = { model: { kind: 'builtin', id: BUILTIN_MODEL_ID }, task: { kind: 'builtin', id: 'arith-2d', count: 24, seed: 1 }, condition: DEFAULT_CONDITION, questionSeed: 1, probes: [{ probe: 'deployment' }], load: { ep: 'wasm', dtype: 'f32' } };
    saveSetup(storage, 'cut', setup);
    s.library.runs = [{ ...run.manifest, id: 'cut', status: 'interrupted', legacy: false }];
    const body = render(SetupScreen, { props: { app: s } }).body;
    expect(body).toMatch(/data-testid="resume-notice"[^>]*><p>Your audit of [^<]+ on builtin:arith-2d \(24 questions\), started [^<]+, was interrupted/);
    expect(body).toContain('data-testid="resume-interrupted"');
  });

  it('warns when the built-in model is given a task it was not trained on, on Setup and in the Study form', () => {
    const s = new AppState(new TestBackend(), null);
    expect(render(SetupScreen, { props: { app: s } }).body).not.toContain('data-testid="untrained-warning"');
    s.setup.builtinTask = 'arith-1d';
    expect(render(SetupScreen, { props: { app: s } }).body).toMatch(/data-testid="untrained-warning"[^>]*>reachlab\/micro-arith was trained only on two-digit arithmetic \(arith-2d\); on arith-1d it was never trained/);
    s.study.planText = JSON.stringify({ models: ['builtin:micro-arith', 'Qwen/Qwen2.5-0.5B'], tasks: ['builtin:arith-2d', 'builtin:arith-3d'] });
    const study = render(StudyScreen, { props: { app: s } }).body;
    expect(study).toMatch(/data-testid="study-form-untrained"[^>]*>(<!--\[-->)?<li>reachlab\/micro-arith was trained only on two-digit arithmetic \(arith-2d\); on builtin:arith-3d it was never trained[^<]*<\/li>(<!--\]-->)?<\/ul>/);
  });
});

describe('source rules', () => {
  // The raw-HTML tag, spelled in pieces so source greps for it find only real uses.
  const RAW_HTML_TAG = ['{', '@html'].join('');
  it('never renders HTML from data: no raw-HTML tag in any component', () => {
    const dir = join(import.meta.dirname, '..');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.svelte'));
    expect(files.length).toBeGreaterThan(8);
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain(RAW_HTML_TAG);
  });
});

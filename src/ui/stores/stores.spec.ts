import { describe, expect, it, vi } from 'vitest';
import { parsePermalink } from '../lib/permalink';
import { BOXED_CONDITION, DEFAULT_CONDITION, presetById, type PresetId } from '../lib/presets';
import type { RunProgress } from '../backend';
import { measuredRate, probeMix } from '../lib/rates';
import { TestBackend, arithModel, auditedRun, runToEnd } from '../testing/test-backend';
import { MemoryRunStore } from '../../store/memory-store';
import { FakeEngine } from '../../audit/testing/fake-engine';
import { EngineError, type CheckpointSource, type LoadOptions, type LoadProgress } from '../../engine/types';
import { AppState } from './app.svelte';
import { LibraryState } from './library.svelte';
import { Prefs } from './prefs.svelte';
import { Clock } from './clock.svelte';
import { RunState } from './run.svelte';
import { SetupState } from './setup.svelte';
import { conditionKey } from '../../audit/condition';
import { auditCondition } from '../../audit/setup';
import { builtinTask } from '../../audit/tasks/builtin';
import { hubPreset } from '../../audit/tasks/hub';
import { loadTask } from '../../audit/tasks/index';
import { noteRowsRead, rowsRead } from './task-rows.svelte';
import { startRowsServer } from '../../../test/rows-server';
import { math500Rows } from '../../../test/fixtures/math-rows';
import type { LoadedTask } from '../../audit/types';
import { toUserMessage } from '../lib/errors';

function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), map: m };
}

describe('Prefs', () => {
  it('persists large text and survives garbage in storage', () => {
    const s = memoryStorage();
    new Prefs(s).setLargeText(true);
    expect(new Prefs(s).largeText).toBe(true);
    expect(new Prefs(memoryStorage({ 'reachlab.prefs.v1': '{not json' })).largeText).toBe(false);
  });
});

describe('SetupState', () => {
  it('needs the model loaded before probes exist', () => {
    const s = new SetupState();
    expect(s.probes).toBeNull();
    expect(s.attempts).toBeNull();
    expect(s.problems).toContain('Load the model first: its number of layers decides which routes the probes can take.');
  });

  it('derives probes, budgets and the attempt estimate once layers are known', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 24 };
    expect(s.probes!.map((p) => p.probe)).toEqual(['deployment', 'random-routes', 'sampling']);
    expect(s.attempts).toBe(20 * (1 + 100 + 64));
    s.budgets = { 'uniform-routes': 10 };
    s.count = 5;
    expect(s.attempts).toBe(5 * (1 + 10 + 64));
    s.togglePreset('silencing-scan', true);
    s.togglePreset('sampling-ceiling', false);
    expect(s.probes!.map((p) => p.probe)).toEqual(['deployment', 'random-routes', 'mlp-silencing']);
    expect(s.attempts).toBe(5 * (1 + 10 + 24));
    expect(s.problems).toEqual([]);
  });

  it("shows each protocol's budget before a model caps it to its route space", () => {
    const s = new SetupState();
    const ids: PresetId[] = ['uniform-routes', 'cola-mcts', 'program-selection-mcts', 'sampling-ceiling', 'silencing-scan'];
    expect(ids.map((id) => s.budgetOf(id))).toEqual([100, 100, 200, 64, null]);
    expect(ids.slice(0, 3).map((id) => presetById(id).label)).toEqual([
      'Random routes (budget 100 distinct routes)', 'CoLa MCTS, as released (budget 100 distinct routes)', 'Program-selection MCTS, as released (budget 200 distinct routes)',
    ]);
    // the released searches counted simulations; ReachLab's budget is distinct routes, and says so
    for (const id of ['cola-mcts', 'program-selection-mcts'] as const) expect(presetById(id).description).toMatch(/Budget = distinct routes/);
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 2 };
    const routes = s.probes!.find((p) => p.probe === 'random-routes');
    expect(s.budgetOf('uniform-routes')).toBe(routes && 'budget' in routes ? routes.budget : null);
    expect(s.budgetOf('uniform-routes')).toBeLessThan(100); // two layers hold fewer distinct routes
    s.budgets = { 'uniform-routes': 3 };
    expect(s.budgetOf('uniform-routes')).toBe(3);
  });

  it('counts model-choice changes, so a load that settles after one is known to be stale', () => {
    const s = new SetupState();
    const before = s.modelEpoch;
    s.setModelKind('hub');
    s.hubRepo = 'a/b';
    s.invalidateModel();
    expect(s.modelEpoch).toBe(before + 2);
    expect(s.modelInfo).toBeNull();
  });

  it('takes the dtype the engine really runs, so the condition says what ran', async () => {
    const s = new SetupState();
    s.condition.engineDtype = 'f16';
    const info = await new TestBackend().loadModel({ kind: 'builtin', id: 'reachlab/micro-arith' }, { ep: 'auto', dtype: 'f16' }, () => {});
    s.modelLoaded({ ...info, dtype: 'f32', dtypeFallbackReason: 'dtype f16 needs the WebGPU feature shader-f16' });
    expect(s.condition.engineDtype).toBe('f32');
    expect(s.modelInfo?.dtypeFallbackReason).toMatch(/shader-f16/);
    expect(s.setup().load.dtype).toBe('f32');
  });

  it('a model load can be cancelled: it rejects as cancelled, and the next load goes through', async () => {
    // an engine whose load reports its first phase and then waits, as a long download does, until cancelled
    class SlowLoad extends FakeEngine {
      private stop: (() => void) | null = null;
      private waited = false;
      override async load(source?: CheckpointSource, _o?: LoadOptions, onProgress?: (p: LoadProgress) => void) {
        if (this.waited) return super.load();
        this.waited = true;
        onProgress?.({ phase: 'config', loadedBytes: 0, totalBytes: 1 });
        await new Promise<void>((r) => (this.stop = r));
        throw new EngineError('cancelled', `loading ${source?.kind === 'hub' ? source.repo : 'the model'} was cancelled`);
      }
      override async cancel() {
        this.stop?.();
      }
    }
    const backend = new TestBackend({ engine: () => new SlowLoad({ numLayers: 8, answer: arithModel(8) }) });
    const model = { kind: 'hub' as const, repo: 'Qwen/Qwen2.5-0.5B', revision: 'main' };
    const phases: string[] = [];
    const load = backend.loadModel(model, { ep: 'auto', dtype: 'f32' }, (p) => phases.push(p.phase));
    await backend.cancelLoad();
    const e = await load.then(() => null, (err: unknown) => err);
    expect(e).toMatchObject({ name: 'EngineError', code: 'cancelled', message: 'loading Qwen/Qwen2.5-0.5B was cancelled' });
    expect(phases).toEqual(['config']);
    expect(toUserMessage(e, 'load-model')).toMatchObject({ title: 'The model did not load: loading Qwen/Qwen2.5-0.5B was cancelled.', hint: 'Start it again when you are ready.' });
    await expect(backend.loadModel(model, { ep: 'auto', dtype: 'f32' }, () => {})).resolves.toMatchObject({ numLayers: expect.any(Number) });
  });

  it('applies a protocol with its prescribed condition', () => {
    const s = new SetupState();
    s.applyProtocol('cola-mcts');
    expect(s.presets).toContain('cola-mcts');
    expect(s.condition.maxNewTokens).toBe(50);
    expect(s.condition.promptTemplate).toBe(BOXED_CONDITION.promptTemplate);
  });

  it("sets a chat condition's template variables as the CLI's --template-var does (same condition key)", async () => {
    const s = new SetupState();
    s.condition.chatTemplate = true;
    s.condition.templateVars = { add_generation_prompt: true, date_string: '26 Jul 2024', enable_thinking: false };
    const cli = await auditCondition(builtinTask('arith-2d', { questions: 1, trainQuestions: 0, seed: 1 }), { dtype: 'f32', chat: true, fewShot: 0, questionSeed: 1, boxed: false, templateVars: { enable_thinking: false } });
    expect(s.runCondition).toEqual(cli);
    s.condition.chatTemplate = false; // a raw prompt carries none
    expect(s.runCondition.templateVars).toBeUndefined();
  });

  it("sets CoLa's condition for the chosen task equal to the CLI's --boxed condition (same condition key)", async () => {
    const cli = (task: LoadedTask, questionSeed: number) => auditCondition(task, { dtype: 'f16', chat: false, fewShot: 0, questionSeed, boxed: true });
    const s = new SetupState();
    s.condition.engineDtype = 'f16';
    s.questionSeed = 3;
    s.applyProtocol('cola-mcts');
    const builtin = await cli(builtinTask('arith-2d', { questions: 1, trainQuestions: 0, seed: 3 }), 3);
    expect(s.runCondition).toEqual(builtin);
    expect(await conditionKey(s.runCondition)).toBe(await conditionKey(builtin));
    s.taskKind = 'hub';
    s.hubPreset = 'gsm8k';
    s.applyProtocol('cola-mcts');
    const p = hubPreset('gsm8k');
    const gsm8k = { spec: { id: 'hub:gsm8k', name: p.name, answerFormat: p.answerFormat, promptTemplate: p.promptTemplate, metadata: { version: 1 }, numTest: 0, numTrain: 0 }, test: [], train: [] };
    expect(s.runCondition).toEqual(await cli(gsm8k, 3));
    // a task file keeps its condition, CoLa's fields set, the box asked for once however often applied
    s.taskKind = 'file';
    s.applyProtocol('cola-mcts');
    expect(s.runCondition).toEqual(await cli(gsm8k, 3));
  });

  it("caps a Hub preset's questions at its declared rows until a load reads the source's count", async () => {
    const s = new SetupState();
    s.taskKind = 'hub';
    s.hubPreset = 'math-500';
    expect(s.maxQuestions).toBe(hubPreset('math-500').declaredRows);
    const rows = math500Rows().slice(0, 3);
    const server = await startRowsServer({ 'HuggingFaceH4/MATH-500/default/test': rows });
    try {
      noteRowsRead('hub:math-500', await loadTask('hub:math-500', { questions: 2, rowsEndpoint: server.endpoint }));
    } finally {
      await server.close();
    }
    expect([rowsRead('hub:math-500'), s.maxQuestions]).toEqual([rows.length, rows.length]);
    s.count = rows.length + 1;
    expect(s.inputProblems.some((p) => p.includes(String(rows.length)))).toBe(true);
  });

  it("shows CoLa's condition as a warning for the built-in model, and Reset brings back the task's default condition (same key)", async () => {
    const s = new SetupState();
    const before = await conditionKey(s.runCondition);
    expect(s.conditionWarning).toBeNull();
    s.applyProtocol('cola-mcts');
    expect(s.condition.requireBoxed).toBe(true);
    expect(s.conditionWarning).toMatch(/never writes \\boxed\{\}.*every attempt is graded \[invalid\]/);
    // the path: untick CoLa, restore the template by hand; the box requirement alone still warns
    s.togglePreset('cola-mcts', false);
    s.condition.promptTemplate = DEFAULT_CONDITION.promptTemplate;
    expect(s.conditionWarning).not.toBeNull();
    s.resetCondition();
    expect(s.condition.requireBoxed).toBeUndefined();
    expect(s.conditionWarning).toBeNull();
    expect(await conditionKey(s.runCondition)).toBe(before);
  });

  it('warns of an untrained task file unless its questions are two-digit arithmetic', () => {
    const s = new SetupState();
    s.taskKind = 'file';
    expect(s.untrainedWarning).toMatch(/on a task file it was never trained/);
    s.filePreview = { format: 'csv', columns: ['question', 'answer'], rows: [{ question: '12-42=', answer: '-30' }, { question: '53+9=', answer: '62' }], total: 2 };
    s.mapping = { question: 'question', answer: 'answer' };
    expect(s.untrainedWarning).toMatch(/never trained/); // 9 is one digit: not the trained task
    s.filePreview = { ...s.filePreview, rows: [{ question: '12-42=', answer: '-30' }, { question: '53 + 90 =', answer: '143' }] };
    expect(s.untrainedWarning).toBeNull();
  });

  it('names what is missing for a Hub model and a task file', () => {
    const s = new SetupState();
    s.setModelKind('hub');
    s.hubRepo = 'not a repo';
    s.taskKind = 'file';
    s.count = 0;
    expect(s.problems).toEqual(expect.arrayContaining([
      'Enter a Hub repo id like owner/name (for example Qwen/Qwen2.5-0.5B).',
      'Questions must be from 1 to 100,000 (it is 0).',
      'Choose a task file.',
    ]));
    expect(() => s.setup()).toThrow(/setup incomplete/);
  });

  it('refuses a route budget larger than the route space', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 2 };
    expect(s.problems.find((p) => p.startsWith('Random routes:'))).toBeUndefined(); // the preset caps itself
    s.budgets = { 'uniform-routes': 100 };
    expect(s.problems.find((p) => p.startsWith('Random routes:'))).toMatch(
      /^Random routes: the budget can be at most \d+, the number of distinct routes a 2-layer model has here \(blocks of 1–4 layers skipped or repeated, at most 2 edits, routes of 1–\d+ layers\); it is 100\.$/,
    );
    expect(s.attempts).toBeNull(); // no attempt count nor time estimate while a field is wrong
    s.budgets = { 'uniform-routes': 1 };
    expect(s.problems.find((p) => p.startsWith('Random routes:'))).toBeUndefined();
    expect(s.attempts).toBe(20 * (1 + 1 + 64));
  });

  it('says what is wrong with a budget in the form\'s words, and shows no estimate meanwhile', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 6 };
    const said = (b: number) => {
      s.budgets = { 'sampling-ceiling': b };
      return [s.problems.filter((p) => p.startsWith('Sampling ceiling:')), s.attempts];
    };
    expect(said(-1)).toEqual([['Sampling ceiling: the budget must be a whole number of attempts, 1 or more (it is -1).'], null]);
    expect(said(NaN)).toEqual([['Sampling ceiling: enter a budget, a whole number of attempts (1 or more).'], null]); // a blank field
    expect(said(2.5)).toEqual([['Sampling ceiling: the budget must be a whole number of attempts, 1 or more (it is 2.5).'], null]);
    s.budgets = { 'uniform-routes': 1e9 };
    expect(s.problems.find((p) => p.startsWith('Random routes:'))).toMatch(/at most \d+, the number of distinct routes a 6-layer model has here .*; it is 1,000,000,000\.$/);
    expect(s.attempts).toBeNull();
    s.budgets = {};
    s.condition.maxNewTokens = 0;
    expect(s.problems).toEqual(['Max new tokens must be from 1 to 32,768 (it is 0).']);
    s.condition.maxNewTokens = NaN;
    expect(s.problems).toEqual(['Max new tokens: enter a whole number from 1 to 32,768.']);
    s.condition.maxNewTokens = 8;
    s.taskKind = 'hub';
    s.hubPreset = 'arc-challenge';
    s.count = 5000;
    expect(s.problems).toEqual(['Questions must be from 1 to 1,172 (it is 5,000).']);
  });

  it('checks the condition field by field', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 4 };
    s.condition.promptTemplate = 'no slot';
    s.condition.decoding = { kind: 'sample', temperature: 0, topP: 0.9, seed: 1 };
    expect(s.problems).toEqual(['The prompt template must contain {{question}}, where each question goes.', 'Temperature must be from 0.01 to 5 (it is 0).']);
    s.condition.promptTemplate = '{{question}}';
    s.condition.decoding = { kind: 'greedy' };
    s.condition.stopSequences = [''];
    // what the form has no words of its own for, the condition schema names
    expect(s.problems).toEqual(['Condition: stopSequences[0]: expected a non-empty string of at most 64 characters, got "".']);
  });

  it('seeds questions and few-shot draws with the question seed, every probe with the probe seed', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 6 };
    s.togglePreset('cola-mcts', true);
    s.togglePreset('silencing-scan', true);
    s.questionSeed = 7;
    s.probeSeed = 9;
    const setup = s.setup();
    expect(setup.questionSeed).toBe(7);
    expect(setup.task).toMatchObject({ kind: 'builtin', seed: 7 });
    expect(setup.condition.fewShot.seed).toBe(7);
    expect(setup.probes.map((p) => [p.probe, 'seed' in p ? p.seed : null])).toEqual([
      ['deployment', null], ['random-routes', 9], ['mcts-routes', 9], ['sampling', 9], ['mlp-silencing', null], ['depth-matched-routes', 9],
    ]);
    s.questionSeed = -1;
    expect(s.problems).toContain('Question seed must be from 0 to 4,294,967,295 (it is -1).');
  });

  it('sets the MCTS budget alone: the released search spends it in distinct routes, its depth-matched baseline too', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 24 };
    s.togglePreset('program-selection-mcts', true);
    s.budgets = { 'program-selection-mcts': 32 };
    const space = { kind: 'neighborhood', numLayers: 24, radius: 2, maxEdits: 3 };
    expect(s.probes!.find((p) => p.probe === 'mcts-routes')).toEqual({ probe: 'mcts-routes', preset: 'program-selection', space, budget: 32, seed: 1 });
    expect(s.probes!.find((p) => p.probe === 'depth-matched-routes')).toEqual({ probe: 'depth-matched-routes', preset: 'program-selection', space, budget: 32, seed: 1 });
  });

  it('carries both seeds in the permalink; an older link seeds the questions from its task', () => {
    const s = new SetupState();
    s.questionSeed = 4;
    s.probeSeed = 6;
    const t = new SetupState();
    expect(t.applyPermalink(parsePermalink(s.permalink))).toEqual([]);
    expect([t.questionSeed, t.probeSeed, t.runCondition.fewShot.seed]).toEqual([4, 6, 4]);
    const u = new SetupState();
    u.applyPermalink(parsePermalink('#task=builtin:arith-1d:10:8'));
    expect([u.builtinTask, u.count, u.questionSeed, u.probeSeed]).toEqual(['arith-1d', 10, 8, 1]);
  });

  it('writes a permalink without the token and reads it back', () => {
    const s = new SetupState();
    s.setModelKind('hub');
    s.hubRepo = 'Qwen/Qwen2.5-0.5B';
    s.hubToken = 'hf_secret';
    s.taskKind = 'hub';
    s.hubPreset = 'arc-easy';
    s.count = 30;
    s.condition.maxNewTokens = 77;
    expect(s.permalink).not.toContain('hf_secret');
    const t = new SetupState();
    expect(t.applyPermalink(parsePermalink(s.permalink))).toEqual([]);
    expect([t.modelKind, t.hubRepo, t.hubRevision, t.hubToken, t.taskKind, t.hubPreset, t.count, t.condition.maxNewTokens]).toEqual(['hub', 'Qwen/Qwen2.5-0.5B', 'main', '', 'hub', 'arc-easy', 30, 77]);
  });

  it('builds a RunSetup the backend can take', () => {
    const s = new SetupState();
    s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 6 };
    const setup = s.setup();
    expect(setup.model).toEqual({ kind: 'builtin', id: 'reachlab/micro-arith' });
    expect(setup.task).toEqual({ kind: 'builtin', id: 'arith-2d', count: 20, seed: 1 });
    expect(setup.questionSeed).toBe(1);
    expect(setup.probes[0]).toEqual({ probe: 'deployment' });
    expect(setup.load).toEqual({ ep: 'auto', dtype: 'f32' });
  });
});

/** A store holding two finished runs, a base model's and then an RL checkpoint's, opened as after
 *  a reload (a fresh backend over it). */
async function twoStoredRuns(): Promise<{ backend: TestBackend; base: string; rl: string }> {
  const store = new MemoryRunStore();
  const base = await auditedRun(4, new TestBackend({ store, name: 'base', fingerprint: 'fake-base' }));
  await new Promise((r) => setTimeout(r, 5)); // started later
  const rl = await auditedRun(4, new TestBackend({ store, name: 'rl', fingerprint: 'fake-rl', skill: 0.6 }));
  return { backend: new TestBackend({ store }), base: base.manifest.id, rl: rl.manifest.id };
}

function quickSetup(count = 4) {
  const s = new SetupState();
  s.hubMeta = { repo: 'a/b', revision: 'main', gated: false, numLayers: 8 };
  s.budgets = { 'uniform-routes': 8, 'sampling-ceiling': 4 };
  s.count = count;
  return s.setup();
}

describe('RunState', () => {
  it('streams records, counts realized and reachable, and finishes', async () => {
    const run = new RunState(new TestBackend());
    await run.start(quickSetup());
    await vi.waitFor(() => expect(run.manifest?.status).toBe('finished'));
    expect(run.records).toHaveLength(4 * 3);
    expect(run.progress).toMatchObject({ status: 'finished', recordsDone: 4 * 3, recordsTotal: 4 * 3, questionsDone: 4, questionsTotal: 4, attemptsDone: 4 * 13 });
    expect(run.attemptsTotal).toBe(4 * 13);
    const realized = run.questions.filter((q) => q.realized).length;
    expect(run.counts.questions).toBe(4);
    expect(run.counts.realized).toBe(realized);
    expect(run.counts.reachable).toBe(run.questions.filter((q) => q.records.some((r) => r.reachable)).length);
    expect(run.manifest?.task.question_seed).toBe(1);
    expect(run.active).toBe(false);
  });

  it('ticks its elapsed time and time left from the wall clock between progress messages', async () => {
    let t = 1_000_000;
    const run = new RunState(new TestBackend({ delayMs: 40 }), null, new Clock(() => t));
    await run.start(quickSetup(50));
    await vi.waitFor(() => expect(run.progress?.attemptsDone ?? 0).toBeGreaterThan(0));
    t += 20_000;
    await vi.waitFor(() => expect(run.timeLeft).not.toBeNull());
    const [elapsed, left] = [run.elapsedMs, run.timeLeft!.sec];
    await run.pause();
    await vi.waitFor(() => expect(run.phase).toBe('paused'));
    await run.resume();
    await vi.waitFor(() => expect(run.phase).toBe('running'));
    // the pace is measured again from the resume
    const resumedAt = run.progress!.attemptsDone;
    await vi.waitFor(() => expect(run.progress!.attemptsDone).toBeGreaterThan(resumedAt));
    t += 20_000;
    run.clock.tick();
    expect(run.timeLeft).not.toBeNull();
    // no progress message needed: the clock moves on by itself, and so does the time left
    const before = run.timeLeft!.sec;
    t += 600_000;
    run.clock.tick();
    expect(run.elapsedMs).toBeGreaterThanOrEqual(elapsed + 600_000);
    expect(run.timeLeft!.sec).toBeGreaterThan(before);
    expect(left).toBeGreaterThan(0);
    await run.cancel();
    await vi.waitFor(() => expect(run.manifest?.status).toBe('cancelled'));
    // stopped: the elapsed time stays where the run stopped
    const stopped = run.elapsedMs;
    t += 60_000;
    run.clock.tick();
    expect(run.elapsedMs).toBe(stopped);
  });

  it('pauses, resumes and cancels', async () => {
    const run = new RunState(new TestBackend({ delayMs: 5 }));
    await run.start(quickSetup(50));
    await run.pause();
    await vi.waitFor(() => expect(run.phase).toBe('paused'));
    const done = run.progress!.questionsDone;
    await new Promise((r) => setTimeout(r, 30));
    expect(run.progress!.questionsDone).toBe(done);
    await run.resume();
    await vi.waitFor(() => expect(run.phase).toBe('running'));
    await run.cancel();
    await vi.waitFor(() => expect(run.manifest?.status).toBe('cancelled'));
    expect(run.progress!.questionsDone).toBeLessThan(50);
  });

  it('cancels while the model loads: the start ends as cancelled and the next audit runs', async () => {
    // an engine whose first load reports a phase and waits, as a long download does, until cancelled
    class SlowLoad extends FakeEngine {
      private stop: (() => void) | null = null;
      override async load(_s?: CheckpointSource, _o?: LoadOptions, onProgress?: (p: LoadProgress) => void) {
        if (this.stop) return super.load();
        onProgress?.({ phase: 'config', loadedBytes: 0, totalBytes: 1 });
        await new Promise<void>((r) => (this.stop = r));
        throw new EngineError('cancelled', 'loading a/b was cancelled');
      }
      override async cancel() {
        this.stop?.();
      }
    }
    const run = new RunState(new TestBackend({ engine: () => new SlowLoad({ numLayers: 8, answer: arithModel(8) }) }));
    const started = run.start(quickSetup());
    await vi.waitFor(() => expect(run.phase).toBe('loading'));
    expect(run.starting).toBe(true);
    await run.cancel();
    await started;
    expect(run.error).toMatchObject({ title: expect.stringMatching(/^The audit did not start: .*cancelled/), hint: 'Start it again when you are ready.' });
    expect(run.starting).toBe(false);
    expect(run.active).toBe(false);
    await run.start(quickSetup());
    await vi.waitFor(() => expect(run.manifest?.status).toBe('finished'));
  });

  it('cancels while prompts are rendered: an engine left busy is replaced, and the next audit runs at once', async () => {
    // the first engine's chat template never answers (a render that hangs the engine)
    class Hangs extends FakeEngine {
      override applyChatTemplate(): Promise<string> {
        return new Promise(() => {});
      }
    }
    let n = 0;
    const backend = new TestBackend({ engine: () => (n++ === 0 ? new Hangs({ numLayers: 8, answer: arithModel(8) }) : new FakeEngine({ numLayers: 8, answer: arithModel(8) })) });
    const run = new RunState(backend);
    const chat = quickSetup();
    chat.condition = { ...chat.condition, chatTemplate: true, templateVars: { add_generation_prompt: true, date_string: '26 Jul 2024' } };
    const started = run.start(chat);
    await new Promise((r) => setTimeout(r, 20));
    expect(run.starting).toBe(true);
    const t0 = performance.now();
    await run.cancel();
    await started;
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(run.error?.title).toMatch(/^The audit did not start: .*cancelled/);
    expect(backend.engines).toHaveLength(2);
    await run.start(chat);
    await vi.waitFor(() => expect(run.manifest?.status).toBe('finished'));
  });

  it('a Start clicked while a cancelled start still settles runs on the engine that replaces the busy one', async () => {
    // the first engine hangs in its chat template and, once terminated, fails every call (as a worker does)
    class HangsThenDies extends FakeEngine {
      private dead = false;
      terminate() {
        this.dead = true;
      }
      override applyChatTemplate(): Promise<string> {
        return new Promise(() => {});
      }
      override async generate(...a: Parameters<FakeEngine['generate']>) {
        await new Promise((r) => setTimeout(r, 5));
        if (this.dead) throw new EngineError('worker-crashed', 'the engine worker stopped (terminated)');
        return super.generate(...a);
      }
    }
    let n = 0;
    const backend = new TestBackend({ engine: () => (n++ === 0 ? new HangsThenDies({ numLayers: 8, answer: arithModel(8) }) : new FakeEngine({ numLayers: 8, answer: arithModel(8) })) });
    const run = new RunState(backend);
    const chat = quickSetup(6);
    chat.condition = { ...chat.condition, chatTemplate: true, templateVars: { add_generation_prompt: true, date_string: '26 Jul 2024' } };
    const started = run.start(chat);
    await new Promise((r) => setTimeout(r, 20));
    const cancelled = run.cancel(); // not awaited: the screen offers Start again as soon as the start has ended
    await started;
    expect(run.error?.title).toMatch(/^The audit did not start: .*cancelled/);
    await run.start(quickSetup(6));
    await cancelled;
    await vi.waitFor(() => expect(run.manifest?.status).toBe('finished'), { timeout: 5000 });
    expect(run.error).toBeNull();
    expect(backend.engines).toHaveLength(2);
    expect(backend.engines[1].generated.length).toBeGreaterThan(0);
  });

  it('turns an engine failure into an actionable message', async () => {
    // an engine that loses its device after 40 generated rows, and refuses to load a gated repo
    class Failing extends FakeEngine {
      override async load(source?: CheckpointSource) {
        if (source?.kind === 'hub' && source.repo === 'owner/gated') throw new EngineError('gated', `${source.repo}: 401 Unauthorized`);
        return super.load();
      }
    }
    const answer = arithModel(8);
    const engine = new Failing({ numLayers: 8, answer: (q) => {
      if (engine.generated.length > 40) throw new EngineError('device-lost', 'WebGPU device was lost');
      return answer(q);
    } });
    const run = new RunState(new TestBackend({ engine: () => engine }));
    const s = quickSetup(10);
    await run.start(s);
    await vi.waitFor(() => expect(run.error).not.toBeNull());
    expect(run.error).toMatchObject({ title: 'The audit stopped: WebGPU device was lost.', hint: expect.stringMatching(/Finished records are kept/), action: 'reload-engine' });
    expect(run.phase).toBe('interrupted');
    expect(run.lastSetup?.model).toEqual(s.model);
    const gated = { ...s, model: { kind: 'hub' as const, repo: 'owner/gated', revision: 'main' } };
    await run.start(gated);
    expect(run.error).toEqual({ title: 'The audit did not start: owner/gated: 401 Unauthorized.', hint: expect.stringMatching(/token/), action: 'add-token' });
    expect(run.lastSetup).toEqual(gated); // what Retry starts again
  });

  it('a finished identical audit opens its stored results, saying so, and computes nothing', async () => {
    const backend = new TestBackend();
    const app = new AppState(backend, null);
    const setup = quickSetup();
    await app.startAudit(setup);
    await vi.waitFor(() => expect(app.run.manifest?.status).toBe('finished'));
    const first = app.run.runId;
    const startRun = vi.spyOn(backend, 'startRun');
    await app.startAudit(setup);
    expect(startRun).toHaveBeenCalledTimes(1);
    expect(app.run.alreadyFinished).toBe(true);
    expect(app.run.runId).toBe(first);
    expect(app.screen).toBe('results');
    expect(app.openedReused).toBe(true);
    expect(app.opened?.records).toHaveLength(4 * 3);
    expect(app.run.manifest?.status).toBe('finished');
    expect(app.run.progress).toBeNull(); // nothing ran
  });

  it('a resumed run counts the records earlier sessions stored, and computes only the rest', async () => {
    // a run cancelled after its first records, started again: the stored run resumes
    const backend = new TestBackend({ delayMs: 20 });
    const earlier = new RunState(backend);
    await earlier.start(quickSetup(20));
    await vi.waitFor(() => expect(earlier.progress?.recordsDone).toBeGreaterThanOrEqual(1));
    await earlier.cancel();
    await vi.waitFor(() => expect(earlier.manifest?.status).toBe('cancelled'));
    const kept = (await backend.getRun(earlier.runId!)).records;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(20 * 3);
    const rowsBefore = backend.engines[0].rowsRequested;
    const run = new RunState(backend);
    await run.start(quickSetup(20));
    await vi.waitFor(() => expect(run.manifest?.status).toBe('finished'));
    expect(run.runId).toBe(earlier.runId);
    expect(run.records).toHaveLength(20 * 3);
    expect(run.counts.questions).toBe(20);
    const stored = (await backend.getRun(run.runId!)).records;
    expect(run.counts.realized).toBe(stored.filter((r) => r.probe === 'deployment' && r.realized).length);
    // this session asked the engine for less than the whole audit takes: the kept records were not computed again
    const whole = new TestBackend();
    await runToEnd(whole, quickSetup(20));
    expect(backend.engines[0].rowsRequested - rowsBefore).toBeLessThan(whole.engines[0].rowsRequested);
    expect(run.progress?.attemptsPerSec).toBeGreaterThan(0);
  });

  it('keeps the measured pace of a run for the next estimate of that model here', async () => {
    const storage = memoryStorage();
    const run = new RunState(new TestBackend({ delayMs: 1 }), storage);
    await run.start(quickSetup());
    await vi.waitFor(() => expect(run.manifest?.status).toBe('finished'));
    const m = run.manifest!;
    const rate = measuredRate(storage, { fingerprint: m.model.fingerprint, ep: m.engine!.ep, dtype: m.engine!.dtype, probes: probeMix(m.probes) });
    expect(rate).toEqual({ attemptsPerSecond: run.progress!.attemptsPerSec, maxNewTokens: m.condition!.maxNewTokens });
    expect(rate!.attemptsPerSecond).toBeGreaterThan(0);
  });
});

describe('AppState', () => {
  it('follows the browser going offline and online, for the banner', async () => {
    const app = new AppState(new TestBackend(), null);
    await app.init();
    expect(app.env?.online).toBe(true);
    app.setOnline(false);
    expect(app.env?.online).toBe(false);
    app.setOnline(true);
    expect(app.env?.online).toBe(true);
  });

  it('offers Results for a run this tab finished, before the library list is read again', async () => {
    const app = new AppState(new TestBackend(), null);
    await app.init();
    expect(app.hasResults).toBe(false);
    await app.run.start(quickSetup());
    await vi.waitFor(() => expect(app.run.manifest?.status).toBe('finished'));
    expect(app.latestFinished).toBeNull();
    expect(app.hasResults).toBe(true);
    await app.showResults();
    expect(app.screen).toBe('results');
    expect(app.opened?.manifest.id).toBe(app.run.runId);
  });

  it('opens the latest finished run for Results when none is open (after a reload)', async () => {
    const { backend, rl } = await twoStoredRuns();
    const app = new AppState(backend, null);
    await app.init();
    await vi.waitFor(() => expect(app.library.runs).toHaveLength(2));
    expect(app.latestFinished?.id).toBe(rl);
    await app.showResults();
    expect(app.screen).toBe('results');
    expect(app.opened?.manifest.id).toBe(rl);
  });
});

describe('LibraryState', () => {
  it('lists, selects two for comparison, exports, imports and deletes', async () => {
    const { backend, base, rl } = await twoStoredRuns();
    const lib = new LibraryState(backend);
    await lib.refresh();
    expect(lib.runs.map((r) => r.id)).toEqual([rl, base]);
    lib.toggle(base, true);
    lib.toggle(rl, true);
    expect(lib.canCompare).toBe(true);
    const pair = await lib.openPair();
    expect(pair!.map((r) => r.manifest.id)).toEqual([base, rl]);
    const exported = await lib.exportRun(base);
    expect(exported!.filename).toBe(`reachlab-${base}.json`);
    await lib.remove(base);
    expect(lib.runs.map((r) => r.id)).toEqual([rl]);
    expect(lib.selected).toEqual([rl]);
    // the exported file brings the run back, with its records
    const imported = await lib.importFile(new File([await exported!.blob.text()], exported!.filename));
    expect(lib.error).toBeNull();
    expect(lib.runs).toHaveLength(2);
    expect((await backend.getRun(imported!.id)).records).toHaveLength(4 * 5);
  });

  it("keeps another tab's live progress while its run goes on and reads the list again as it starts and ends", async () => {
    const backend = new TestBackend();
    const lib = new LibraryState(backend);
    const refresh = vi.spyOn(lib, 'refresh');
    const p: RunProgress = {
      runId: 'fake-base', manifestKey: 'k', status: 'running', recordsDone: 2, recordsTotal: 8, questionsDone: 1, questionsTotal: 4, attemptsDone: 20,
      attemptsPerSec: null, etaSec: null, currentDocId: null, currentProbe: null, reused: 0, storage: 'indexeddb',
    };
    backend.progressFromOtherTab(p);
    expect(lib.elsewhere).toEqual({ 'fake-base': p });
    backend.progressFromOtherTab({ ...p, questionsDone: 2, attemptsDone: 40 });
    expect(lib.elsewhere['fake-base'].questionsDone).toBe(2);
    expect(refresh).toHaveBeenCalledTimes(1);
    backend.progressFromOtherTab({ ...p, status: 'finished', questionsDone: 4, attemptsDone: 80 });
    expect(lib.elsewhere).toEqual({});
    expect(refresh).toHaveBeenCalledTimes(2);
  });

  it('reports a bad import and a missing run as messages', async () => {
    const lib = new LibraryState(new TestBackend());
    expect(await lib.importFile(new File(['hello'], 'x.jsonl'))).toBeNull();
    expect(lib.error).toMatchObject({ title: expect.stringMatching(/^Not imported: x\.jsonl: not JSON \(/), action: 'choose-file' });
    expect(await lib.open('nope')).toBeNull();
    expect(lib.error).toMatchObject({ title: 'The library could not do that: no run nope to export.', action: 'open-library' });
  });
});

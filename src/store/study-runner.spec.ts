import { describe, expect, it } from 'vitest';
import { loadTask } from '../audit/index.ts';
import { normalizePlan } from '../audit/study-plan.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import { routeToString } from '../audit/routes.ts';
import { runStudy } from '../../scripts/study-cli.ts';
import { coreAudit, type CoreAuditInput } from './core-audit.ts';
import { exportRunJson } from './export.ts';
import { importRunJson } from './import.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import { studyTaskOptions } from './study.ts';
import { plannedRunKeys } from './study-executor.ts';
import { StudyRunner, type StudyProgress } from './study-runner.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';

/** Right on the default route when a + b is even (model B also when ≡ 1 mod 4), on any route
 *  repeating a layer, and with layer 2's MLP silenced (model A). Engine rows are counted. */
function fake(model: string, rows: { n: number }) {
  const e = new FakeEngine({
    numLayers: 4,
    fingerprint: `fake-${model}`,
    answer: (q) => {
      rows.n++;
      const m = /^(\d+)([+-])(\d+)=$/.exec(q.prompt)!;
      const v = m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
      if (q.silence.length) return model === 'A' && q.silence[0] === 2 ? String(v) : '0';
      if (routeToString(q.route) === '0,1,2,3') return v % 2 === 0 || (model === 'B' && ((v % 4) + 4) % 4 === 1) ? String(v) : 'x';
      return new Set(q.route).size < q.route.length ? String(v) : 'x';
    },
  });
  return e;
}

const PLAN = {
  name: 'runner test',
  models: ['A'],
  tasks: ['builtin:arith-2d'],
  probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'mcts-routes', space: 'blocks' }],
  budget: 4,
  questions: 8,
  scan: true,
  pairs: [{ base: 'A', trained: 'B' }],
};

function setup() {
  const rows = { n: 0 };
  const engines = new Map<string, FakeEngine>();
  const engineOf = (ref: string) => engines.get(ref) ?? engines.set(ref, fake(ref, rows)).get(ref)!;
  const controller = new RunController<CoreAuditInput>({ store: new MemoryRunStore(), engine: engineOf('A'), audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
  const runner = new StudyRunner(controller, {
    useModel: async (ref) => {
      const engine = engineOf(ref);
      controller.setEngine(engine);
      return { engine, info: (await engine.info())!, source: ref };
    },
    loadTask: (spec, plan) => loadTask(spec, studyTaskOptions(plan)),
    appVersion: 'test',
  });
  return { rows, controller, runner };
}

describe('StudyRunner (the app\'s study)', () => {
  it('reports exactly what the headless study reports on the same plan, and keeps the study', async () => {
    const { controller, runner } = setup();
    const seen: StudyProgress[] = [];
    const report = await runner.run(PLAN, (p) => seen.push(p));
    const rows = { n: 0 };
    const headless = await runStudy(normalizePlan(PLAN), null, {
      openEngine: async (ref) => fake(ref, rows),
      loadTask: (spec, plan) => loadTask(spec, studyTaskOptions(plan)),
      readRun: () => null,
      writeRun: () => {},
      log: () => {},
      appVersion: 'test',
    });
    const { computed: _c, reused: _r, ...headlessReport } = headless;
    expect(report).toEqual(headlessReport);
    expect(report.missing).toEqual([]);
    expect(seen.at(-1)).toMatchObject({ runsDone: 6, runsTotal: 6, status: 'finished' });
    const [stored] = await controller.store.listStudies();
    expect(stored).toMatchObject({ plan_key: report.plan_key, status: 'finished' });
    expect(stored.runs.map((r) => `${r.model}/${r.label}`)).toEqual(['A/random-routes/blocks', 'A/mcts-routes/blocks', 'A/mlp-silencing', 'B/random-routes/blocks', 'B/mcts-routes/blocks', 'B/mlp-silencing']);
    expect(await runner.report(report.plan_key)).toEqual(report);
  });

  it('reports the current run\'s questions and seconds left, and the study\'s seconds left once a run has been timed', async () => {
    const { runner } = setup();
    const seen: StudyProgress[] = [];
    await runner.run(PLAN, (p) => seen.push(structuredClone(p)));
    const within = seen.filter((p) => p.current?.questionsTotal !== undefined);
    expect(within.length).toBeGreaterThan(0);
    for (const p of within) {
      expect(p.current!.questionsTotal).toBe(PLAN.questions);
      expect(p.current!.questionsDone).toBeGreaterThanOrEqual(0);
      expect(p.current!.questionsDone).toBeLessThanOrEqual(PLAN.questions);
    }
    // before any run was timed the study's estimate is unknown; after one, a run with others after it has one
    const first = seen.findIndex((p) => p.runsDone === 1);
    expect(seen.slice(0, first).every((p) => p.etaSec === null || p.etaSec === undefined || p.runsDone + 1 === p.runsTotal)).toBe(true);
    const later = seen.slice(first).filter((p) => p.current?.etaSec != null && p.runsDone + 1 < p.runsTotal);
    expect(later.length).toBeGreaterThan(0);
    for (const p of later) expect(p.etaSec).toBeGreaterThanOrEqual(p.current!.etaSec!);
  });

  it('running a finished study again computes nothing', async () => {
    const { rows, runner } = setup();
    const first = await runner.run(PLAN);
    const before = rows.n;
    expect(await runner.run(PLAN)).toEqual(first);
    expect(rows.n).toBe(before);
  });

  it('pauses, then resumes without recomputing the runs it finished', async () => {
    const { rows, runner, controller } = setup();
    let paused = false;
    await expect(
      runner.run(PLAN, (p) => {
        // pause once the first run is done and the second started
        if (!paused && p.runsDone === 1 && p.current) {
          paused = true;
          void runner.pause();
        }
      }),
    ).rejects.toThrow(/paused/);
    expect((await controller.store.listStudies())[0].status).toBe('paused');
    const partial = rows.n;
    const done = (await controller.store.listStudies())[0].runs.length;
    expect(done).toBeGreaterThanOrEqual(1);
    const report = await runner.run(PLAN);
    expect(report.missing).toEqual([]);
    // a fresh study of the same plan computes every row; the resumed one computed only what was left
    const fresh = setup();
    await fresh.runner.run(PLAN);
    expect(rows.n - partial).toBeLessThan(fresh.rows.n);
  });

  it('counts a plan\'s done runs from the store: an edited plan is another plan, with its own count', async () => {
    const { runner, controller } = setup();
    const fresh = await runner.overview(PLAN);
    expect(fresh).toMatchObject({ runsDone: 0, runsTotal: 6, status: 'new' });
    const report = await runner.run(PLAN);
    const done = await runner.overview(PLAN);
    expect(done).toMatchObject({ plan_key: report.plan_key, runsDone: 6, runsTotal: 6, status: 'finished' });
    expect(done.runs.every((r) => r.run_key !== null && r.done)).toBe(true);
    // an edited plan (another budget, a question more) is another plan: nothing of it ran
    const edited = await runner.overview({ ...PLAN, budget: 5, questions: 9 });
    expect(edited.plan_key).not.toBe(report.plan_key);
    expect(edited).toMatchObject({ runsDone: 0, runsTotal: 6, status: 'new' });
    // a renamed plan is the same plan
    expect((await runner.overview({ ...PLAN, name: 'renamed' })).plan_key).toBe(report.plan_key);
    // a planned run whose run left the library is no longer done, and the study no longer finished
    const first = (await controller.store.runsByManifestKey(done.runs[0].run_key!))[0];
    await controller.store.deleteRun(first.id);
    expect(await runner.overview(PLAN)).toMatchObject({ runsDone: 5, status: 'incomplete' });
  });

  it('does not count an imported run of a planned key as done: the study computes it here', async () => {
    const elsewhere = setup();
    await elsewhere.runner.run(PLAN);
    const { runner, controller } = setup();
    const key = (await elsewhere.runner.overview(PLAN)).runs[0].run_key!;
    const [run] = await elsewhere.controller.store.runsByManifestKey(key);
    await importRunJson(controller.store, await exportRunJson(elsewhere.controller.store, run.id), 'elsewhere.json');
    expect(await runner.overview(PLAN)).toMatchObject({ runsDone: 0, runsTotal: 6, status: 'new' });
    await runner.run(PLAN);
    const done = await runner.overview(PLAN);
    expect(done).toMatchObject({ runsDone: 6, status: 'finished' });
    expect((await controller.store.getRun(done.runs[0].run_id!))!.manifest.imported).toBeUndefined();
  });

  it('derives each planned run\'s key before it runs: an edited plan counts what is already stored, before Run and after a reload', async () => {
    const { runner, controller } = setup();
    const report = await runner.run(PLAN);
    const [stored] = await controller.store.listStudies();
    // the derived keys are the keys the study started, run by run (the scan's from its defining run)
    const load = (spec: string) => loadTask(spec, studyTaskOptions(normalizePlan(PLAN)));
    expect(await plannedRunKeys(normalizePlan(PLAN), controller.store, load)).toEqual(stored.runs.map((r) => [r.run_key]));
    // a task added: the other task's runs are the same runs, done before Run is pressed
    const added = { ...PLAN, tasks: ['builtin:arith-2d', 'builtin:arith-1d'] };
    const edited = await runner.overview(added);
    expect(edited.plan_key).not.toBe(report.plan_key);
    expect(edited).toMatchObject({ runsDone: 6, runsTotal: 12, status: 'new' });
    expect(edited.runs.filter((r) => r.done).map((r) => `${r.model}/${r.task}/${r.label}`)).toEqual(stored.runs.map((r) => `${r.model}/${r.task}/${r.label}`));
    // a reload (a new runner over the same store) reads the same
    const reloaded = new StudyRunner(controller, { useModel: async () => { throw new Error('no model loads for an overview'); }, loadTask: (spec, plan) => loadTask(spec, studyTaskOptions(plan)), appVersion: 'test' });
    expect(await reloaded.overview(added)).toMatchObject({ runsDone: 6, runsTotal: 12 });
    // a model no stored run knows: nothing to derive, nothing done
    expect(await reloaded.overview({ ...PLAN, models: ['C'], pairs: [] })).toMatchObject({ runsDone: 0, runsTotal: 3 });
  });

  it('a study its tab left running reads as interrupted, with the runs it finished done', async () => {
    const { runner, controller } = setup();
    let paused = false;
    await expect(
      runner.run(PLAN, (p) => {
        if (!paused && p.runsDone === 2 && p.current) {
          paused = true;
          void runner.pause();
        }
      }),
    ).rejects.toThrow(/paused/);
    const paused1 = await runner.overview(PLAN);
    expect(paused1).toMatchObject({ status: 'paused', runsDone: 2 });
    // what a closed tab leaves: the stored study says running, and nothing runs it
    const [study] = await controller.store.listStudies();
    await controller.store.putStudy({ ...study, status: 'running' });
    const [listed] = await runner.list();
    expect(listed).toMatchObject({ plan_key: study.plan_key, status: 'interrupted', runsDone: 2, runsTotal: 6 });
    expect(listed.runs.filter((r) => r.done).map((r) => r.label)).toEqual(['random-routes/blocks', 'mcts-routes/blocks']);
    // while it runs, it says so
    const statuses: string[] = [];
    await runner.run(PLAN, () => void runner.overview(PLAN).then((o) => statuses.push(o.status)));
    expect(statuses).toContain('running');
    expect(await runner.overview(PLAN)).toMatchObject({ status: 'finished', runsDone: 6 });
  });
});

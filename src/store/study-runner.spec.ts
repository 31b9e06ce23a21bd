import { describe, expect, it } from 'vitest';
import { loadTask } from '../audit/index.ts';
import { normalizePlan } from '../audit/study.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import { routeToString } from '../audit/routes.ts';
import { runStudy } from '../../scripts/study-cli.ts';
import { coreAudit, type CoreAuditInput } from './core-audit.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import { studyTaskOptions } from './study.ts';
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
});

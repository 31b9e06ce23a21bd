// Imports are verified or marked: every record's derived fields and hashes are recomputed on
// import, a disagreement is refused naming the run, record and field; a "finished" file that
// lacks records is stored as interrupted.
import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../audit/condition.ts';
import { DEFINITIONS } from '../audit/definitions.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask, ProbeSpec } from '../audit/types.ts';
import { colaMcts } from '../audit/probes/mcts.ts';
import { depthMatchedRoutes } from '../audit/probes/depth-matched.ts';
import { randomRoutes, type RandomRoutesSpec } from '../audit/probes/random-routes.ts';
import { sharedRoutes } from '../audit/probes/route-draws.ts';
import { canonicalJson } from '../util/hash.ts';
import { blocksSpace } from '../audit/routes.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { isStoreError, type StoreError } from './errors.ts';
import { exportRunJson, loadRun } from './export.ts';
import { importRunJson } from './import.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import type { RunStore } from './store.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { freshIdbStore } from './test-helpers.ts';

const L = 3;
const docs: Doc[] = Array.from({ length: 4 }, (_, i) => ({ id: `q${i}`, text: `What is ${i} + ${i}?`, target: String(2 * i) }));
const task: LoadedTask = {
  spec: { id: 'test:add', name: 'add', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 4, numTrain: 0 },
  test: docs,
  train: [],
};
const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'sampling', budget: 3, temperature: 0.8, topP: 0.9, seed: 4 }];
const input: CoreAuditInput = { task, condition: defaultCondition(task.spec, 'f32'), probes };
/** Greedy: right on q0 and q1; samples: always "2" (right on q1 only). */
const answer = (q: { prompt: string; sampling: { kind: string } }) => (q.sampling.kind === 'greedy' ? (/What is [01] /.test(q.prompt) ? String(2 * Number(q.prompt.match(/What is (\d)/)![1])) : '7') : '2');

function controller(store: RunStore, engine = new FakeEngine({ numLayers: L, answer })) {
  return { engine, c: new RunController<CoreAuditInput>({ store, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) }) };
}

async function genuineFile(audited: CoreAuditInput = input): Promise<any> {
  const source = new MemoryRunStore();
  const { engine, c } = controller(source);
  await c.start(await coreRunRequest(engine, await engine.info(), audited, { appVersion: 'test', source: 'fake', id: 'run-x' }));
  await c.idle();
  expect((await source.getRun('run-x'))?.manifest.status).toBe('finished');
  return JSON.parse(await exportRunJson(source, 'run-x'));
}

async function refusal(p: Promise<unknown>): Promise<StoreError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(isStoreError(e), `expected a StoreError, got ${String(e)}`).toBe(true);
  expect((e as StoreError).code).toBe('invalid-import');
  return e as StoreError;
}

const at = (f: any, doc: string, probe: string) => f.records.findIndex((r: any) => r.doc_id === doc && r.probe === probe);

describe('imported records are verified', () => {
  it('imports a genuine export unchanged', async () => {
    const file = await genuineFile();
    const target = await freshIdbStore();
    expect(await importRunJson(target, JSON.stringify(file), 'genuine.json')).toMatchObject({ runId: 'run-x', records: 8 });
    expect((await target.getRun('run-x'))!.manifest.status).toBe('finished');
  });

  it('writes the producer (app version and commit) into the file, which imports', async () => {
    const source = new MemoryRunStore();
    const { engine, c } = controller(source);
    await c.start(await coreRunRequest(engine, await engine.info(), { ...input, questions: 1 }, { appVersion: 'test', source: 'fake', id: 'run-p' }));
    await c.idle();
    const text = await exportRunJson(source, 'run-p', { app: '1.2.3', commit: 'abc123' });
    expect(JSON.parse(text).producer).toEqual({ app: '1.2.3', commit: 'abc123' });
    expect(await importRunJson(new MemoryRunStore(), text, 'p.json')).toMatchObject({ runId: 'run-p', records: 2 });
  });

  it('writes the definitions of the numbers into the file; a file without them (written before) imports alike', async () => {
    const file = await genuineFile();
    expect(file.definitions).toEqual(DEFINITIONS);
    expect(await importRunJson(new MemoryRunStore(), JSON.stringify(file), 'with.json')).toMatchObject({ runId: 'run-x', records: 8 });
    delete file.definitions;
    expect(await importRunJson(new MemoryRunStore(), JSON.stringify(file), 'without.json')).toMatchObject({ runId: 'run-x', records: 8 });
    // a malformed block is refused by name
    const bad = await genuineFile();
    bad.definitions = [{ term: 'realized' }];
    expect((await refusal(importRunJson(new MemoryRunStore(), JSON.stringify(bad), 'bad.json'))).message).toMatch(/definitions\[0\]\.definition/);
  });

  it('refuses a record whose derived fields, grades or hashes disagree with its attempts, naming run, record and field', async () => {
    const file = await genuineFile();
    const d2 = at(file, 'q2', 'deployment');
    const s2 = at(file, 'q2', 'sampling');
    const cases: [string, (f: any) => void, RegExp][] = [
      ['realized', (f) => (f.records[d2].realized = true), new RegExp(`run run-x, records\\[${d2}\\] \\(question q2, probe deployment\\): realized says true, but this version computes false`)],
      ['reachable', (f) => (f.records[s2].reachable = true), new RegExp(`records\\[${s2}\\] \\(question q2, probe sampling\\): reachable says true`)],
      ['first_success', (f) => (f.records[s2].first_success = 0), /first_success says 0, but this version computes null/],
      [
        'an attempt graded correct with its derived fields to match',
        (f) => {
          const r = f.records[d2];
          Object.assign(r.attempts[0], { correct: true });
          Object.assign(r, { realized: true, first_success: 0 });
        },
        /probe deployment\): attempts\[0\]\.correct says true, but this version computes false/,
      ],
      ['an answer swapped', (f) => (f.records[d2].attempts[0].response = '4'), /attempts\[0\]\.extracted says "7", but this version computes "4"/],
      ['question text', (f) => (f.records[d2].doc.text = 'What is 9 + 9?'), /question q2, probe deployment\): doc_hash says "[0-9a-f]+", but this version computes/],
      ['prompt', (f) => (f.records[d2].arguments.prompt = 'What is 2 + 2? (easy)'), /prompt_hash says/],
      ['budget', (f) => Object.assign(f.records[s2], { budget: 8 }), /budget says 8, but this version computes 3/],
      ['resps', (f) => (f.records[d2].resps = ['4']), /resps says \["4"\]/],
    ];
    for (const [name, tamper, message] of cases) {
      const f = structuredClone(file);
      tamper(f);
      const target = new MemoryRunStore();
      const e = await refusal(importRunJson(target, JSON.stringify(f), 'tampered.json'));
      expect(e.message, name).toMatch(/^tampered\.json: /);
      expect(e.message, name).toMatch(message);
      expect(await target.listRuns(), name).toEqual([]);
    }
  });

  it('replays each record\'s attempts and checks its picks: blindness, the fixed route and its extra decode, depths, depth profiles, selector names', async () => {
    const L6 = 6;
    // right on the default route for even n, and on any route that repeats a layer for n ≥ 3 (the
    // calibration questions have n ≥ 10: the fixed route repeats a layer and is wrong on q1)
    const routed = (q: { prompt: string; route: number[] }) => {
      const n = Number(/What is (\d+)/.exec(q.prompt)![1]);
      return n % 2 === 0 || (n >= 3 && new Set(q.route).size < q.route.length) ? String(2 * n) : '1';
    };
    const many: Doc[] = Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, text: `What is ${i} + ${i}?`, target: String(2 * i) }));
    const routedTask: LoadedTask = { ...task, spec: { ...task.spec, numTest: 6, numTrain: 4 }, test: many, train: Array.from({ length: 4 }, (_, i) => ({ id: `t${i}`, text: `What is ${10 + i} + ${10 + i}?`, target: String(20 + 2 * i) })) };
    const routedInput: CoreAuditInput = {
      task: routedTask,
      condition: defaultCondition(routedTask.spec, 'f32'),
      probes: [{ probe: 'deployment' }, randomRoutes(blocksSpace(L6), 2, 5), colaMcts(L6, 4, 3), depthMatchedRoutes(colaMcts(L6, 4, 3))],
      selectors: ['majority', 'fixed-route'],
    };
    const source = new MemoryRunStore();
    const { engine, c } = controller(source, new FakeEngine({ numLayers: L6, answer: routed }));
    await c.start(await coreRunRequest(engine, await engine.info(), routedInput, { appVersion: 'test', source: 'fake', id: 'run-r' }));
    await c.idle();
    const file = JSON.parse(await exportRunJson(source, 'run-r'));
    expect(await importRunJson(new MemoryRunStore(), JSON.stringify(file), 'genuine.json')).toMatchObject({ records: 24 });

    const of = (f: any, probe: string) => f.records.filter((r: any) => r.probe === probe);
    const extra = (f: any) => of(f, 'random-routes').find((r: any) => r.selectors['fixed-route'].attempt === null && !r.selectors['fixed-route'].correct);
    expect(extra(file), 'a question whose draws miss the fixed route, wrong on it').toBeDefined();
    const deep = (f: any) => of(f, 'mcts-routes').find((r: any) => r.attempts.some((a: any) => a.depth > 1));
    const cases: [string, (f: any) => void, RegExp][] = [
      ['MCTS majority marked blind', (f) => (of(f, 'mcts-routes')[0].selectors.majority.blind = true), /probe mcts-routes\): selectors\.majority says .*"blind":true.*this version computes .*"blind":false/],
      ['an extra decode set to the gold', (f) => Object.assign(extra(f).selectors['fixed-route'], { extracted: extra(f).target, correct: true }), /selectors\.fixed-route says .*"correct":true/],
      ['the fixed route of one record changed', (f) => (of(f, 'random-routes')[1].selectors['fixed-route'].route = [0, 1, 2, 3, 4, 5, 5]), /selectors\.fixed-route/],
      [
        'the fixed route of one record changed to another candidate',
        (f) => (extra(f).selectors['fixed-route'].route = sharedRoutes(routedInput.probes[1] as RandomRoutesSpec).find((r) => canonicalJson(r) !== canonicalJson(extra(f).selectors['fixed-route'].route))),
        /selectors\.fixed-route/,
      ],
      ['a fixed route no candidate', (f) => of(f, 'random-routes').forEach((r: any) => (r.selectors['fixed-route'].route = [5, 4, 3, 2, 1, 0])), /selectors\.fixed-route\.route says \[5,4,3,2,1,0\], which is not one of the probe's candidate routes/],
      ['an attempt\'s depth', (f) => (deep(f).attempts.find((a: any) => a.depth > 1).depth = 1), /probe mcts-routes\): attempts\[\d+\] says .*"depth":1.*session under this spec asks for/],
      ['an MCTS route', (f) => (of(f, 'mcts-routes')[0].attempts[0].route = [0, 0, 1, 2, 3, 4, 5]), /attempts\[0\] says .*"route":\[0,0,1,2,3,4,5\]/],
      ['every MCTS depth 0 (a profile no walk can follow)', (f) => of(f, 'mcts-routes').forEach((r: any) => r.attempts.forEach((a: any) => (a.depth = 0))), /probe (mcts-routes|depth-matched-routes)\): (attempts\[0\] says .*"depth":0|depth_profile says|attempts cannot be replayed)/],
      ['a depth profile', (f) => (of(f, 'depth-matched-routes')[0].depth_profile = [0, 24]), /probe depth-matched-routes\): depth_profile says \[0,24\]/],
      ['a pick on a deployment record', (f) => (of(f, 'deployment')[0].selectors = { majority: of(f, 'mcts-routes')[0].selectors.majority }), /selectors\.majority is a pick on a deployment record/],
      ['a selector named toString', (f) => (of(f, 'random-routes')[0].selectors.toString = of(f, 'random-routes')[0].selectors.majority), /records\[\d+\]\.selectors\["toString"\]: expected a key among "majority", "max-logprob", "fixed-route"/],
    ];
    for (const [name, tamper, message] of cases) {
      const f = structuredClone(file);
      tamper(f);
      const target = new MemoryRunStore();
      const e = await refusal(importRunJson(target, JSON.stringify(f), 'tampered.json'));
      expect(e.message, name).toMatch(message);
      expect(await target.listRuns(), name).toEqual([]);
    }
    // an extra decode written before picks kept its response cannot be regraded: that pick alone is dropped
    const older = structuredClone(file);
    delete extra(older).selectors['fixed-route'].response;
    const doc = extra(older).doc_id;
    const target = new MemoryRunStore();
    await importRunJson(target, JSON.stringify(older), 'older.json');
    const kept = (await loadRun(target, 'run-r')).records.find((r) => r.probe === 'random-routes' && r.doc_id === doc)!;
    expect(Object.keys(kept.selectors ?? {})).toEqual(['majority']);
  });

  it('stores a "finished" file that lacks records as interrupted, and a later start computes the rest', async () => {
    const file = await genuineFile();
    file.records = file.records.slice(0, 2);
    const target = await freshIdbStore();
    await importRunJson(target, JSON.stringify(file), 'partial.json');
    const run = (await target.getRun('run-x'))!;
    expect(run.manifest.status).toBe('interrupted');
    expect(run.counters).toMatchObject({ recordsTotal: 8, recordsDone: 2 });
    expect(run.counters.lastError).toBe('the imported file holds 2 of the 8 records this run asks for');
    const { engine, c } = controller(target);
    const again = await c.start({ ...(await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'local' })), includeImported: true });
    await c.idle();
    expect(again.id).toBe('run-x');
    expect((await target.getRun('run-x'))!.manifest.status).toBe('finished');
    expect((await target.recordsForRun('run-x')).length).toBe(8);
  });
});

describe('imported records keep their provenance', () => {
  /** A local audit of all four questions, after importing the two-question genuine run. */
  async function importThenAudit(includeImported: boolean) {
    const file = await genuineFile({ ...input, questions: 2 });
    const target = await freshIdbStore();
    await importRunJson(target, JSON.stringify(file), 'genuine.json');
    const { engine, c } = controller(target);
    const req = await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'local' });
    await c.start({ ...req, includeImported });
    await c.idle();
    return { target, engine, c, req };
  }

  it('a local audit reuses none of them unless asked, then says how many came from which file', async () => {
    const plain = await importThenAudit(false);
    expect((await plain.target.getRun('local'))!.manifest.status).toBe('finished');
    expect((await loadRun(plain.target, 'local')).importedFrom).toEqual([]);
    expect((await plain.target.getRun('local'))!.counters.reused).toBe(0);
    const rowsComputed = plain.engine.rowsRequested;

    const mixed = await importThenAudit(true);
    expect((await mixed.target.getRun('local'))!.manifest.status).toBe('finished');
    expect((await loadRun(mixed.target, 'local')).importedFrom).toEqual([{ file: 'genuine.json', records: 4 }]);
    expect((await mixed.target.getRun('local'))!.counters.reused).toBe(4);
    expect(mixed.engine.rowsRequested).toBeLessThan(rowsComputed);
    const stored = await mixed.target.recordsForRun('local');
    expect(stored.filter((s) => s.imported).map((s) => s.imported!.file)).toEqual(Array(4).fill('genuine.json'));
    expect(stored.filter((s) => s.imported).every((s) => s.imported!.regraded && s.imported!.runId === 'run-x')).toBe(true);
  });

  it('deleting the import removes its records from the runs that reused them, which become interrupted and resume', async () => {
    const { target, c, req, engine } = await importThenAudit(true);
    const rowsBefore = engine.rowsRequested;
    await target.deleteRun('run-x');
    const run = (await target.getRun('local'))!;
    expect([run.manifest.status, run.counters.recordsDone, run.counters.reused]).toEqual(['interrupted', 4, 0]);
    expect(run.counters.lastError).toBe('4 records read from genuine.json were removed with that import; start the audit again to compute them here');
    expect((await target.recordsForRun('local')).length).toBe(4);
    expect((await loadRun(target, 'local')).importedFrom).toEqual([]);
    const again = await c.start(req);
    await c.idle();
    expect(again.id).toBe('local');
    expect((await target.getRun('local'))!.manifest.status).toBe('finished');
    expect((await target.recordsForRun('local')).length).toBe(8);
    expect(engine.rowsRequested).toBeGreaterThan(rowsBefore);
  });

  it('two imports of one question set own their shared records each: deleting one leaves the other whole (memory and IndexedDB)', async () => {
    const fileA = await genuineFile();
    const sourceB = new MemoryRunStore();
    const { engine, c } = controller(sourceB);
    const inputB: CoreAuditInput = { ...input, probes: [{ probe: 'deployment' }, { probe: 'sampling', budget: 3, temperature: 0.8, topP: 0.9, seed: 5 }] };
    await c.start(await coreRunRequest(engine, await engine.info(), inputB, { appVersion: 'test', source: 'fake', id: 'run-y' }));
    await c.idle();
    const textB = await exportRunJson(sourceB, 'run-y');
    for (const target of [new MemoryRunStore(), await freshIdbStore()] as RunStore[]) {
      await importRunJson(target, JSON.stringify(fileA), 'a.json');
      // B's deployment records are A's, under the same keys: linked, not stored twice
      expect(await importRunJson(target, textB, 'b.json')).toMatchObject({ runId: 'run-y', records: 8, stored: 4, linked: 4 });
      await target.deleteRun('run-x');
      const b = (await target.getRun('run-y'))!;
      expect([b.manifest.status, b.counters.recordsDone, b.counters.lastError], target.kind).toEqual(['finished', 8, undefined]);
      const held = await target.recordsForRun('run-y');
      expect(held.length, target.kind).toBe(8);
      expect(held.every((s) => s.imported?.runId === 'run-y' && s.imported.file === 'b.json'), target.kind).toBe(true);
      expect((await loadRun(target, 'run-y')).records.length).toBe(8);
      // and deleting B then leaves nothing behind
      await target.deleteRun('run-y');
      expect(await target.recordsInRange([''], [[]]), target.kind).toEqual([]);
    }
  });

  it('an imported run that lacks records takes them back from its file; a whole one is still refused as already in the library', async () => {
    const file = await genuineFile();
    for (const target of [new MemoryRunStore(), await freshIdbStore()] as RunStore[]) {
      await importRunJson(target, JSON.stringify({ ...file, records: file.records.slice(0, 5) }), 'part.json');
      expect((await target.getRun('run-x'))!.manifest.status).toBe('interrupted');
      expect(await importRunJson(target, JSON.stringify(file), 'whole.json')).toMatchObject({ runId: 'run-x', records: 8, stored: 3 });
      const run = (await target.getRun('run-x'))!;
      expect([run.manifest.status, run.counters.recordsDone, run.counters.lastError], target.kind).toEqual(['finished', 8, undefined]);
      expect((await target.recordsForRun('run-x')).length).toBe(8);
      const e = await importRunJson(target, JSON.stringify(file), 'again.json').then(() => null, (err: StoreError) => err);
      expect([e?.code, e?.message], target.kind).toEqual(['duplicate', 'again.json: this run is already in your library (run run-x); delete it there first to import this file again']);
    }
  });

  it('a record computed here replaces an imported one under the same key', async () => {
    const { target } = await importThenAudit(false);
    // the local run computed q0 and q1 itself: the imported run now holds the local records
    const held = await target.recordsForRun('run-x');
    expect(held.map((s) => [s.computedBy, s.imported])).toEqual(Array(4).fill(['local', undefined]));
  });
});

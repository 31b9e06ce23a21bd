// Imports are verified or marked: every record's derived fields and hashes are recomputed on
// import, a disagreement is refused naming the run, record and field; a "finished" file that
// lacks records is stored as interrupted.
import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../audit/condition.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask, ProbeSpec } from '../audit/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { isStoreError, type StoreError } from './errors.ts';
import { exportRunJson } from './export.ts';
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

async function genuineFile(): Promise<any> {
  const source = new MemoryRunStore();
  const { engine, c } = controller(source);
  await c.start(await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'run-x' }));
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
    const again = await c.start(await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'local' }));
    await c.idle();
    expect(again.id).toBe('run-x');
    expect((await target.getRun('run-x'))!.manifest.status).toBe('finished');
    expect((await target.recordsForRun('run-x')).length).toBe(8);
  });
});

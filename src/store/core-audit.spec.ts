// The controller driving the real audit core on H3's scripted fake engine: a crash mid-run, a
// resume on a fresh engine, and the records and summary of an uninterrupted run.
import { describe, expect, it } from 'vitest';
import { defaultCondition, fewShotPoolHash } from '../audit/condition.ts';
import { docHash } from '../audit/attempts.ts';
import { runAudit } from '../audit/run.ts';
import { FakeEngine, type FakeQuery } from '../audit/testing/fake-engine.ts';
import { summarize } from '../audit/summary.ts';
import type { Doc, LoadedTask, ProbeSpec } from '../audit/types.ts';
import { EngineError, type Engine } from '../engine/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { keyId } from './records.ts';
import { RunController } from './run-controller.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { freshIdbStore } from './test-helpers.ts';
import { sha256Hex } from '../util/hash.ts';

const L = 4;
const docs: Doc[] = Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, text: `${i}+${i}=`, target: String(2 * i) }));
const task: LoadedTask = {
  spec: { id: 'test:doubling', name: 'doubling', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 6, numTrain: 0 },
  test: docs,
  train: [],
};
const probes: ProbeSpec[] = [
  { probe: 'deployment' },
  { probe: 'random-routes', space: { kind: 'blocks', numLayers: L, minLen: 1, maxLen: 8, maxBlock: 2, maxEdits: 1 }, budget: 5, seed: 3, shared: false },
  { probe: 'sampling', budget: 3, temperature: 0.7, topP: 0.9, seed: 9 },
];
// right on the default route for even questions, right under routes that repeat a layer
const answer = (q: FakeQuery) => {
  const i = Number(q.prompt[0]);
  const right = q.route.length === L ? i % 2 === 0 : q.route.length > L;
  return right ? String(2 * i) : '1';
};
const input: CoreAuditInput = { task, condition: defaultCondition({ ...task.spec, id: 'builtin:doubling' }, 'f32'), probes, rowsPerCall: 4 };

/** The fake engine, dying (worker-crashed) at its `dieAt`-th generate call. */
function mortal(engine: FakeEngine, dieAt: number): Engine {
  let calls = 0;
  return new Proxy(engine, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop !== 'generate') return typeof v === 'function' ? v.bind(target) : v;
      return async (...args: Parameters<Engine['generate']>) => {
        if (++calls === dieAt) throw new EngineError('worker-crashed', 'the engine worker stopped (terminated)');
        return target.generate(...args);
      };
    },
  });
}

describe('RunController on the audit core', () => {
  it("names the chat template's file in the manifest when the condition applies it", async () => {
    const e = new FakeEngine({ numLayers: L, answer });
    const info = { ...(await e.info()), chatTemplateFile: 'chat_template.jinja' as const };
    const chat = { ...input, condition: defaultCondition({ ...task.spec, id: 'builtin:doubling' }, 'f32', { chatTemplate: true }) };
    expect((await coreRunRequest(e, info, chat, { appVersion: 'test', source: 'fake' })).manifest.model.chatTemplate).toBe('chat_template.jinja');
    expect((await coreRunRequest(e, info, input, { appVersion: 'test', source: 'fake' })).manifest.model.chatTemplate).toBeUndefined();
  });

  it("states the model's layers in the manifest (screens read them there)", async () => {
    const e = new FakeEngine({ numLayers: L, answer });
    expect((await coreRunRequest(e, await e.info(), input, { appVersion: 'test', source: 'fake' })).manifest.model.numLayers).toBe(L);
  });

  it('resumes a crashed run: every record once, none recomputed, the uninterrupted summary', async () => {
    const reference = await runAudit(new FakeEngine({ numLayers: L, answer }), input);
    const units = docs.length * probes.length;
    expect(reference.records).toHaveLength(units);

    const store = await freshIdbStore();
    const first = new FakeEngine({ numLayers: L, answer });
    const c = new RunController<CoreAuditInput>({ store, engine: mortal(first, 4), audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
    const req = await coreRunRequest(first, await first.info(), input, { appVersion: 'test', source: 'fake', id: 'run-core' });
    // the store keys the run by the run key runAudit computes
    expect(req.questions).toEqual(reference.questions);
    expect((await c.start(req)).manifestKey).toBe(reference.run_key);
    await c.idle();
    const interrupted = await store.getRun('run-core');
    expect(interrupted?.manifest.status).toBe('interrupted');
    expect(interrupted?.counters.lastError).toMatch(/worker stopped/);
    const before = await store.recordsForRun('run-core');
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(units);

    const fresh = new FakeEngine({ numLayers: L, answer });
    c.setEngine(fresh);
    await c.resume('run-core');
    await c.idle();
    const run = await store.getRun('run-core');
    expect(run?.manifest.status).toBe('finished');
    const after = await store.recordsForRun('run-core');
    expect(after).toHaveLength(units);
    expect(new Set(after.map((r) => keyId(r.key))).size).toBe(units);
    // the fresh engine ran exactly the attempts of the records missing after the crash
    const storedBefore = new Set(before.map((r) => keyId(r.key)));
    const missingRows = after.filter((r) => !storedBefore.has(keyId(r.key))).reduce((n, r) => n + r.record.attempts.length, 0);
    expect(fresh.rowsRequested).toBe(missingRows);
    // same seeds, same records: the resumed run's summary is the uninterrupted one
    expect(summarize(after.map((r) => r.record))).toEqual(reference.summary);
    const byKey = new Map(after.map((r) => [`${r.record.probe}/${r.record.doc_id}`, r.record]));
    for (const r of reference.records) expect(byKey.get(`${r.probe}/${r.doc_id}`)).toEqual(r);
  });

  // Two files both named q.jsonl, both numbering their questions q1..q3, with other contents
  // (issue 10 item 5): the second audit computes its own records.
  const named = (texts: string[], train: Doc[] = []): LoadedTask => ({
    spec: { id: 'file:q.jsonl', name: 'q.jsonl', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: texts.length, numTrain: train.length },
    test: texts.map((text, i) => ({ id: `q${i + 1}`, text, target: String(eval2(text)) })),
    train,
  });
  /** a+b from "a+b=". */
  const eval2 = (text: string) => text.slice(0, -1).split('+').reduce((n, x) => n + Number(x), 0);
  // the scripted model answers every question right on its default route, from the prompt itself
  const solver = () => new FakeEngine({ numLayers: L, answer: (q) => String(eval2(q.prompt.slice(q.prompt.lastIndexOf('\n') + 1))) });
  const sampleProbes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'sampling', budget: 3, temperature: 0.7, topP: 0.9, seed: 9 }];
  const inputOf = (task: LoadedTask, n = 0): CoreAuditInput => ({ task, condition: defaultCondition(task.spec, 'f32', { fewShot: { n, seed: 5 } }), probes: sampleProbes });

  async function audit(store: Awaited<ReturnType<typeof freshIdbStore>>, task: LoadedTask, id: string, n = 0) {
    const engine = solver();
    const c = new RunController<CoreAuditInput>({ store, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
    const req = await coreRunRequest(engine, await engine.info(), inputOf(task, n), { appVersion: 'test', source: 'fake', id, questionSeed: 11 });
    const run = await c.start(req);
    await c.idle();
    return { run, req, rows: engine.rowsRequested, stored: await store.getRun(run.id) };
  }

  it('never gives a file the records of another file that names its questions alike', async () => {
    const store = await freshIdbStore();
    const a = await audit(store, named(['1+1=', '2+2=', '3+3=']), 'run-a');
    // 3 questions × (1 deployment + 3 samples)
    expect(a.rows).toBe(12);
    const b = await audit(store, named(['5+4=', '7+1=', '2+9=']), 'run-b');
    expect(b.run.id).toBe('run-b');
    expect(b.run.manifestKey).not.toBe(a.run.manifestKey);
    expect(b.rows).toBe(12);
    expect(b.stored?.counters).toMatchObject({ recordsDone: 6, reused: 0, attemptsComputed: 12 });
    const records = (await store.recordsForRun('run-b')).map((r) => r.record);
    expect(records.filter((r) => r.probe === 'deployment').map((r) => [r.doc_id, r.doc.text, r.target, r.realized])).toEqual([
      ['q1', '5+4=', '9', true],
      ['q2', '7+1=', '8', true],
      ['q3', '2+9=', '11', true],
    ]);
    for (const r of records) expect(r.doc_hash).toBe(await docHash(r.doc));
    // the first file's records are untouched and not shared
    const first = await store.recordsForRun('run-a');
    expect(first.map((r) => r.record.target).sort()).toEqual(['2', '2', '4', '4', '6', '6']);
    expect(first.every((r) => r.runIds.length === 1)).toBe(true);
  });

  it('reuses the records of identical questions whatever the file is called', async () => {
    const store = await freshIdbStore();
    await audit(store, named(['1+1=', '2+2=', '3+3=']), 'run-a');
    // the same content under another name is the same run: finished, nothing computed
    const renamed = named(['1+1=', '2+2=', '3+3=']);
    renamed.spec = { ...renamed.spec, id: 'file:copy.jsonl', name: 'copy.jsonl' };
    const same = await audit(store, renamed, 'run-copy');
    expect([same.run.id, same.run.manifest.status, same.rows]).toEqual(['run-a', 'finished', 0]);
    // its first two questions are another run, made of the first one's records
    const two = await audit(store, { ...renamed, test: renamed.test.slice(0, 2) }, 'run-two');
    expect(two.run.id).toBe('run-two');
    expect(two.rows).toBe(0);
    expect(two.stored?.counters).toMatchObject({ recordsTotal: 4, recordsDone: 4, reused: 4, attemptsComputed: 0 });
    expect(two.stored?.manifest.status).toBe('finished');
  });

  it('binds the few-shot pool into the condition: another train split is another condition', async () => {
    const store = await freshIdbStore();
    const train: Doc[] = [
      { id: 't1', text: '4+4=', target: '8' },
      { id: 't2', text: '6+1=', target: '7' },
    ];
    const a = await audit(store, named(['1+1=', '2+2='], train), 'shots-a', 1);
    const pool = await fewShotPoolHash(train);
    expect(a.req.manifest.condition?.fewShot).toEqual({ n: 1, seed: 5, pool });
    expect(a.req.input.condition).toEqual(a.req.manifest.condition);
    expect(a.req.manifest.task.question_seed).toBe(11);
    expect(a.rows).toBe(8);
    // one train example changed: a new pool hash, a new condition key, every unit computed again
    const other = [train[0], { id: 't2', text: '6+2=', target: '8' }];
    const b = await audit(store, named(['1+1=', '2+2='], other), 'shots-b', 1);
    expect(b.req.manifest.condition?.fewShot.pool).toBe(await fewShotPoolHash(other));
    expect(b.req.manifest.condition_key).not.toBe(a.req.manifest.condition_key);
    expect(b.rows).toBe(8);
    expect(b.stored?.counters.reused).toBe(0);
    // a 0-shot condition names no pool
    const zero = await coreRunRequest(solver(), await solver().info(), inputOf(named(['1+1='], train)), { appVersion: 'test', source: 'fake' });
    expect(zero.manifest.condition?.fewShot).toEqual({ n: 0, seed: 5 });
    expect(zero.manifest.task.question_seed).toBeUndefined();
    expect(zero.questions).toEqual([{ doc_id: 'q1', doc_hash: await docHash(zero.input.task.test[0]), prompt_hash: await sha256Hex('1+1=') }]);
  });
});

// The controller driving the real audit core on H3's scripted fake engine: a crash mid-run, a
// resume on a fresh engine, and the records and summary of an uninterrupted run.
import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../audit/condition.ts';
import { runAudit } from '../audit/run.ts';
import { FakeEngine, type FakeQuery } from '../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask, ProbeSpec } from '../audit/types.ts';
import { EngineError, type Engine } from '../engine/types.ts';
import { coreAudit, coreRunRequest, coreSummarize, type CoreAuditInput } from './core-audit.ts';
import { keyId } from './records.ts';
import { RunController } from './run-controller.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { freshIdbStore } from './test-helpers.ts';

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
  it('resumes a crashed run: every record once, none recomputed, the uninterrupted summary', async () => {
    const reference = await runAudit(new FakeEngine({ numLayers: L, answer }), input);
    const units = docs.length * probes.length;
    expect(reference.records).toHaveLength(units);

    const store = await freshIdbStore();
    const first = new FakeEngine({ numLayers: L, answer });
    const c = new RunController<CoreAuditInput>({ store, engine: mortal(first, 4), audit: coreAudit, summarize: coreSummarize, locks: new TabLocks(new InProcessLocks()) });
    const req = await coreRunRequest(await first.info(), input, { appVersion: 'test', source: 'fake', id: 'run-core' });
    await c.start(req);
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
    expect((await store.getSummary('run-core'))?.summary).toEqual(reference.summary);
    const byKey = new Map(after.map((r) => [`${r.record.probe}/${r.record.doc_id}`, r.record]));
    for (const r of reference.records) expect(byKey.get(`${r.probe}/${r.doc_id}`)).toEqual(r);
  });
});

// Two tabs starting the same audit at the same instant create one run: the run is created in one
// IndexedDB transaction that first looks for a run with its key (issue 23, item 8).
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { RunController, type RunRequest } from './run-controller.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { CountingEngine, fakeAudit, freshIdbStore, makeManifest, questionsOf, type FakeAuditInput } from './test-helpers.ts';

function request(id: string): RunRequest<FakeAuditInput> {
  const manifest = makeManifest({ id }, 3);
  const qs = questionsOf(3);
  return { manifest, questions: qs, input: { manifest, questions: qs } };
}

describe('two tabs, one audit, the same instant', () => {
  it('creates one run, which finishes', async () => {
    const factory = new IDBFactory();
    const locks = new InProcessLocks(); // one origin's Web Locks, seen by both tabs
    const tab = async () => {
      const store = await freshIdbStore(factory);
      const engine = new CountingEngine();
      return { store, engine, c: new RunController<FakeAuditInput>({ store, engine, audit: fakeAudit, locks: new TabLocks(locks), now: engine.now }) };
    };
    const [a, b] = [await tab(), await tab()];
    const settled = await Promise.allSettled([a.c.start(request('tab-a')), b.c.start(request('tab-b'))]);
    await Promise.all([a.c.idle(), b.c.idle()]);
    // each tab either gets the one run or, when the other already runs it, is told so by name
    const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.id] : []));
    for (const s of settled) if (s.status === 'rejected') expect(s.reason).toMatchObject({ code: 'locked' });
    expect(started.length).toBeGreaterThan(0);
    expect(new Set(started).size).toBe(1);
    const runs = await a.store.listRuns();
    expect(runs.map((r) => [r.id, r.manifest.status])).toEqual([[started[0], 'finished']]);
    expect(a.engine.calls + b.engine.calls).toBe(6);
  });
});

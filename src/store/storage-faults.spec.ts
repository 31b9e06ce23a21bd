// Storage faults: IndexedDB (fake-indexeddb) refusing writes with QuotaExceededError mid-run.
import { IDBObjectStore as FakeObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { isStoreError, type StoreError } from './errors.ts';
import { exportRunJson } from './export.ts';
import { importLmEvalSamples } from './import.ts';
import { RunController, type RunEvent, type RunRequest } from './run-controller.ts';
import type { StoredRun } from './schema.ts';
import type { RunStore } from './store.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { CountingEngine, fakeAudit, freshIdbStore, makeManifest, questionsOf, type FakeAuditInput } from './test-helpers.ts';

const realPut = FakeObjectStore.prototype.put;
/** While `refuse(value)` says so, IndexedDB puts fail as a full quota does. */
function fillDisk(refuse: (value: unknown) => boolean) {
  FakeObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
    if (refuse(value)) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    return realPut.call(this, value, key);
  };
}
afterEach(() => {
  FakeObjectStore.prototype.put = realPut;
});

function request(id: string, questions: number, content: string): RunRequest<FakeAuditInput> {
  const manifest = makeManifest({ id }, questions);
  const qs = questionsOf(questions, content);
  return { manifest, questions: qs, input: { manifest, questions: qs } };
}

function controller(store: RunStore, engine = new CountingEngine()) {
  const events: RunEvent[] = [];
  const c = new RunController<FakeAuditInput>({ store, engine, audit: fakeAudit, locks: new TabLocks(new InProcessLocks()), now: engine.now });
  c.subscribe((e) => events.push(e));
  return { c, engine, events };
}

const isRecord = (v: unknown) => typeof v === 'object' && v !== null && 'record' in v;
const status = async (s: RunStore, id: string) => (await s.getRun(id))?.manifest.status;

describe('after a fall back to memory', () => {
  it('the Library still lists the stored IndexedDB runs, a finished one is never recomputed, and the IndexedDB copy is finished when space returns', async () => {
    const idb = await freshIdbStore();
    const { c, engine, events } = controller(idb);
    const stored = request('stored', 2, 'a');
    await c.start(stored);
    await c.idle();
    expect(engine.calls).toBe(4);
    // the disk fills after two records of the next run; space returns once the app has fallen back
    let puts = 0;
    fillDisk((v) => isRecord(v) && ++puts > 2 && !events.some((e) => e.type === 'storage-fallback'));
    const next = request('next', 3, 'b');
    await c.start(next);
    await c.idle();
    expect(c.store.kind).toBe('memory');
    expect(await status(c.store, 'next')).toBe('finished');
    expect((await c.store.listRuns()).map((r) => r.id).sort()).toEqual(['next', 'stored']);
    expect(await status(c.store, 'stored')).toBe('finished');
    expect((await c.store.recordsForRun('stored')).length).toBe(4);
    // starting the stored audit again returns it: nothing is computed
    const calls = engine.calls;
    const again = await c.start(stored);
    await c.idle();
    expect([again.id, again.manifest.status, engine.calls]).toEqual(['stored', 'finished', calls]);
    // the IndexedDB copy was written back when the run finished
    expect(await status(idb, 'next')).toBe('finished');
    expect((await idb.recordsForRun('next')).length).toBe(6);
    // and the export of the run reads whole
    expect(JSON.parse(await exportRunJson(c.store, 'next')).records).toHaveLength(6);
  });

  it('a quota error at the final status write never demotes a complete run', async () => {
    const idb = await freshIdbStore();
    const { c, events } = controller(idb);
    fillDisk((v) => (v as StoredRun | undefined)?.manifest?.status === 'finished');
    const req = request('full-at-end', 2, 'a');
    await c.start(req);
    await c.idle();
    expect(await status(c.store, 'full-at-end')).toBe('finished');
    const last = events.filter((e): e is Extract<RunEvent, { type: 'status' }> => e.type === 'status').at(-1)!;
    expect([last.run.manifest.status, last.run.counters.interruptions, last.run.counters.lastError]).toEqual(['finished', 0, undefined]);
    // the IndexedDB copy holds every record; its status is not "finished" while the disk is full,
    // and a restart marks it interrupted: starting it again finishes it without computing
    expect((await idb.recordsForRun('full-at-end')).length).toBe(4);
    FakeObjectStore.prototype.put = realPut;
    const reload = controller(idb);
    expect((await reload.c.recoverInterrupted()).map((r) => r.id)).toEqual(['full-at-end']);
    expect((await reload.c.start(req)).id).toBe('full-at-end');
    await reload.c.idle();
    expect([await status(idb, 'full-at-end'), reload.engine.calls]).toEqual(['finished', 0]);
  });

  it('a refused import names the full disk and never says an audit continues in memory', async () => {
    const line = { doc_id: 0, doc: { question: '1+1' }, target: '2', arguments: [['Q: 1+1']], resps: [['2']], filtered_resps: ['2'], doc_hash: 'a', prompt_hash: 'b', exact_match: 1 };
    const idb = await freshIdbStore();
    fillDisk(() => true);
    const o = { runId: 'samples', appVersion: 'test', model: { fingerprint: 'lm-eval:x', name: 'x', source: 'x' }, task: { id: 'x', version: 1 } };
    const e = await importLmEvalSamples(idb, JSON.stringify(line), o).then(() => null, (err: unknown) => err);
    expect(isStoreError(e) && (e as StoreError).code).toBe('quota-exceeded');
    expect((e as Error).message).toMatch(/^Browser storage is full while importing run samples\. /);
    expect((e as Error).message).not.toMatch(/in memory/);
  });
});

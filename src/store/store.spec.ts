// One contract, two implementations: every RunStore behaves the same in IndexedDB and in memory.
import { IDBObjectStore as FakeObjectStore } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { isStoreError, StoreError } from './errors.ts';
import { manifestKey, probeRange, recordKeyIn, runScope } from './keys.ts';
import { MemoryRunStore } from './memory-store.ts';
import { prepareResume } from './records.ts';
import type { StoredRun } from './schema.ts';
import type { RunStore } from './store.ts';
import { freshIdbStore, identity, makeManifest, makeRecord, questionsOf } from './test-helpers.ts';

const makers: [string, () => Promise<RunStore>][] = [
  ['indexeddb', () => freshIdbStore()],
  ['memory', async () => new MemoryRunStore()],
];

async function runOf(id: string, questions = 3): Promise<StoredRun> {
  const manifest = makeManifest({ id }, questions);
  return {
    id,
    manifest,
    manifestKey: await manifestKey(manifest, questionsOf(questions)),
    counters: { recordsTotal: questions * 2, recordsDone: 0, reused: 0, attemptsComputed: 0, computeMs: 0, interruptions: 0 },
    updatedAt: 't',
  };
}

async function item(run: StoredRun, doc: string, probe: 'deployment' | 'sampling', correctAt: number | null = 0, content = 'a') {
  const scope = await runScope(run.manifest, null);
  const record = await makeRecord(run.manifest, identity(doc, content), probe, correctAt);
  return { key: recordKeyIn(scope, record), record };
}

describe.each(makers)('RunStore (%s)', (_name, make) => {
  it('stores a record once per key; a repeat is harmless; another run links it', async () => {
    const store = await make();
    const a = await runOf('run-a');
    await store.putRun(a);
    const it0 = await item(a, 'q0', 'deployment');
    expect(await store.putRecord('run-a', it0)).toBe('stored');
    expect(await store.putRecord('run-a', it0)).toBe('present');
    // a different body under the same key does not overwrite: first write wins
    const other = { ...it0, record: { ...it0.record, resps: ['changed'] } };
    expect(await store.putRecord('run-b', other)).toBe('linked');
    const ra = await store.recordsForRun('run-a');
    const rb = await store.recordsForRun('run-b');
    expect(ra).toHaveLength(1);
    expect(rb).toHaveLength(1);
    expect(rb[0].record.resps).toEqual(it0.record.resps);
    expect(rb[0].runIds).toEqual(['run-a', 'run-b']);
    expect(rb[0].computedBy).toBe('run-a');
    store.close();
  });

  it('writes the run in the same call as the record', async () => {
    const store = await make();
    const a = await runOf('run-a');
    await store.putRun(a);
    const next = { ...a, counters: { ...a.counters, recordsDone: 1 } };
    await store.putRecord('run-a', await item(a, 'q0', 'deployment'), next);
    expect((await store.getRun('run-a'))?.counters.recordsDone).toBe(1);
    store.close();
  });

  it('writes several records and the run in one call, each stored or linked as putRecord would', async () => {
    const store = await make();
    const a = await runOf('run-a');
    await store.putRun(a);
    const [q0, q1] = [await item(a, 'q0', 'deployment'), await item(a, 'q1', 'deployment')];
    await store.putRecord('run-b', q1);
    const next = { ...a, counters: { ...a.counters, recordsDone: 2 } };
    expect(await store.putRecords('run-a', [q0, q1, q0], next)).toEqual(['stored', 'linked', 'present']);
    expect((await store.recordsForRun('run-a')).map((r) => r.record.doc_id).sort()).toEqual(['q0', 'q1']);
    expect((await store.getRun('run-a'))?.counters.recordsDone).toBe(2);
    store.close();
  });

  it('finds keys by probe range and by run, and lists runs by manifest key', async () => {
    const store = await make();
    const a = await runOf('run-a');
    await store.putRun(a);
    for (const doc of ['q0', 'q1', 'q2']) {
      await store.putRecord('run-a', await item(a, doc, 'deployment'));
      await store.putRecord('run-a', await item(a, doc, 'sampling', 2));
    }
    const scope = await runScope(a.manifest, null);
    const [lo, hi] = probeRange(scope, scope.probeKeys.get('sampling')!);
    const keys = await store.keysInRange(lo, hi);
    // [model, condition, probe key, doc id, doc hash, prompt hash]: no task name in it
    expect(keys).toEqual(
      ['q0', 'q1', 'q2'].map((d) => ['fp-tiny', 'ck-1', scope.probeKeys.get('sampling'), d, `dh-${d}-a`, `ph-${d}-a`]),
    );
    expect(keys.every((k) => k[2].startsWith('sampling:'))).toBe(true);
    expect(await store.keysForRun('run-a')).toHaveLength(6);
    expect((await store.runsByManifestKey(a.manifestKey)).map((r) => r.id)).toEqual(['run-a']);
    expect(await store.runsByManifestKey('other')).toEqual([]);
    store.close();
  });

  it('deletes a run, keeping records another run still uses', async () => {
    const store = await make();
    const a = await runOf('run-a');
    const b = await runOf('run-b');
    await store.putRun(a);
    await store.putRun(b);
    const shared = await item(a, 'q0', 'deployment');
    const own = await item(a, 'q1', 'deployment');
    await store.putRecord('run-a', shared);
    await store.putRecord('run-a', own);
    await store.putRecord('run-b', shared);
    await store.deleteRun('run-a');
    expect(await store.getRun('run-a')).toBeUndefined();
    expect(await store.recordsForRun('run-a')).toEqual([]);
    const left = await store.recordsForRun('run-b');
    expect(left.map((r) => r.key[3])).toEqual(['q0']);
    expect(left[0].runIds).toEqual(['run-b']);
    const scope = await runScope(a.manifest, null);
    const [lo, hi] = probeRange(scope, scope.probeKeys.get('deployment')!);
    expect((await store.keysInRange(lo, hi)).map((k) => k[3])).toEqual(['q0']);
    store.close();
  });

  it('imports a run and its records all or nothing', async () => {
    const store = await make();
    const a = await runOf('run-a');
    const good = [await item(a, 'q0', 'deployment'), await item(a, 'q1', 'deployment')];
    const bad = { ...good[1], key: [...good[1].key.slice(0, 5), { not: 'a key' }] as unknown as typeof good[1]['key'] };
    const err = await store.importRun(a, [good[0], bad], questionsOf(3)).then(() => null, (e: unknown) => e);
    expect(isStoreError(err)).toBe(true);
    expect(await store.getRun('run-a')).toBeUndefined();
    expect(await store.getQuestions('run-a')).toBeUndefined();
    expect(await store.recordsForRun('run-a')).toEqual([]);
    expect(await store.importRun(a, good, questionsOf(3))).toEqual({ stored: 2, linked: 0 });
    expect(await store.recordsForRun('run-a')).toHaveLength(2);
    expect(await store.getQuestions('run-a')).toEqual(questionsOf(3));
    store.close();
  });

  it('links records other runs computed under the same keys, for the questions asked', async () => {
    const store = await make();
    const old = await runOf('old', 3);
    await store.putRun(old);
    for (const doc of ['q0', 'q1', 'q2']) await store.putRecord('old', await item(old, doc, 'deployment'));
    await store.putRecord('old', await item(old, 'q0', 'sampling', 1));
    const next = await runOf('new', 2); // same keys, fewer questions: q0, q1
    await store.putRun(next);
    const scope = await runScope(next.manifest, questionsOf(2));
    const plan = await prepareResume(store, 'new', scope, questionsOf(2));
    expect(plan.newlyReused).toBe(3);
    expect(plan.records.map((r) => `${r.stored.record.probe}/${r.stored.record.doc_id}`).sort()).toEqual(['deployment/q0', 'deployment/q1', 'sampling/q0']);
    expect(plan.records.every((r) => r.reused)).toBe(true);
    const again = await prepareResume(store, 'new', scope, questionsOf(2));
    expect(again.newlyReused).toBe(0);
    expect(again.records).toHaveLength(3);
    store.close();
  });

  it('never links a record of another content that shares a question id', async () => {
    const store = await make();
    const old = await runOf('old', 3);
    await store.putRun(old);
    for (const doc of ['q0', 'q1', 'q2']) await store.putRecord('old', await item(old, doc, 'deployment'));
    // q0 has new text under the same id; q1 is the same question with another prompt; q2 is as before
    const asked = [identity('q0', 'b'), { ...identity('q1'), prompt_hash: 'ph-q1-other-template' }, identity('q2')];
    const next = await runOf('new', 3);
    await store.putRun(next, asked);
    const plan = await prepareResume(store, 'new', await runScope(next.manifest, asked), asked);
    expect(plan.newlyReused).toBe(1);
    expect(plan.records.map((r) => [r.stored.record.doc_id, r.stored.record.doc_hash])).toEqual([['q2', 'dh-q2-a']]);
    expect((await store.recordsForRun('new')).map((r) => r.key[3])).toEqual(['q2']);
    store.close();
  });

  it('keeps a run\'s question list with it and deletes it with the run', async () => {
    const store = await make();
    const a = await runOf('run-a', 2);
    await store.putRun(a, questionsOf(2));
    expect(await store.getQuestions('run-a')).toEqual([identity('q0'), identity('q1')]);
    // a later write of the run alone (counters) leaves the list as it was
    await store.putRun({ ...a, counters: { ...a.counters, recordsDone: 1 } });
    expect(await store.getQuestions('run-a')).toEqual(questionsOf(2));
    await store.deleteRun('run-a');
    expect(await store.getQuestions('run-a')).toBeUndefined();
    store.close();
  });
});

describe('IdbRunStore storage errors', () => {
  it('turns a full quota into StoreError quota-exceeded', async () => {
    const store = await freshIdbStore();
    const a = await runOf('run-a');
    const put = FakeObjectStore.prototype.put;
    FakeObjectStore.prototype.put = function () {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
    try {
      const e = await store.putRecord('run-a', await item(a, 'q0', 'deployment')).then(() => null, (err: unknown) => err);
      expect(isStoreError(e) && (e as StoreError).code).toBe('quota-exceeded');
      expect((e as StoreError).message).toMatch(/storage is full/);
    } finally {
      FakeObjectStore.prototype.put = put;
    }
    expect(await store.recordsForRun('run-a')).toEqual([]);
    store.close();
  });
});

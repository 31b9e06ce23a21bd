import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openReachDb } from './db.ts';
import { isStoreError, StoreError } from './errors.ts';
import { IdbRunStore } from './idb-store.ts';
import { manifestKey, probeKey, type RecordKey } from './keys.ts';
import { DB_VERSION, type StoredRecordV1 } from './schema.ts';
import { makeManifest, makeRecord } from './test-helpers.ts';

async function expectStoreError(p: Promise<unknown>, code: StoreError['code']): Promise<StoreError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(isStoreError(e), `expected a StoreError, got ${String(e)}`).toBe(true);
  expect((e as StoreError).code).toBe(code);
  return e as StoreError;
}

describe('openReachDb', () => {
  it('creates the current schema on a fresh database', async () => {
    const db = await openReachDb({ factory: new IDBFactory() });
    expect(db.version).toBe(DB_VERSION);
    expect([...db.objectStoreNames].sort()).toEqual(['records', 'runs', 'summaries']);
    const tx = db.transaction('records');
    const byRun = tx.store.index('by-run');
    expect(byRun.keyPath).toBe('runIds');
    expect(byRun.multiEntry).toBe(true);
    expect(db.transaction('runs').store.index('by-manifest-key').keyPath).toBe('manifestKey');
    db.close();
  });

  it('upgrades a v1 database with data to the current version without loss', async () => {
    const factory = new IDBFactory();
    const manifest = makeManifest();
    const mk = await manifestKey(manifest);
    const v1 = await openReachDb({ factory, version: 1 });
    expect([...v1.objectStoreNames].sort()).toEqual(['records', 'runs']);
    const run = { id: manifest.id, manifest, manifestKey: mk, counters: { recordsTotal: 10, recordsDone: 2, reused: 0, attemptsComputed: 5, computeMs: 10, interruptions: 0 }, updatedAt: 'x' };
    await v1.put('runs', run);
    const pk = await probeKey(manifest.probes[0]);
    const v1Records: StoredRecordV1[] = [];
    for (const doc of ['q0', 'q1']) {
      const key: RecordKey = ['fp-tiny', 'builtin:arith-2d', 1, 'ck-1', pk, doc];
      v1Records.push({ key, record: await makeRecord(manifest, doc, 'deployment', 0), runId: manifest.id, savedAt: 't' });
    }
    const raw = v1 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    for (const r of v1Records) await raw.put('records', r);
    v1.close();

    const store = await IdbRunStore.open({ factory, keyRange: IDBKeyRange });
    expect(store.db.version).toBe(DB_VERSION);
    expect(await store.getRun(manifest.id)).toEqual(run);
    expect(await store.runsByManifestKey(mk)).toHaveLength(1);
    const records = await store.recordsForRun(manifest.id);
    expect(records.map((r) => r.key)).toEqual(v1Records.map((r) => r.key));
    for (const [i, r] of records.entries()) {
      expect(r.runIds).toEqual([manifest.id]);
      expect(r.computedBy).toBe(manifest.id);
      expect(r.record).toEqual(v1Records[i].record);
      expect('runId' in r).toBe(false);
    }
    // the v2 store exists and works on the upgraded database
    await store.putSummary({ runId: manifest.id, summary: { condition_key: 'ck-1', n: 2, realized: 1, invalid: 0, probes: [] }, recordCount: 2, computedAt: 'now' });
    expect((await store.getSummary(manifest.id))?.recordCount).toBe(2);
    store.close();
  });

  it('says IndexedDB is unavailable when there is no factory', async () => {
    const g = globalThis as { indexedDB?: IDBFactory };
    const saved = g.indexedDB;
    delete g.indexedDB;
    try {
      const e = await expectStoreError(openReachDb(), 'unavailable');
      expect(e.message).toMatch(/in memory/);
    } finally {
      g.indexedDB = saved;
    }
  });

  it('says IndexedDB is unavailable when open throws (private window)', async () => {
    const factory = {
      open() {
        throw new DOMException('A mutation operation was attempted on a database that did not allow mutations.', 'InvalidStateError');
      },
    } as unknown as IDBFactory;
    const e = await expectStoreError(openReachDb({ factory }), 'unavailable');
    expect(e.message).toMatch(/InvalidStateError/);
  });

  it('refuses to open a database newer than the app', async () => {
    const factory = new IDBFactory();
    (await openReachDb({ factory })).close();
    const e = await expectStoreError(openReachDb({ factory, version: 1 }), 'unavailable');
    expect(e.message).toMatch(/newer than this app/);
  });

  it('reports an upgrade blocked by another tab', async () => {
    const factory = new IDBFactory();
    (await openReachDb({ factory, version: 1 })).close();
    // an "old tab" (an app version without the versionchange handler) keeps v1 open
    const old = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = factory.open('reachlab', 1);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const e = await expectStoreError(openReachDb({ factory }), 'blocked');
    expect(e.message).toMatch(/another ReachLab tab/i);
    old.close();
  });

  it('rejects a version outside the known range', async () => {
    await expectStoreError(openReachDb({ factory: new IDBFactory(), version: DB_VERSION + 1 }), 'bad-input');
  });
});

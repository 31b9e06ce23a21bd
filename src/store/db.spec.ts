import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openReachDb } from './db.ts';
import { isStoreError, StoreError } from './errors.ts';
import { IdbRunStore } from './idb-store.ts';
import type { QuestionRecord } from '../audit/types.ts';
import { normalizePlan } from '../audit/study-plan.ts';
import { legacyManifestKey, probeKey, recordKeyOfRecord } from './keys.ts';
import { NO_DECOY, type DecoyFields } from '../audit/decoy.ts';
import { DB_VERSION, type RecordKeyV2, type StoredRecordV1, type StoredRecordV2, type StoredRunV2 } from './schema.ts';
import { condition, makeManifest, makeRecord } from './test-helpers.ts';

/** A record as the previous version wrote it: no stop_reason, selector picks without `blind`, no
 *  decoy control. */
function previousVersion(r: QuestionRecord): QuestionRecord {
  const { stop_reason: _, ...rest } = withoutDecoy(r) as QuestionRecord;
  const out = { ...rest } as QuestionRecord;
  if (r.selectors) out.selectors = Object.fromEntries(Object.entries(r.selectors).map(([k, { blind: _b, ...pick }]) => [k, pick])) as QuestionRecord['selectors'];
  return out;
}

/** A record as versions before the decoy control wrote it. */
function withoutDecoy(r: QuestionRecord): Omit<QuestionRecord, keyof DecoyFields> {
  const { decoy: _d, decoy_first_success: _f, realized_decoy: _r, reachable_decoy: _h, ...rest } = r;
  return rest;
}

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
    expect([...db.objectStoreNames].sort()).toEqual(['questions', 'records', 'runs', 'studies']);
    const tx = db.transaction('records');
    const byRun = tx.store.index('by-run');
    expect(byRun.keyPath).toBe('runIds');
    expect(byRun.multiEntry).toBe(true);
    expect(db.transaction('runs').store.index('by-manifest-key').keyPath).toBe('manifestKey');
    db.close();
  });

  it('creates the v3 questions store and the v4 studies store', async () => {
    const v3 = await openReachDb({ factory: new IDBFactory(), version: 3 });
    expect([...v3.objectStoreNames].sort()).toEqual(['questions', 'records', 'runs', 'summaries']);
    expect(v3.transaction('questions').store.keyPath).toBe('runId');
    v3.close();
    const db = await openReachDb({ factory: new IDBFactory() });
    expect(db.transaction('studies').store.keyPath).toBe('plan_key');
    db.close();
  });

  it('upgrades a v3 database to v4 keeping its runs, and stores studies', async () => {
    const factory = new IDBFactory();
    const v3 = await openReachDb({ factory, version: 3 });
    await v3.put('runs', { id: 'r1', manifest: makeManifest(), manifestKey: 'k', counters: { recordsTotal: 0, recordsDone: 0, reused: 0, attemptsComputed: 0, computeMs: 0, interruptions: 0 }, updatedAt: 't' });
    v3.close();
    const db = await openReachDb({ factory });
    expect((await db.get('runs', 'r1'))?.manifestKey).toBe('k');
    const store = new IdbRunStore(db, IDBKeyRange);
    const study = { plan_key: 'p', plan: normalizePlan({ models: ['m'], tasks: ['builtin:arith-2d'] }), status: 'paused' as const, runs: [], startedAt: 't', updatedAt: 't' };
    await store.putStudy(study);
    expect(await store.getStudy('p')).toEqual(study);
    expect((await store.listStudies()).map((s) => s.plan_key)).toEqual(['p']);
    await store.deleteStudy('p');
    expect(await store.listStudies()).toEqual([]);
    db.close();
  });

  it('upgrades a v1 database with data to the current version: records re-keyed, the run legacy', async () => {
    const factory = new IDBFactory();
    const manifest = makeManifest({ condition: { ...condition, graderVersion: 1 } });
    const mk = await legacyManifestKey(manifest);
    const v1 = await openReachDb({ factory, version: 1 });
    expect([...v1.objectStoreNames].sort()).toEqual(['records', 'runs']);
    const run = { id: manifest.id, manifest, manifestKey: mk, counters: { recordsTotal: 10, recordsDone: 2, reused: 0, attemptsComputed: 5, computeMs: 10, interruptions: 0 }, updatedAt: 'x' };
    const raw = v1 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    await raw.put('runs', run);
    const pk = await probeKey(manifest.probes[0]);
    const v1Records: StoredRecordV1[] = [];
    for (const doc of ['q0', 'q1']) {
      const key: RecordKeyV2 = ['fp-tiny', 'builtin:arith-2d', 1, 'ck-1', pk, doc];
      v1Records.push({ key, record: previousVersion(await makeRecord(manifest, doc, 'deployment', 0)), runId: manifest.id, savedAt: 't' });
    }
    for (const r of v1Records) await raw.put('records', r);
    v1.close();

    const store = await IdbRunStore.open({ factory, keyRange: IDBKeyRange });
    expect(store.db.version).toBe(DB_VERSION);
    expect(await store.getRun(manifest.id)).toEqual({ ...run, manifestKey: `legacy:${mk}`, legacy: true });
    expect(await store.runsByManifestKey(mk)).toEqual([]);
    expect(await store.runsByManifestKey(`legacy:${mk}`)).toHaveLength(1);
    expect(await store.getQuestions(manifest.id)).toBeUndefined();
    const records = await store.recordsForRun(manifest.id);
    // [model, condition, probe key, doc id, doc hash, prompt hash], read off each record
    expect(records.map((r) => r.key)).toEqual([
      ['fp-tiny', 'ck-1', pk, 'q0', 'dh-q0-a', 'ph-q0-a'],
      ['fp-tiny', 'ck-1', pk, 'q1', 'dh-q1-a', 'ph-q1-a'],
    ]);
    for (const [i, r] of records.entries()) {
      expect(r.runIds).toEqual([manifest.id]);
      expect(r.computedBy).toBe(manifest.id);
      // unchanged but for the fields this version added (a deployment record's stop_reason is null;
      // no decoy for answers extracted by grader version 1)
      expect(r.record).toEqual({ ...v1Records[i].record, stop_reason: null, ...NO_DECOY });
      expect('runId' in r).toBe(false);
    }
    store.close();
  });

  it('upgrades a v4 database to v5: each record graded against its decoy under its run’s condition, summaries dropped', async () => {
    const factory = new IDBFactory();
    const known = makeManifest({ id: 'run-known', probes: [{ probe: 'deployment' }, { probe: 'sampling', budget: 4, temperature: 0.6, topP: 0.95, seed: 7 }] }, 2);
    // an imported run whose condition is unknown: its records cannot be graded against a decoy
    const unknown = makeManifest({ id: 'run-unknown', condition: null, condition_key: 'unknown:abc', probes: [{ probe: 'deployment' }] }, 1);
    const v4 = await openReachDb({ factory, version: 4 });
    const counters = { recordsTotal: 2, recordsDone: 2, reused: 0, attemptsComputed: 5, computeMs: 1, interruptions: 0 };
    for (const m of [known, unknown]) await v4.put('runs', { id: m.id, manifest: m, manifestKey: `key-${m.id}`, counters, updatedAt: 't' });
    // as this version computes them; stored without the decoy fields
    const current = [await makeRecord(known, 'q0', 'deployment', null), await makeRecord(known, 'q0', 'sampling', 1), await makeRecord(unknown, 'q1', 'deployment', 0)];
    const raw = v4 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    for (const [i, r] of current.entries()) {
      const runId = i < 2 ? known.id : unknown.id;
      await raw.put('records', { key: recordKeyOfRecord(r), record: withoutDecoy(r), runIds: [runId], computedBy: runId, savedAt: 't' });
    }
    await raw.put('summaries', { runId: known.id, summary: { condition_key: 'ck-1', n: 1, realized: 0, realized_count: 0, invalid: 0, probes: [] }, recordCount: 2, computedAt: 't' });
    v4.close();

    const store = await IdbRunStore.open({ factory, keyRange: IDBKeyRange });
    expect(store.db.version).toBe(DB_VERSION);
    expect([...store.db.objectStoreNames]).not.toContain('summaries');
    const [deployment, sampled] = ['deployment', 'sampling'].map((p) => current.find((r) => r.probe === p && r.doc_id === 'q0')!);
    const migrated = (await store.recordsForRun(known.id)).map((x) => x.record);
    expect(migrated.map((r) => r.probe).sort()).toEqual(['deployment', 'sampling']);
    for (const r of migrated) {
      // the gold is 42 and the engine said 7 or 42: a decoy is within 3 of 42, so never said
      expect(r.decoy).toMatch(/^(39|40|41|43|44|45)$/);
      expect(r.decoy_first_success).toBeNull();
      expect(r).toEqual(r.probe === 'deployment' ? deployment : sampled);
    }
    expect(migrated.find((r) => r.probe === 'deployment')!.realized_decoy).toBe(false);
    expect(migrated.find((r) => r.probe === 'sampling')!.reachable_decoy).toBe(false);
    const [imported] = await store.recordsForRun(unknown.id);
    expect(imported.record).toEqual({ ...withoutDecoy(current[2]), ...NO_DECOY });
    store.close();
  });

  it('upgrades a v5 database to v6: the summaries store goes, runs and records stay', async () => {
    const factory = new IDBFactory();
    const m = makeManifest({ id: 'run-5' }, 1);
    const v5 = await openReachDb({ factory, version: 5 });
    const raw = v5 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    await raw.put('runs', { id: m.id, manifest: m, manifestKey: 'key-5', counters: { recordsTotal: 1, recordsDone: 1, reused: 0, attemptsComputed: 1, computeMs: 1, interruptions: 0 }, updatedAt: 't' });
    const r = await makeRecord(m, 'q0', 'deployment', 0);
    await raw.put('records', { key: recordKeyOfRecord(r), record: r, runIds: [m.id], computedBy: m.id, savedAt: 't' });
    await raw.put('summaries', { runId: m.id, summary: { condition_key: 'ck-1', n: 1, realized: 1, realized_count: 1, invalid: 0, probes: [] }, recordCount: 1, computedAt: 't' });
    v5.close();
    const store = await IdbRunStore.open({ factory, keyRange: IDBKeyRange });
    expect([...store.db.objectStoreNames].sort()).toEqual(['questions', 'records', 'runs', 'studies']);
    expect((await store.getRun(m.id))?.manifestKey).toBe('key-5');
    expect((await store.recordsForRun(m.id)).map((x) => x.record)).toEqual([r]);
    store.close();
  });

  it('upgrades v2 records: one record per content, stop_reason and blind read off the record, summaries dropped', async () => {
    const factory = new IDBFactory();
    const v1cond = { ...condition, graderVersion: 1 };
    const a = makeManifest({ id: 'run-a', condition: v1cond, task: { id: 'file:a.jsonl', version: 1, questions: 1 } }, 1);
    const b = makeManifest({ id: 'run-b', condition: v1cond, task: { id: 'file:b.jsonl', version: 1, questions: 1 } }, 1);
    const v2 = await openReachDb({ factory, version: 2 });
    const raw = v2 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    const counters = { recordsTotal: 2, recordsDone: 1, reused: 0, attemptsComputed: 4, computeMs: 1, interruptions: 0 };
    for (const m of [a, b]) await raw.put('runs', { id: m.id, manifest: m, manifestKey: await legacyManifestKey(m), counters, updatedAt: 't' });
    const spk = await probeKey(a.probes[1]);
    // the same sampling record (same question content) stored by two runs under two task names
    const sampled = await makeRecord(a, 'q0', 'sampling', 2);
    const withPicks = (r: QuestionRecord, sawGold: boolean) =>
      previousVersion({
        ...r,
        selection_saw_gold: sawGold,
        selectors: {
          majority: { extracted: '7', correct: false, blind: true, attempt: 0 },
          'fixed-route': { extracted: '42', correct: true, blind: true, attempt: null, route: [1, 0] },
        },
      });
    const first = withPicks({ ...sampled, task_id: 'file:a.jsonl' }, false);
    const second = withPicks({ ...sampled, task_id: 'file:b.jsonl', resps: ['written second'] }, false);
    const truncated = previousVersion({ ...(await makeRecord(a, 'q1', 'sampling', null)), attempts: sampled.attempts.slice(0, 3).map((x) => ({ ...x, meanLogprob: NaN })) });
    const rows: StoredRecordV2[] = [
      { key: ['fp-tiny', 'file:a.jsonl', 1, 'ck-1', spk, 'q0'], record: first, runIds: ['run-a'], computedBy: 'run-a', savedAt: 't1' },
      { key: ['fp-tiny', 'file:b.jsonl', 1, 'ck-1', spk, 'q0'], record: second, runIds: ['run-b'], computedBy: 'run-b', savedAt: 't2' },
      { key: ['fp-tiny', 'file:a.jsonl', 1, 'ck-1', spk, 'q1'], record: truncated, runIds: ['run-a'], computedBy: 'run-a', savedAt: 't3' },
    ];
    for (const r of rows) await raw.put('records', r);
    await raw.put('summaries', { runId: 'run-a', summary: { condition_key: 'ck-1', n: 1, realized: 0, invalid: 0, probes: [{ selectors: { majority: 0 } }] }, recordCount: 1, computedAt: 't' });
    v2.close();

    const store = await IdbRunStore.open({ factory, keyRange: IDBKeyRange });
    expect([...store.db.objectStoreNames]).not.toContain('summaries');
    expect((await store.listRuns()).map((r) => [r.id, r.legacy, r.manifestKey.startsWith('legacy:')])).toEqual([
      ['run-a', true, true],
      ['run-b', true, true],
    ]);
    const shared = await store.recordsForRun('run-b');
    expect(shared).toHaveLength(1);
    // the first in old key order ('file:a.jsonl' < 'file:b.jsonl') is kept, linked to both runs
    expect(shared[0]).toMatchObject({ key: ['fp-tiny', 'ck-1', spk, 'q0', 'dh-q0-a', 'ph-q0-a'], runIds: ['run-a', 'run-b'], computedBy: 'run-a', savedAt: 't1' });
    expect(shared[0].record.resps).toEqual(first.resps);
    // 4 attempts of a budget of 4: 'budget'; majority over attempts not chosen on gold: blind
    expect(shared[0].record.stop_reason).toBe('budget');
    expect(shared[0].record.selectors).toEqual({
      majority: { extracted: '7', correct: false, blind: true, attempt: 0 },
      'fixed-route': { extracted: '42', correct: true, blind: true, attempt: null, route: [1, 0] },
    });
    const short = (await store.recordsForRun('run-a')).find((r) => r.record.doc_id === 'q1')!.record;
    // 3 attempts of 4: the previous version did not say why (a cap or an exhausted space)
    expect(short.stop_reason).toBeNull();
    expect(short.attempts.map((x) => x.meanLogprob)).toEqual([null, null, null]);
    store.close();
  });

  it('marks majority over gold-guided attempts not blind when it migrates them', async () => {
    const factory = new IDBFactory();
    const m = makeManifest({ condition: { ...condition, graderVersion: 1 } }, 1);
    const v2 = await openReachDb({ factory, version: 2 });
    const raw = v2 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    await raw.put('runs', { id: m.id, manifest: m, manifestKey: await legacyManifestKey(m), counters: { recordsTotal: 2, recordsDone: 1, reused: 0, attemptsComputed: 4, computeMs: 1, interruptions: 0 }, updatedAt: 't' });
    const r = previousVersion({ ...(await makeRecord(m, 'q0', 'sampling', 1)), selection_saw_gold: true, selectors: { 'max-logprob': { extracted: '42', correct: true, blind: true, attempt: 1 } } });
    await raw.put('records', { key: ['fp-tiny', 'builtin:arith-2d', 1, 'ck-1', r.probe_key, 'q0'], record: r, runIds: [m.id], computedBy: m.id, savedAt: 't' });
    v2.close();
    const store = await IdbRunStore.open({ factory, keyRange: IDBKeyRange });
    const [stored] = await store.recordsForRun(m.id);
    expect(stored.record.selectors).toEqual({ 'max-logprob': { extracted: '42', correct: true, blind: false, attempt: 1 } });
    store.close();
  });

  it('leaves a v2 database as it was when a record cannot be re-keyed, and says so', async () => {
    const factory = new IDBFactory();
    const m = makeManifest({}, 1);
    const v2 = await openReachDb({ factory, version: 2 });
    const raw = v2 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    await raw.put('runs', { id: m.id, manifest: m, manifestKey: 'old-key', counters: { recordsTotal: 2, recordsDone: 1, reused: 0, attemptsComputed: 1, computeMs: 1, interruptions: 0 }, updatedAt: 't' });
    const broken = previousVersion(await makeRecord(m, 'q0', 'deployment', 0)) as Partial<QuestionRecord>;
    delete broken.doc_hash;
    await raw.put('records', { key: ['fp-tiny', 'builtin:arith-2d', 1, 'ck-1', 'deployment:x', 'q0'], record: broken, runIds: [m.id], computedBy: m.id, savedAt: 't' });
    v2.close();
    const e = await expectStoreError(openReachDb({ factory }), 'unavailable');
    expect(e.message).toMatch(/^Upgrading the stored runs to this app version failed \(record .* lacks a model, condition, probe, doc id or hash\); nothing was changed/);
    const again = await openReachDb({ factory, version: 2 });
    expect(again.version).toBe(2);
    const runs = (await (again as unknown as { getAll(s: string): Promise<StoredRunV2[]> }).getAll('runs'));
    expect(runs.map((r) => [r.id, r.manifestKey])).toEqual([[m.id, 'old-key']]);
    expect(await (again as unknown as { count(s: string): Promise<number> }).count('records')).toBe(1);
    again.close();
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

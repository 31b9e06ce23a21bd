import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { isStoreError, StoreError } from './errors.ts';
import { IdbRunStore } from './idb-store.ts';
import { keyId } from './records.ts';
import { RunController, type RunEvent, type RunRequest } from './run-controller.ts';
import type { RunProgress } from './progress.ts';
import type { RunStore } from './store.ts';
import { InProcessLocks, ProgressChannel, TabLocks } from './tab-lock.ts';
import { probeKey } from '../audit/condition.ts';
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import { legacyRun } from './legacy.ts';
import { legacyManifestKey, recordKeyOfRecord } from './keys.ts';
import { LEGACY_RUN_MESSAGE } from './schema.ts';
import { CountingEngine, fakeAudit, freshIdbStore, identity, makeManifest, makeRecord, questionsOf, type FakeAuditInput } from './test-helpers.ts';
import { AuditError } from '../audit/errors.ts';
import { errorOfRunFailure } from './run-failure.ts';

/** A run of `questions` questions q0.. whose content is `content` (another content: other hashes). */
function request(questions = 5, over: Parameters<typeof makeManifest>[0] = {}, content = 'a'): RunRequest<FakeAuditInput> {
  const manifest = makeManifest(over, questions);
  const qs = questionsOf(questions, content);
  return { manifest, questions: qs, input: { manifest, questions: qs } };
}

function controller(store: RunStore, engine: CountingEngine, locks = new TabLocks(new InProcessLocks()), channel?: ProgressChannel) {
  const events: RunEvent[] = [];
  const c = new RunController<FakeAuditInput>({
    store,
    engine,
    audit: fakeAudit,
    locks,
    channel,
    now: engine.now,
  });
  c.subscribe((e) => events.push(e));
  const progress = () => events.filter((e): e is Extract<RunEvent, { type: 'progress' }> => e.type === 'progress').map((e) => e.progress);
  return { c, events, progress };
}

async function expectUniqueComplete(store: RunStore, runId: string, units: number) {
  const records = await store.recordsForRun(runId);
  expect(records).toHaveLength(units);
  expect(new Set(records.map((r) => keyId(r.key))).size).toBe(units);
}

describe('RunController', () => {
  it('runs an audit to the end, one stored record per unit, with progress and a summary', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c, progress } = controller(store, engine);
    const req = request(5);
    await c.start(req);
    await c.idle();
    const run = await store.getRun(req.manifest.id);
    expect(run?.manifest.status).toBe('finished');
    expect(run?.manifest.finishedAt).toBeTruthy();
    expect(engine.calls).toBe(10);
    await expectUniqueComplete(store, req.manifest.id, 10);
    const last = progress().at(-1)!;
    expect(last).toMatchObject({ recordsDone: 10, recordsTotal: 10, questionsDone: 5, questionsTotal: 5, reused: 0, currentDocId: null, storage: 'indexeddb' });
    // 5 deployment attempts + 5 × 4 sampling attempts over 10 fake seconds
    expect(last.attemptsDone).toBe(25);
    expect(last.attemptsPerSec).toBeCloseTo(2.5, 10);
    expect(last.etaSec).toBe(0);
    // mid-run: after the first record, 9 remain at 1 s each
    const first = progress().find((p) => p.recordsDone === 1)!;
    expect(first.etaSec).toBeCloseTo(9, 10);
    expect([first.currentProbe, first.currentDocId]).toEqual(['deployment', 'q1']);
    const sixth = progress().find((p) => p.recordsDone === 6)!;
    expect([sixth.currentProbe, sixth.currentDocId]).toEqual(['sampling', 'q1']);
    expect(run?.counters).toMatchObject({ recordsDone: 10, attemptsComputed: 25, reused: 0, computeMs: 10_000 });
  });

  it('writes the records that complete while a write is in flight together, in one transaction, and every one of them', async () => {
    const store = await freshIdbStore();
    const batches: number[] = [];
    let gate: Promise<void> = Promise.resolve();
    const slow = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'putRecords') {
          return async (...args: Parameters<RunStore['putRecords']>) => {
            batches.push(args[1].length);
            await gate;
            return target.putRecords(...args);
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    let open = () => {};
    gate = new Promise((resolve) => (open = resolve));
    const engine = new CountingEngine();
    const { c, progress } = controller(slow, engine);
    const req = request(5);
    await c.start(req);
    // the first record's write is held: the audit goes on, and the progress counts each record
    await expect.poll(() => progress().at(-1)?.recordsDone).toBe(10);
    expect(batches).toEqual([1]);
    open();
    await c.idle();
    expect(batches).toEqual([1, 9]);
    await expectUniqueComplete(store, req.manifest.id, 10);
    expect((await store.getRun(req.manifest.id))?.counters).toMatchObject({ recordsDone: 10, attemptsComputed: 25 });
  });

  it('passes the audit progress within a question on, and clears it when the run ends', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const events: RunEvent[] = [];
    const c = new RunController<FakeAuditInput>({
      store,
      engine,
      audit: async (e, call) => {
        for (const done of [64, 128, 192]) call.onAttempts?.({ probe: 'sampling', questions: 1, done, of: 3000 });
        return fakeAudit(e, call);
      },
      now: engine.now,
    });
    c.subscribe((ev) => events.push(ev));
    await c.start(request(2));
    await c.idle();
    const progress = events.flatMap((ev) => (ev.type === 'progress' ? [ev.progress] : []));
    expect(progress.map((p) => p.inFlight?.attemptsDone).filter((x) => x !== undefined && x !== null)).toEqual([64, 128, 192, 192, 192, 192, 192]);
    expect(progress.find((p) => p.inFlight)?.inFlight).toEqual({ probe: 'sampling', questions: 1, attemptsDone: 64, attemptsOf: 3000 });
    expect(progress.at(-1)?.inFlight).toBeNull();
  });

  it('marks a run interrupted on a lost device and resumes on a fresh engine with nothing recomputed', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    engine.failAt = { call: 4, code: 'device-lost' };
    const { c } = controller(store, engine);
    const req = request(5);
    await c.start(req);
    await c.idle();
    const run = await store.getRun(req.manifest.id);
    expect(run?.manifest.status).toBe('interrupted');
    expect(run?.counters.lastError).toMatch(/device-lost/);
    expect(run?.counters.interruptions).toBe(1);
    expect(await store.recordsForRun(req.manifest.id)).toHaveLength(3);

    const fresh = new CountingEngine();
    c.setEngine(fresh);
    await c.resume(req.manifest.id);
    await c.idle();
    expect((await store.getRun(req.manifest.id))?.manifest.status).toBe('finished');
    expect(fresh.calls).toBe(7);
    await expectUniqueComplete(store, req.manifest.id, 10);
  });

  it('after a worker crash and a reload, the stale run is interrupted and resumes under its id', async () => {
    const factory = new IDBFactory();
    const tab1Store = await freshIdbStore(factory);
    const crashing = new CountingEngine();
    // the engine dies at the 6th call and the tab goes with it: the run is left "running"
    crashing.hold();
    const req = request(5);
    const tab1 = controller(tab1Store, crashing);
    let held = 0;
    crashing.onHeld = () => {
      if (++held < 6) crashing.release(), crashing.hold();
    };
    await tab1.c.start(req);
    await new Promise<void>((resolve) => {
      const t = setInterval(async () => {
        if ((await tab1Store.recordsForRun(req.manifest.id)).length === 5) clearInterval(t), resolve();
      }, 5);
    });
    expect((await tab1Store.getRun(req.manifest.id))?.manifest.status).toBe('running');
    tab1Store.close(); // the tab is gone; its lock went with it

    const tab2Store = await IdbRunStore.open({ factory, keyRange: (await import('fake-indexeddb')).IDBKeyRange });
    const engine = new CountingEngine();
    const tab2 = controller(tab2Store, engine);
    const stale = await tab2.c.recoverInterrupted();
    expect(stale.map((r) => [r.id, r.manifest.status])).toEqual([[req.manifest.id, 'interrupted']]);
    const again = request(5, { id: 'a-new-id-from-the-form', startedAt: '2026-02-02T00:00:00.000Z' });
    const resumed = await tab2.c.start(again);
    expect(resumed.id).toBe(req.manifest.id);
    await tab2.c.idle();
    expect(engine.calls).toBe(5);
    await expectUniqueComplete(tab2Store, req.manifest.id, 10);
    expect((await tab2Store.getRun(req.manifest.id))?.manifest.status).toBe('finished');
    expect(await tab2Store.getRun('a-new-id-from-the-form')).toBeUndefined();
  });

  it('pauses mid-question (cancelling the engine call) and resumes without recomputing', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c } = controller(store, engine);
    const req = request(4);
    let n = 0;
    engine.onHeld = () => {
      if (++n === 3) void c.pause(req.manifest.id);
      else engine.release(), engine.hold();
    };
    engine.hold();
    await c.start(req);
    await c.idle();
    expect((await store.getRun(req.manifest.id))?.manifest.status).toBe('paused');
    expect(engine.cancels).toBe(1);
    expect(await store.recordsForRun(req.manifest.id)).toHaveLength(2);
    engine.onHeld = null;
    const before = engine.calls;
    await c.resume(req.manifest.id);
    await c.idle();
    expect((await store.getRun(req.manifest.id))?.manifest.status).toBe('finished');
    // 8 units: 2 stored before the pause, the paused one recomputed, 5 more
    expect(engine.calls - before).toBe(6);
    await expectUniqueComplete(store, req.manifest.id, 8);
  });

  it('queues runs, and cancels a queued run without running it', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c } = controller(store, engine);
    const a = request(2, { id: 'a' });
    const b = request(3, { id: 'b', condition_key: 'ck-2' });
    const d = request(1, { id: 'd', condition_key: 'ck-3' });
    // a's first engine call waits at the gate, so b is still queued when it is cancelled
    engine.hold();
    await c.start(a);
    await c.start(b);
    await c.start(d);
    await c.cancel('b');
    engine.release();
    await c.idle();
    expect((await store.getRun('a'))?.manifest.status).toBe('finished');
    expect((await store.getRun('b'))?.manifest.status).toBe('cancelled');
    expect((await store.getRun('d'))?.manifest.status).toBe('finished');
    expect(engine.calls).toBe(6);
  });

  it('reuses records another run computed under the same keys and says how many', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c, progress } = controller(store, engine);
    await c.start(request(3, { id: 'small' }));
    await c.idle();
    expect(engine.calls).toBe(6);
    const big = request(5, { id: 'big' });
    await c.start(big);
    await c.idle();
    expect(engine.calls).toBe(6 + 4);
    const last = progress().filter((p) => p.runId === 'big').at(-1)!;
    expect(last).toMatchObject({ recordsDone: 10, reused: 6, questionsDone: 5 });
    expect((await store.getRun('big'))?.counters).toMatchObject({ reused: 6, attemptsComputed: 10 });
    await expectUniqueComplete(store, 'big', 10);
    // the shared records are stored once
    expect(await store.recordsForRun('small')).toHaveLength(6);
  });

  it('does not run the same manifest twice; a finished run is returned as it is', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c } = controller(store, engine);
    const req = request(2);
    const first = await c.start(req);
    const second = await c.start(req);
    expect(second.id).toBe(first.id);
    await c.idle();
    const third = await c.start(request(2, { id: 'other-id' }));
    expect(third.id).toBe(first.id);
    expect(third.manifest.status).toBe('finished');
    await c.idle();
    expect(engine.calls).toBe(4);
  });

  it('refuses a second start in another tab, which sees the progress live', async () => {
    const shared = new InProcessLocks(); // one browser profile: one lock manager
    const factory = new IDBFactory();
    const storeA = await freshIdbStore(factory);
    const storeB = await IdbRunStore.open({ factory, keyRange: (await import('fake-indexeddb')).IDBKeyRange });
    const engineA = new CountingEngine();
    const channelA = new ProgressChannel();
    const channelB = new ProgressChannel();
    const seenByB: RunProgress[] = [];
    const unsubscribe = channelB.subscribe((p) => seenByB.push(p));
    const tabA = controller(storeA, engineA, new TabLocks(shared), channelA);
    const tabB = controller(storeB, new CountingEngine(), new TabLocks(shared), channelB);
    const req = request(3);
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    let n = 0;
    engineA.onHeld = () => {
      if (++n === 3) reached();
      else engineA.release(), engineA.hold();
    };
    engineA.hold();
    await tabA.c.start(req);
    await atGate;
    const refused = await tabB.c.start(req).then(() => null, (e: unknown) => e);
    expect(isStoreError(refused) && (refused as StoreError).code).toBe('locked');
    expect((refused as StoreError).message).toMatch(/already running in another tab/);
    // B does not mark A's live run as interrupted either
    expect(await tabB.c.recoverInterrupted()).toEqual([]);
    engineA.onHeld = null;
    engineA.release();
    await tabA.c.idle();
    await new Promise((r) => setTimeout(r, 20)); // BroadcastChannel delivers asynchronously
    expect(seenByB.length).toBeGreaterThan(0);
    expect(seenByB.at(-1)).toMatchObject({ runId: req.manifest.id, status: 'finished', recordsDone: 6 });
    expect(seenByB.some((p) => p.status === 'running' && p.recordsDone === 2)).toBe(true);
    unsubscribe();
    channelA.close();
    channelB.close();
    // once A is done, B may run it: it is finished, nothing to compute
    expect((await tabB.c.start(req)).manifest.status).toBe('finished');
  });

  it('falls back to memory when the quota is full and finishes the run there', async () => {
    const idb = await freshIdbStore();
    let puts = 0;
    const full = new Proxy(idb, {
      get(target, prop, receiver) {
        if (prop === 'putRecords') {
          return (...args: Parameters<RunStore['putRecords']>) =>
            (puts += args[1].length) > 3 ? Promise.reject(new StoreError('quota-exceeded', 'Browser storage is full')) : target.putRecords(...args);
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const engine = new CountingEngine();
    const { c, events, progress } = controller(full, engine);
    const req = request(4);
    await c.start(req);
    await c.idle();
    expect(c.store.kind).toBe('memory');
    expect(events.some((e) => e.type === 'storage-fallback')).toBe(true);
    expect((await c.store.getRun(req.manifest.id))?.manifest.status).toBe('finished');
    await expectUniqueComplete(c.store, req.manifest.id, 8);
    expect(engine.calls).toBe(8);
    expect(progress().at(-1)?.storage).toBe('memory');
  });

  it('fails a run on an audit error and on a record of another condition', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const boom = new RunController<FakeAuditInput>({
      store,
      engine,
      locks: new TabLocks(new InProcessLocks()),
      audit: async () => {
        throw new Error('grader exploded');
      },
    });
    const req = request(2);
    await boom.start(req);
    await boom.idle();
    const run = await store.getRun(req.manifest.id);
    expect(run?.manifest.status).toBe('failed');
    expect(run?.counters.lastError).toBe('grader exploded');

    const wrong = new RunController<FakeAuditInput>({
      store,
      engine,
      locks: new TabLocks(new InProcessLocks()),
      audit: (e, call) => fakeAudit(e, { ...call, input: { ...call.input, manifest: { ...call.input.manifest, condition_key: 'ck-other' } } }),
    });
    const req2 = request(2, { id: 'r2', condition_key: 'ck-9' });
    await wrong.start(req2);
    await wrong.idle();
    const run2 = await store.getRun('r2');
    expect(run2?.manifest.status).toBe('failed');
    expect(run2?.counters.lastError).toMatch(/does not belong to this run/);
    expect(await store.recordsForRun('r2')).toEqual([]);
  });

  it('a failed run says what kind of error stopped it, so an input problem stays one', async () => {
    const store = await freshIdbStore();
    const events: RunEvent[] = [];
    const c = new RunController<FakeAuditInput>({
      store,
      engine: new CountingEngine(),
      locks: new TabLocks(new InProcessLocks()),
      audit: async () => {
        throw new AuditError('bad-task', 'question "q1" (row 3 of "mine.jsonl"): its prompt encodes to no tokens');
      },
    });
    c.subscribe((e) => events.push(e));
    const req = request(2);
    await c.start(req);
    await c.idle();
    const last = events.filter((e) => e.type === 'progress').at(-1);
    expect(last?.type === 'progress' && last.progress).toMatchObject({ status: 'failed', failure: { kind: 'audit', code: 'bad-task' } });
    expect(events.find((e) => e.type === 'status' && e.run.manifest.status === 'failed')).toMatchObject({ failure: { kind: 'audit', code: 'bad-task' } });
    const again = errorOfRunFailure({ kind: 'audit', code: 'bad-task' }, 'm');
    expect(again).toBeInstanceOf(AuditError);
    expect(again).toMatchObject({ code: 'bad-task', message: 'm' });
  });

  it('rejects a request whose question count disagrees with the manifest, or that lacks hashes', async () => {
    const { c } = controller(await freshIdbStore(), new CountingEngine());
    const req = request(3);
    const e = await c.start({ ...req, questions: [identity('q0')] }).then(() => null, (err: unknown) => err);
    expect(isStoreError(e) && (e as StoreError).code).toBe('bad-input');
    expect((e as StoreError).message).toBe('run run-1: 1 questions given, the manifest says 3');
    const noHash = await c.start({ ...req, questions: [identity('q0'), identity('q1'), { ...identity('q2'), doc_hash: '' }] }).then(() => null, (err: unknown) => err);
    expect((noHash as StoreError).message).toBe('run run-1: question q2 lacks its doc_hash or prompt_hash');
  });

  it('keys the run by the audit core\'s run key over model, condition, probes and questions', async () => {
    const store = await freshIdbStore();
    const { c } = controller(store, new CountingEngine());
    const req = request(2);
    const run = await c.start(req);
    await c.idle();
    // the expected key, computed independently from its definition (condition.ts runKey)
    const probeKeys = await Promise.all(req.manifest.probes.map((p) => probeKey(p)));
    const expected = await sha256Hex(
      canonicalJson({ model: 'fp-tiny', condition_key: 'ck-1', probes: probeKeys, questions: [['q0', 'dh-q0-a', 'ph-q0-a'], ['q1', 'dh-q1-a', 'ph-q1-a']] }),
    );
    expect(run.manifestKey).toBe(expected);
    expect(await store.getQuestions(run.id)).toEqual(req.questions);
  });

  it('recomputes a question whose content changed under the same id and file name: its own run, its own records', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c, progress } = controller(store, engine);
    // two files, both named alike, both numbering their questions q0..q2, with other contents
    const first = await c.start(request(3, { id: 'first' }, 'a'));
    await c.idle();
    expect(engine.calls).toBe(6);
    const second = await c.start(request(3, { id: 'second' }, 'b'));
    await c.idle();
    expect(second.id).toBe('second');
    expect(second.manifestKey).not.toBe(first.manifestKey);
    // 3 questions × (deployment + sampling), none reused
    expect(engine.calls).toBe(12);
    expect(progress().filter((p) => p.runId === 'second').at(-1)).toMatchObject({ recordsDone: 6, reused: 0 });
    const own = await store.recordsForRun('second');
    expect(own.map((r) => r.record.doc_hash).sort()).toEqual(['dh-q0-b', 'dh-q0-b', 'dh-q1-b', 'dh-q1-b', 'dh-q2-b', 'dh-q2-b']);
    expect(own.every((r) => r.runIds.length === 1 && r.computedBy === 'second')).toBe(true);
    const theirs = await store.recordsForRun('first');
    expect(theirs.map((r) => r.record.doc_hash).sort()).toEqual(['dh-q0-a', 'dh-q0-a', 'dh-q1-a', 'dh-q1-a', 'dh-q2-a', 'dh-q2-a']);
  });

  it('finds the same questions under another task name to be the same run', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c } = controller(store, engine);
    await c.start(request(3, { id: 'named' }));
    await c.idle();
    const renamed = await c.start(request(3, { id: 'renamed', task: { id: 'file:other-name.jsonl', version: 7, questions: 3 } }));
    await c.idle();
    expect(renamed.id).toBe('named');
    expect(renamed.manifest.status).toBe('finished');
    expect(engine.calls).toBe(6);
    expect(await store.getRun('renamed')).toBeUndefined();
  });

  it('refuses a new run under an id a run of other questions already has', async () => {
    const store = await freshIdbStore();
    const { c } = controller(store, new CountingEngine());
    await c.start(request(2, { id: 'same-id' }));
    await c.idle();
    const e = await c.start(request(2, { id: 'same-id' }, 'b')).then(() => null, (err: unknown) => err);
    expect((e as StoreError).code).toBe('bad-input');
    expect((e as StoreError).message).toMatch(/^a run with id same-id is already stored for other settings or questions/);
    expect(await store.getQuestions('same-id')).toEqual(questionsOf(2, 'a'));
  });

  it('never resumes a legacy run: resume says why, start makes a new run, recovery marks it', async () => {
    const store = await freshIdbStore();
    const engine = new CountingEngine();
    const { c } = controller(store, engine);
    // a run the previous version left running, with one record of its own; its condition key is
    // a grader-version-1 key, which no condition of this version hashes to
    const manifest = makeManifest({ id: 'old', status: 'running', condition: { ...makeManifest().condition!, graderVersion: 1 }, condition_key: 'ck-grader-1' }, 2);
    const old = legacyRun({ id: 'old', manifest, manifestKey: await legacyManifestKey(manifest), counters: { recordsTotal: 4, recordsDone: 1, reused: 0, attemptsComputed: 1, computeMs: 5, interruptions: 0 }, updatedAt: 't' });
    expect(old.manifestKey).toBe(`legacy:${await legacyManifestKey(manifest)}`);
    expect(old.legacy).toBe(true);
    await store.putRun(old);
    const record = await makeRecord(manifest, 'q0', 'deployment', 0);
    await store.putRecord('old', { key: recordKeyOfRecord(record), record });
    const recovered = await c.recoverInterrupted();
    expect(recovered.map((r) => [r.id, r.manifest.status, r.counters.lastError])).toEqual([['old', 'interrupted', LEGACY_RUN_MESSAGE]]);
    const refused = await c.resume('old').then(() => null, (e: unknown) => e);
    expect((refused as StoreError).code).toBe('legacy');
    expect((refused as StoreError).message).toBe(LEGACY_RUN_MESSAGE);
    expect(LEGACY_RUN_MESSAGE).toMatch(/made by an earlier version whose keys ignored question content/);
    expect(LEGACY_RUN_MESSAGE).toMatch(/Start the audit again\.$/);
    // the same questions and probes under this version's condition: a new run, all computed
    const fresh = await c.start(request(2, { id: 'new', startedAt: '2026-03-03T00:00:00.000Z' }));
    expect(fresh.id).toBe('new');
    await c.idle();
    expect(engine.calls).toBe(4);
    expect((await store.getRun('new'))?.counters).toMatchObject({ recordsDone: 4, reused: 0 });
    expect((await store.recordsForRun('old')).map((r) => r.runIds)).toEqual([['old']]);
    expect((await store.getRun('old'))?.manifest.status).toBe('interrupted');
    expect((await store.getRun('new'))?.manifest.status).toBe('finished');
  });
});

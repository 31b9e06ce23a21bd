// RunStore over IndexedDB (idb). Each method is one transaction; a failure inside a readwrite
// transaction aborts it (nothing of it is written); raw DOM failures become StoreErrors
// (quota-exceeded in particular, so the controller can fall back to memory).

import type { IDBPObjectStore, IDBPTransaction, StoreNames } from 'idb';
import type { QuestionIdentity } from '../audit/condition.ts';
import { openReachDb, type OpenOptions, type ReachDb } from './db.ts';
import { StoreError, toStoreError } from './errors.ts';
import type { RecordKey } from './keys.ts';
import { keyId, latestRun, withoutImported } from './records.ts';
import type { ReachDB, StoredRecord, StoredRun, StoredStudy } from './schema.ts';
import type { ImportRunOptions, PutOutcome, RecordItem, RunStore } from './store.ts';

type WriteTx<S extends StoreNames<ReachDB>> = IDBPTransaction<ReachDB, S[], 'readwrite'>;

export class IdbRunStore implements RunStore {
  readonly kind = 'indexeddb' as const;
  constructor(
    readonly db: ReachDb,
    /** IDBKeyRange of the same implementation as the factory (a fake factory brings its own). */
    private readonly keyRange: typeof IDBKeyRange,
  ) {}

  static async open(opts: OpenOptions & { keyRange?: typeof IDBKeyRange } = {}): Promise<IdbRunStore> {
    const keyRange = opts.keyRange ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange;
    const db = await openReachDb(opts);
    if (!keyRange) {
      db.close();
      throw new StoreError('unavailable', 'IDBKeyRange is missing although IndexedDB opened; pass the keyRange of the factory in use.');
    }
    return new IdbRunStore(db, keyRange);
  }

  putRun(run: StoredRun, questions?: QuestionIdentity[]): Promise<void> {
    if (!questions) return this.read(`saving run ${run.id}`, async () => void (await this.db.put('runs', run)));
    return this.write(`saving run ${run.id}`, ['runs', 'questions'], async (tx) => {
      await tx.objectStore('questions').put({ runId: run.id, questions });
      await tx.objectStore('runs').put(run);
    });
  }

  createRun(run: StoredRun, questions: QuestionIdentity[], reuse: (r: StoredRun) => boolean): Promise<StoredRun> {
    return this.write(`creating run ${run.id}`, ['runs', 'questions'], async (tx) => {
      const runs = tx.objectStore('runs');
      const existing = latestRun((await runs.index('by-manifest-key').getAll(run.manifestKey)).filter(reuse));
      if (existing) return existing;
      await tx.objectStore('questions').put({ runId: run.id, questions });
      await runs.put(run);
      return run;
    });
  }

  async getQuestions(runId: string): Promise<QuestionIdentity[] | undefined> {
    return (await this.read(`reading the questions of run ${runId}`, () => this.db.get('questions', runId)))?.questions;
  }

  getRun(id: string): Promise<StoredRun | undefined> {
    return this.read(`reading run ${id}`, () => this.db.get('runs', id));
  }

  listRuns(): Promise<StoredRun[]> {
    return this.read('listing runs', () => this.db.getAll('runs'));
  }

  runsByManifestKey(manifestKey: string): Promise<StoredRun[]> {
    return this.read('looking up runs', () => this.db.getAllFromIndex('runs', 'by-manifest-key', manifestKey));
  }

  deleteRun(id: string): Promise<void> {
    return this.write(`deleting run ${id}`, ['runs', 'records', 'questions'], async (tx) => {
      const records = tx.objectStore('records');
      const lost = new Map<string, number>();
      for (let c = await records.index('by-run').openCursor(id); c; c = await c.continue()) {
        const next = afterDelete(c.value, id, lost);
        if (next) await c.update(next);
        else await c.delete();
      }
      const runs = tx.objectStore('runs');
      const file = (await runs.get(id))?.manifest.imported?.file ?? 'the deleted import';
      for (const [other, n] of lost) {
        const run = await runs.get(other);
        if (run) await runs.put(withoutImported(run, n, file));
      }
      await tx.objectStore('questions').delete(id);
      await runs.delete(id);
    });
  }

  putRecord(runId: string, item: RecordItem, run?: StoredRun): Promise<PutOutcome> {
    return this.write(`saving record ${item.record.doc_id}/${item.record.probe}`, ['records', 'runs'], async (tx) => {
      const outcome = await putOrLink(tx.objectStore('records'), runId, item);
      if (run) await tx.objectStore('runs').put(run);
      return outcome;
    });
  }

  /** Its requests issued a batch at a time, as importRun's: one round trip per batch, not per record. */
  putRecords(runId: string, items: RecordItem[], run?: StoredRun): Promise<PutOutcome[]> {
    return this.write(`saving ${items.length} records`, ['records', 'runs'], async (tx) => {
      const records = tx.objectStore('records');
      const out: PutOutcome[] = [];
      for (const batch of batches(items)) {
        const existing = await all(batch.map((item) => () => records.get(item.key)));
        const values: StoredRecord[] = [];
        for (const [i, item] of batch.entries()) {
          const { value, outcome } = placed(existing[i], runId, item);
          if (value) values.push(value);
          out.push(outcome);
        }
        await all(values.map((v) => () => records.put(v)));
      }
      if (run) await tx.objectStore('runs').put(run);
      return out;
    });
  }

  linkRecords(runId: string, keys: RecordKey[], run?: StoredRun): Promise<number> {
    return this.write(`linking ${keys.length} reused records`, ['records', 'runs'], async (tx) => {
      const records = tx.objectStore('records');
      let linked = 0;
      for (const key of keys) {
        const existing = await records.get(key);
        if (existing && !existing.runIds.includes(runId)) {
          await records.put({ ...existing, runIds: [...existing.runIds, runId] });
          linked++;
        }
      }
      if (run) await tx.objectStore('runs').put(run);
      return linked;
    });
  }

  keysInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<RecordKey[]> {
    return this.read('reading record keys', () => this.db.getAllKeys('records', this.keyRange.bound(lower, upper)));
  }

  recordsInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<StoredRecord[]> {
    return this.read('reading records', () => this.db.getAll('records', this.keyRange.bound(lower, upper)));
  }

  keysForRun(runId: string): Promise<RecordKey[]> {
    return this.read(`reading keys of run ${runId}`, () => this.db.getAllKeysFromIndex('records', 'by-run', runId));
  }

  recordsForRun(runId: string): Promise<StoredRecord[]> {
    return this.read(`reading records of run ${runId}`, () => this.db.getAllFromIndex('records', 'by-run', runId));
  }

  putStudy(study: StoredStudy): Promise<void> {
    return this.read(`saving study ${study.plan.name}`, async () => void (await this.db.put('studies', study)));
  }

  getStudy(planKey: string): Promise<StoredStudy | undefined> {
    return this.read(`reading study ${planKey}`, () => this.db.get('studies', planKey));
  }

  listStudies(): Promise<StoredStudy[]> {
    return this.read('listing studies', () => this.db.getAll('studies'));
  }

  deleteStudy(planKey: string): Promise<void> {
    return this.read(`deleting study ${planKey}`, () => this.db.delete('studies', planKey));
  }

  /** One transaction, its requests issued a batch at a time (a get per record, then the puts),
   *  not one awaited request after another: a request's round trip, not its work, is what costs. */
  importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[], o: ImportRunOptions = {}): Promise<{ stored: number; linked: number }> {
    return this.write(`importing run ${run.id}`, ['records', 'runs', 'questions'], async (tx) => {
      const records = tx.objectStore('records');
      let stored = 0;
      let linked = 0;
      let done = 0;
      for (const batch of batches(items)) {
        o.signal?.throwIfAborted();
        const existing = await all(batch.map((item) => () => records.get(item.key)));
        const values: StoredRecord[] = [];
        for (const [i, item] of batch.entries()) {
          const { value, outcome } = placed(existing[i], run.id, item);
          if (value) values.push(value);
          if (outcome === 'stored') stored++;
          else if (outcome === 'linked') linked++;
        }
        await all(values.map((v) => () => records.put(v)));
        done += batch.length;
        o.onStored?.(done);
      }
      o.signal?.throwIfAborted();
      if (questions) await tx.objectStore('questions').put({ runId: run.id, questions });
      await tx.objectStore('runs').put(run);
      return { stored, linked };
    }, o.signal);
  }

  close(): void {
    this.db.close();
  }

  /** A single-request call (idb's shortcuts make their own transaction). */
  private async read<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw toStoreError(e, doing);
    }
  }

  /** One readwrite transaction; a failure inside aborts it, so nothing of it is written. */
  private async write<T, S extends StoreNames<ReachDB>>(doing: string, stores: S[], fn: (tx: WriteTx<S>) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let tx: WriteTx<S>;
    try {
      tx = this.db.transaction(stores, 'readwrite');
    } catch (e) {
      throw toStoreError(e, doing);
    }
    let out: T;
    try {
      out = await fn(tx);
    } catch (e) {
      try {
        tx.abort();
      } catch {
        // already aborted by the failed request
      }
      await tx.done.catch(() => {});
      // a cancel is not a storage failure: its reason goes back as it is
      if (signal?.aborted && e === signal.reason) throw e;
      throw toStoreError(e, doing);
    }
    try {
      await tx.done;
    } catch (e) {
      throw toStoreError(tx.error ?? e, doing);
    }
    return out;
  }
}

/** Records per batch of requests: enough to keep the transaction busy, few enough to report often. */
export const IMPORT_BATCH = 500;

/** `items` in batches of IMPORT_BATCH; a key repeated within a batch starts the next one, so each
 *  get sees every earlier put of its key. */
function* batches(items: RecordItem[]): Generator<RecordItem[]> {
  let batch: RecordItem[] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const k = keyId(item.key);
    if (batch.length === IMPORT_BATCH || keys.has(k)) {
      yield batch;
      batch = [];
      keys = new Set();
    }
    batch.push(item);
    keys.add(k);
  }
  if (batch.length) yield batch;
}

/** Issues every request, then awaits them all. A request that throws as it is issued (a key
 *  IndexedDB refuses) aborts the transaction: the ones already issued then fail too, silently. */
async function all<T>(requests: (() => Promise<T>)[]): Promise<T[]> {
  const issued: Promise<T>[] = [];
  try {
    for (const request of requests) issued.push(request());
  } catch (e) {
    for (const p of issued) p.catch(() => {});
    throw e;
  }
  return Promise.all(issued);
}

type RecordsStore = IDBPObjectStore<ReachDB, ArrayLike<StoreNames<ReachDB>>, 'records', 'readwrite'>;

async function putOrLink(records: RecordsStore, runId: string, item: RecordItem): Promise<PutOutcome> {
  const { value, outcome } = placed(await records.get(item.key), runId, item);
  if (value) await records.put(value);
  return outcome;
}

/** What storing `item` for `runId` does to the record stored under its key: stores it, links the
 *  stored one (first write wins), or, where the stored one was imported and this one was computed
 *  here, replaces the imported record with the local one (kept for every run linked to it). */
export function placed(existing: StoredRecord | undefined, runId: string, item: RecordItem): { value: StoredRecord | null; outcome: PutOutcome } {
  if (!existing) return { value: newStored(runId, item), outcome: 'stored' };
  const runIds = existing.runIds.includes(runId) ? existing.runIds : [...existing.runIds, runId];
  if (existing.imported && !item.imported) {
    return { value: { ...newStored(runId, item), runIds }, outcome: runIds === existing.runIds ? 'present' : 'linked' };
  }
  const outcome = runIds === existing.runIds ? 'present' : 'linked';
  // another import whose own file holds the record owns it too
  const owner = item.imported && existing.imported && ![existing.imported, ...(existing.alsoImported ?? [])].some((p) => p.runId === item.imported!.runId);
  if (owner) return { value: { ...existing, runIds, alsoImported: [...(existing.alsoImported ?? []), item.imported!] }, outcome };
  if (runIds === existing.runIds) return { value: null, outcome };
  return { value: { ...existing, runIds }, outcome };
}

export function newStored(runId: string, item: RecordItem): StoredRecord {
  return { key: item.key, record: item.record, runIds: [runId], computedBy: runId, savedAt: new Date().toISOString(), ...(item.imported ? { imported: item.imported } : {}) };
}

/** What remains of a record of run `runId` when that run is deleted, or null to delete it. A
 *  record the run imported passes to another import whose own file held it (alsoImported) and that
 *  still holds it; with none, it goes from every run, each counted in `lost` (run id → records it
 *  loses). */
export function afterDelete(rec: StoredRecord, runId: string, lost: Map<string, number>): StoredRecord | null {
  const runIds = rec.runIds.filter((r) => r !== runId);
  const others = (rec.alsoImported ?? []).filter((p) => p.runId !== runId && runIds.includes(p.runId));
  const { alsoImported: _a, ...bare } = rec;
  const owned = (imported: StoredRecord['imported'], also: typeof others): StoredRecord => ({ ...bare, runIds, ...(imported ? { imported } : {}), ...(also.length ? { alsoImported: also } : {}) });
  if (rec.imported?.runId === runId) {
    const [heir, ...rest] = others;
    if (heir) return owned(heir, rest);
    for (const r of runIds) lost.set(r, (lost.get(r) ?? 0) + 1);
    return null;
  }
  return runIds.length === 0 ? null : owned(rec.imported, others);
}

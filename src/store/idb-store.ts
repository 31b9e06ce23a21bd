// RunStore over IndexedDB (idb). Each method is one transaction; a failure inside a readwrite
// transaction aborts it (nothing of it is written); raw DOM failures become StoreErrors
// (quota-exceeded in particular, so the controller can fall back to memory).

import type { IDBPObjectStore, IDBPTransaction, StoreNames } from 'idb';
import type { QuestionIdentity } from '../audit/condition.ts';
import type { QuestionRecord } from '../audit/types.ts';
import { openReachDb, type OpenOptions, type ReachDb } from './db.ts';
import { StoreError, toStoreError } from './errors.ts';
import type { RecordKey } from './keys.ts';
import type { ReachDB, StoredRecord, StoredRun, StoredStudy } from './schema.ts';
import type { PutOutcome, RecordItem, RunStore } from './store.ts';

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
      for (let c = await records.index('by-run').openCursor(id); c; c = await c.continue()) {
        const runIds = c.value.runIds.filter((r) => r !== id);
        if (runIds.length === 0) await c.delete();
        else await c.update({ ...c.value, runIds });
      }
      await tx.objectStore('questions').delete(id);
      await tx.objectStore('runs').delete(id);
    });
  }

  putRecord(runId: string, item: RecordItem, run?: StoredRun): Promise<PutOutcome> {
    return this.write(`saving record ${item.record.doc_id}/${item.record.probe}`, ['records', 'runs'], async (tx) => {
      const outcome = await putOrLink(tx.objectStore('records'), runId, item);
      if (run) await tx.objectStore('runs').put(run);
      return outcome;
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

  importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[]): Promise<{ stored: number; linked: number }> {
    return this.write(`importing run ${run.id}`, ['records', 'runs', 'questions'], async (tx) => {
      let stored = 0;
      let linked = 0;
      for (const item of items) {
        const outcome = await putOrLink(tx.objectStore('records'), run.id, item);
        if (outcome === 'stored') stored++;
        else if (outcome === 'linked') linked++;
      }
      if (questions) await tx.objectStore('questions').put({ runId: run.id, questions });
      await tx.objectStore('runs').put(run);
      return { stored, linked };
    });
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
  private async write<T, S extends StoreNames<ReachDB>>(doing: string, stores: S[], fn: (tx: WriteTx<S>) => Promise<T>): Promise<T> {
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

type RecordsStore = IDBPObjectStore<ReachDB, ArrayLike<StoreNames<ReachDB>>, 'records', 'readwrite'>;

async function putOrLink(records: RecordsStore, runId: string, item: RecordItem): Promise<PutOutcome> {
  const existing = await records.get(item.key);
  if (!existing) {
    await records.put(newStored(runId, item.key, item.record));
    return 'stored';
  }
  if (!existing.runIds.includes(runId)) {
    await records.put({ ...existing, runIds: [...existing.runIds, runId] });
    return 'linked';
  }
  return 'present';
}

export function newStored(runId: string, key: RecordKey, record: QuestionRecord): StoredRecord {
  return { key, record, runIds: [runId], computedBy: runId, savedAt: new Date().toISOString() };
}

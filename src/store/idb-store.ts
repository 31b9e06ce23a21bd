// RunStore over IndexedDB (idb). Each method is one transaction; raw DOM failures become
// StoreErrors (quota-exceeded in particular, so the controller can fall back to memory).

import type { QuestionRecord } from '../audit/types.ts';
import { openReachDb, type OpenOptions, type ReachDb } from './db.ts';
import { StoreError, toStoreError } from './errors.ts';
import type { RecordKey } from './keys.ts';
import type { StoredRecord, StoredRun, StoredSummary } from './schema.ts';
import type { PutOutcome, RecordItem, RunStore } from './store.ts';

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

  async putRun(run: StoredRun): Promise<void> {
    await this.guard(`saving run ${run.id}`, () => this.db.put('runs', run));
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    return this.guard(`reading run ${id}`, () => this.db.get('runs', id));
  }

  async listRuns(): Promise<StoredRun[]> {
    return this.guard('listing runs', () => this.db.getAll('runs'));
  }

  async runsByManifestKey(manifestKey: string): Promise<StoredRun[]> {
    return this.guard('looking up runs', () => this.db.getAllFromIndex('runs', 'by-manifest-key', manifestKey));
  }

  async deleteRun(id: string): Promise<void> {
    await this.guard(`deleting run ${id}`, async () => {
      const tx = this.db.transaction(['runs', 'records', 'summaries'], 'readwrite');
      const records = tx.objectStore('records');
      for (let c = await records.index('by-run').openCursor(id); c; c = await c.continue()) {
        const runIds = c.value.runIds.filter((r) => r !== id);
        if (runIds.length === 0) await c.delete();
        else await c.update({ ...c.value, runIds });
      }
      await tx.objectStore('summaries').delete(id);
      await tx.objectStore('runs').delete(id);
      await tx.done;
    });
  }

  async putRecord(runId: string, item: RecordItem, run?: StoredRun): Promise<PutOutcome> {
    return this.guard(`saving record ${item.record.doc_id}/${item.record.probe}`, async () => {
      const tx = this.db.transaction(['records', 'runs'], 'readwrite');
      const records = tx.objectStore('records');
      const existing = await records.get(item.key);
      let outcome: PutOutcome;
      if (!existing) {
        await records.put(newStored(runId, item.key, item.record));
        outcome = 'stored';
      } else if (!existing.runIds.includes(runId)) {
        await records.put({ ...existing, runIds: [...existing.runIds, runId] });
        outcome = 'linked';
      } else {
        outcome = 'present';
      }
      if (run) await tx.objectStore('runs').put(run);
      await tx.done;
      return outcome;
    });
  }

  async linkRecords(runId: string, keys: RecordKey[], run?: StoredRun): Promise<number> {
    return this.guard(`linking ${keys.length} reused records`, async () => {
      const tx = this.db.transaction(['records', 'runs'], 'readwrite');
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
      await tx.done;
      return linked;
    });
  }

  async keysInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<RecordKey[]> {
    return this.guard('reading record keys', () => this.db.getAllKeys('records', this.keyRange.bound(lower, upper)));
  }

  async keysForRun(runId: string): Promise<RecordKey[]> {
    return this.guard(`reading keys of run ${runId}`, () => this.db.getAllKeysFromIndex('records', 'by-run', runId));
  }

  async recordsForRun(runId: string): Promise<StoredRecord[]> {
    return this.guard(`reading records of run ${runId}`, () => this.db.getAllFromIndex('records', 'by-run', runId));
  }

  async putSummary(summary: StoredSummary): Promise<void> {
    await this.guard(`saving the summary of run ${summary.runId}`, () => this.db.put('summaries', summary));
  }

  async getSummary(runId: string): Promise<StoredSummary | undefined> {
    return this.guard(`reading the summary of run ${runId}`, () => this.db.get('summaries', runId));
  }

  async importRun(run: StoredRun, items: RecordItem[]): Promise<{ stored: number; linked: number }> {
    return this.guard(`importing run ${run.id}`, async () => {
      const tx = this.db.transaction(['records', 'runs'], 'readwrite');
      const records = tx.objectStore('records');
      let stored = 0;
      let linked = 0;
      for (const item of items) {
        const existing = await records.get(item.key);
        if (!existing) {
          await records.put(newStored(run.id, item.key, item.record));
          stored++;
        } else if (!existing.runIds.includes(run.id)) {
          await records.put({ ...existing, runIds: [...existing.runIds, run.id] });
          linked++;
        }
      }
      await tx.objectStore('runs').put(run);
      await tx.done;
      return { stored, linked };
    });
  }

  close(): void {
    this.db.close();
  }

  private async guard<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw toStoreError(e, doing);
    }
  }
}

export function newStored(runId: string, key: RecordKey, record: QuestionRecord): StoredRecord {
  return { key, record, runIds: [runId], computedBy: runId, savedAt: new Date().toISOString() };
}


// Opening the ReachLab database: migrations from every earlier version, typed errors when
// IndexedDB cannot be used. The factory is a parameter so tests open a fresh fake per test.

import { wrap, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { StoreError } from './errors.ts';
import { DB_NAME, DB_VERSION, type ReachDB, type StoredRecord, type StoredRecordV1 } from './schema.ts';

export type ReachDb = IDBPDatabase<ReachDB>;
type UpgradeTx = IDBPTransaction<ReachDB, StoreNames<ReachDB>[], 'versionchange'>;

export interface OpenOptions {
  /** Defaults to globalThis.indexedDB. */
  factory?: IDBFactory;
  name?: string;
  /** Schema version to open; only tests open an older one (to build a v1 database). */
  version?: number;
}

/** migrations[v - 1] takes the database from version v - 1 to v. */
const migrations: ((db: ReachDb, tx: UpgradeTx) => void)[] = [
  // v1: runs and records, one run per record.
  (db) => {
    const runs = db.createObjectStore('runs', { keyPath: 'id' });
    runs.createIndex('by-manifest-key', 'manifestKey');
    const records = db.createObjectStore('records', { keyPath: 'key' });
    records.createIndex('by-run', 'runId' as 'runIds');
  },
  // v2: records shared by runs (runIds, multiEntry) and a summaries store.
  (db, tx) => {
    db.createObjectStore('summaries', { keyPath: 'runId' });
    const records = tx.objectStore('records');
    records.deleteIndex('by-run');
    records.createIndex('by-run', 'runIds', { multiEntry: true });
    void (async () => {
      for (let c = await records.openCursor(); c; c = await c.continue()) {
        const old = c.value as unknown as StoredRecordV1;
        const next: StoredRecord = { key: old.key, record: old.record, runIds: [old.runId], computedBy: old.runId, savedAt: old.savedAt };
        await c.update(next);
      }
    })();
  },
];

export async function openReachDb(opts: OpenOptions = {}): Promise<ReachDb> {
  const factory = opts.factory ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  const version = opts.version ?? DB_VERSION;
  const name = opts.name ?? DB_NAME;
  if (!factory) {
    throw new StoreError('unavailable', 'IndexedDB is not available in this browser context (private window or storage disabled); runs are kept in memory only — export them before closing the tab.');
  }
  if (!Number.isInteger(version) || version < 1 || version > DB_VERSION) {
    throw new StoreError('bad-input', `database version ${version} is not one of 1..${DB_VERSION}`);
  }
  let request: IDBOpenDBRequest;
  try {
    request = factory.open(name, version);
  } catch (e) {
    throw unavailable(e);
  }
  request.addEventListener('upgradeneeded', (event) => {
    const db = wrap(request.result) as unknown as ReachDb;
    const tx = wrap(request.transaction!) as unknown as UpgradeTx;
    tx.done.catch(() => {}); // a failed migration surfaces as the open request's error
    for (let v = event.oldVersion + 1; v <= version; v++) migrations[v - 1](db, tx);
  });
  const opened = wrap(request) as unknown as Promise<ReachDb>;
  const blocked = new Promise<never>((_, reject) => {
    request.addEventListener('blocked', () => {
      // The upgrade proceeds once the other tab lets go; close that late connection ourselves.
      opened.then((db) => db.close(), () => {});
      reject(new StoreError('blocked', 'Another ReachLab tab keeps an older version of the database open; close or reload it, then try again.'));
    });
  });
  let db: ReachDb;
  try {
    db = await Promise.race([opened, blocked]);
  } catch (e) {
    if (e instanceof StoreError) throw e;
    if (e instanceof Error && e.name === 'VersionError') {
      throw new StoreError('unavailable', `The stored database is newer than this app (${e.message}); reload to get the new app version.`, { cause: e });
    }
    throw unavailable(e);
  }
  // Let a newer app version in another tab upgrade: close rather than block it.
  db.addEventListener('versionchange', () => db.close());
  return db;
}

function unavailable(e: unknown): StoreError {
  const detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new StoreError('unavailable', `IndexedDB refused to open (${detail}); runs are kept in memory only — export them before closing the tab.`, { cause: e });
}

// Opening the ReachLab database: migrations from every earlier version, typed errors when
// IndexedDB cannot be used. The factory is a parameter so tests open a fresh fake per test.

import { wrap, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { decoyControl, decoyFields, type DecoyFields } from '../audit/decoy.ts';
import type { Condition, QuestionRecord } from '../audit/types.ts';
import { StoreError } from './errors.ts';
import { recordKeyOfRecord } from './keys.ts';
import { legacyRun, upgradeLegacyRecord } from './legacy.ts';
import { DB_NAME, DB_VERSION, type ReachDB, type ReachDBV5, type StoredRecord, type StoredRecordV1, type StoredRecordV2, type StoredRunV2 } from './schema.ts';
import { quote } from '../util/clip.ts';

export type ReachDb = IDBPDatabase<ReachDB>;
// Migrations run against the widest schema (v5's, with summaries); v6 drops that store.
type UpgradeDb = IDBPDatabase<ReachDBV5>;
type UpgradeTx = IDBPTransaction<ReachDBV5, StoreNames<ReachDBV5>[], 'versionchange'>;

export interface OpenOptions {
  /** Defaults to globalThis.indexedDB. */
  factory?: IDBFactory;
  name?: string;
  /** Schema version to open; only tests open an older one (to build a v1 database). */
  version?: number;
}

/** migrations[v - 1] takes the database from version v - 1 to v; one returning a promise is
 *  awaited (inside the upgrade transaction) before the next runs. */
const migrations: ((db: UpgradeDb, tx: UpgradeTx) => void | Promise<void>)[] = [
  // v1: runs and records, one run per record.
  (db) => {
    const runs = db.createObjectStore('runs', { keyPath: 'id' });
    runs.createIndex('by-manifest-key', 'manifestKey');
    const records = db.createObjectStore('records', { keyPath: 'key' });
    records.createIndex('by-run', 'runId' as 'runIds');
  },
  // v2: records shared by runs (runIds, multiEntry) and a summaries store.
  async (db, tx) => {
    db.createObjectStore('summaries', { keyPath: 'runId' });
    const records = tx.objectStore('records');
    records.deleteIndex('by-run');
    records.createIndex('by-run', 'runIds', { multiEntry: true });
    for (let c = await records.openCursor(); c; c = await c.continue()) {
      const old = c.value as unknown as StoredRecordV1;
      const next: StoredRecordV2 = { key: old.key, record: old.record, runIds: [old.runId], computedBy: old.runId, savedAt: old.savedAt };
      await c.update(next as unknown as StoredRecord);
    }
  },
  // v3: content-addressed keys (schema.ts). Every run so far is a legacy run; every record is
  // re-keyed from its own fields (records whose new keys coincide, the same content stored under
  // two task names, become one record linked to all their runs); summaries, derived data of an
  // older shape, are dropped.
  async (db, tx) => {
    db.createObjectStore('questions', { keyPath: 'runId' });
    const runs = tx.objectStore('runs');
    for (let c = await runs.openCursor(); c; c = await c.continue()) await c.update(legacyRun(c.value as StoredRunV2));
    await tx.objectStore('summaries').clear();
    const records = tx.objectStore('records');
    const old = (await records.getAll()) as unknown as StoredRecordV2[];
    await records.clear();
    const merged = new Map<string, StoredRecord>();
    for (const o of old) {
      const record = upgradeLegacyRecord(o.record);
      const key = recordKeyOfRecord(record);
      if (!key.every((part) => typeof part === 'string')) throw new Error(`record ${quote(o.key)} lacks a model, condition, probe, doc id or hash`);
      const id = JSON.stringify(key);
      const seen = merged.get(id);
      if (seen) seen.runIds = [...new Set([...seen.runIds, ...o.runIds])];
      else merged.set(id, { key, record, runIds: [...o.runIds], computedBy: o.computedBy, savedAt: o.savedAt });
    }
    for (const s of merged.values()) await records.put(s);
  },
  // v4: studies (plans and the runs they started).
  (db) => {
    db.createObjectStore('studies', { keyPath: 'plan_key' });
  },
  // v5: the decoy-answer control. A record without its fields gets them from its own question and
  // attempts under its condition (taken from a run of the same condition key; null when none states
  // it); summaries, derived data of an older shape, are dropped.
  async (_db, tx) => {
    const conditions = new Map<string, Condition>();
    for (const run of await tx.objectStore('runs').getAll()) if (run.manifest.condition) conditions.set(run.manifest.condition_key, run.manifest.condition);
    await tx.objectStore('summaries').clear();
    const records = tx.objectStore('records');
    for (let c = await records.openCursor(); c; c = await c.continue()) {
      const record: Omit<QuestionRecord, keyof DecoyFields> & Partial<DecoyFields> = c.value.record;
      if (record.decoy !== undefined) continue;
      await c.update({ ...c.value, record: { ...record, ...decoyFields(record, decoyControl(conditions.get(record.condition_key) ?? null)) } });
    }
  },
  // v6: the summaries store goes (nothing read it; summaries are computed from records).
  (db) => {
    db.deleteObjectStore('summaries');
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
  let migrationError: unknown = null;
  request.addEventListener('upgradeneeded', (event) => {
    const db = wrap(request.result) as unknown as UpgradeDb;
    const tx = wrap(request.transaction!) as unknown as UpgradeTx;
    tx.done.catch(() => {}); // a failed migration surfaces as the open request's error
    // Synchronous steps run at once; from the first asynchronous one on, each waits for the last.
    let chain: Promise<void> | null = null;
    for (let v = event.oldVersion + 1; v <= version; v++) {
      const step = migrations[v - 1];
      if (chain) chain = chain.then(() => step(db, tx));
      else {
        const out = step(db, tx);
        if (out) chain = out;
      }
    }
    chain?.catch((e: unknown) => {
      migrationError = e;
      try {
        tx.abort(); // nothing of a half-done migration is kept
      } catch {
        // already aborted by the failed request
      }
    });
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
    if (migrationError !== null) {
      const detail = migrationError instanceof Error ? migrationError.message : String(migrationError);
      throw new StoreError('unavailable', `Upgrading the stored runs to this app version failed (${detail}); nothing was changed. Runs are kept in memory only — export them before closing the tab.`, { cause: migrationError });
    }
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

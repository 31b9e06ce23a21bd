// The import bench's page (scripts/bench-import.ts serves it with Vite and drives it in headless
// Chromium): imports one generated lm-eval samples file three ways into the app's IndexedDB and
// times each, watching the page's main thread for stalls.
import type { QuestionIdentity } from '../../src/audit/condition';
import { openReachDb } from '../../src/store/db';
import { IdbRunStore, IMPORT_BATCH, newStored, placed } from '../../src/store/idb-store';
import { importFile } from '../../src/store/import-file';
import { importLmEvalSamples } from '../../src/store/import';
import { importInWorker } from '../../src/store/import-remote';
import { DB_NAME, type StoredRun } from '../../src/store/schema';
import { spawnImporter } from '../../src/store/spawn-import';
import type { ImportRunOptions, RecordItem } from '../../src/store/store';
import { lmEvalSamplesText } from '../../src/store/testing/lm-eval-samples';

/** Times its importRun (the storing phase). */
class TimedStore extends IdbRunStore {
  storeMs = 0;
  override async importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[], o?: ImportRunOptions) {
    const t = performance.now();
    try {
      return await super.importRun(run, items, questions, o);
    } finally {
      this.storeMs += performance.now() - t;
    }
  }
}

/** importRun as it was before imports streamed: one transaction, one awaited get and put per record. */
class OneByOneStore extends TimedStore {
  override async importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[]) {
    const t = performance.now();
    const tx = this.db.transaction(['records', 'runs', 'questions'], 'readwrite');
    const records = tx.objectStore('records');
    let stored = 0;
    let linked = 0;
    for (const item of items) {
      const { value, outcome } = placed(await records.get(item.key), run.id, item);
      if (value) await records.put(value);
      if (outcome === 'stored') stored++;
      else if (outcome === 'linked') linked++;
    }
    if (questions) await tx.objectStore('questions').put({ runId: run.id, questions });
    await tx.objectStore('runs').put(run);
    await tx.done;
    this.storeMs += performance.now() - t;
    return { stored, linked };
  }
}

/** The put throughput alone: the records put a batch at a time, no get before each (right only on
 *  an empty store, so not the import's path). */
class PutsOnlyStore extends TimedStore {
  override async importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[]) {
    const t = performance.now();
    const tx = this.db.transaction(['records', 'runs', 'questions'], 'readwrite');
    const records = tx.objectStore('records');
    for (let i = 0; i < items.length; i += IMPORT_BATCH) await Promise.all(items.slice(i, i + IMPORT_BATCH).map((item) => records.put(newStored(run.id, item))));
    if (questions) await tx.objectStore('questions').put({ runId: run.id, questions });
    await tx.objectStore('runs').put(run);
    await tx.done;
    this.storeMs += performance.now() - t;
    return { stored: items.length, linked: 0 };
  }
}

function deleteDb(): Promise<void> {
  return new Promise((ok, fail) => {
    const req = indexedDB.deleteDatabase(DB_NAME);
    req.onsuccess = () => ok();
    req.onerror = () => fail(req.error);
    req.onblocked = () => fail(new Error('the bench database is held open'));
  });
}

/** The longest the main thread went without running a 5 ms timer, while `f` ran. */
async function watched<T>(f: () => Promise<T>): Promise<{ out: T; ms: number; maxStallMs: number }> {
  let last = performance.now();
  let maxStallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxStallMs = Math.max(maxStallMs, now - last);
    last = now;
  }, 5);
  const t = performance.now();
  try {
    const out = await f();
    return { out, ms: performance.now() - t, maxStallMs: Math.max(maxStallMs, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

export interface CaseResult {
  seconds: number;
  storeSeconds: number | null;
  maxStallMs: number;
  records: number;
}

async function runCase(how: 'before' | 'after-inline' | 'after-worker' | 'puts-only', file: File): Promise<CaseResult> {
  await deleteDb();
  const name = file.name;
  const o = { runId: `bench-${how}`, appVersion: 'bench' };
  let store: TimedStore | null = null;
  const r = await watched(async () => {
    if (how === 'after-worker') return importInWorker(spawnImporter, file, o);
    const db = await openReachDb();
    const s = (store = how === 'before' ? new OneByOneStore(db, IDBKeyRange) : how === 'puts-only' ? new PutsOnlyStore(db, IDBKeyRange) : new TimedStore(db, IDBKeyRange));
    if (how !== 'before') return importFile(s, file, o);
    // main's path: the whole text, then the import of it
    const lm = { ...o, model: { fingerprint: `lm-eval:${name}`, name, source: `lm-eval:${name}` }, task: { id: `lm-eval:${name}`, version: 1 }, fileName: name };
    return importLmEvalSamples(s, await file.text(), lm);
  });
  const storeMs = (store as TimedStore | null)?.storeMs;
  (store as TimedStore | null)?.close();
  return { seconds: r.ms / 1000, storeSeconds: storeMs === undefined ? null : storeMs / 1000, maxStallMs: r.maxStallMs, records: r.out.stored };
}

declare global {
  interface Window {
    benchImport(lines: number, cases: string[]): Promise<{ bytes: number; results: Record<string, CaseResult> }>;
  }
}

window.benchImport = async (lines, cases) => {
  const file = new File([lmEvalSamplesText(lines)], 'samples_bench_2025-01-01.jsonl');
  const results: Record<string, CaseResult> = {};
  for (const c of cases) results[c] = await runCase(c as 'before', file);
  await deleteDb();
  return { bytes: file.size, results };
};

// What the store e2e tests read from the page: the IndexedDB store as the app left it
// (src/store/schema.ts), and a tap on the page → engine-worker messages that counts the rows each
// engine call was sent, so "nothing recomputed" is checked against what the engine was asked to do.
import { expect, type Page } from '@playwright/test';

/** A stored question record, reduced to what the tests compare. */
export interface StoreRecord {
  /** The IndexedDB key (RecordKey) as JSON. */
  key: string;
  doc_id: string;
  probe: string;
  prompt: string;
  attempts: { route: number[]; silence: number[] }[];
  /** The fixed-route selector's route when it cost one extra (uncharged) decode, else null. */
  fixedRouteExtra: number[] | null;
  runIds: string[];
  computedBy: string;
  /** The whole stored value as JSON: equal strings mean the record was not rewritten. */
  raw: string;
}

export interface StoreRun {
  id: string;
  status: string;
  /** manifest.model.source, e.g. "hub:reference/tiny-qwen2". */
  source: string;
  manifestKey: string;
  counters: { recordsTotal: number; recordsDone: number; reused: number; attemptsComputed: number; interruptions: number; lastError?: string };
}

export interface StoreSnapshot {
  runs: StoreRun[];
  records: StoreRecord[];
}

/** Rows sent with each `generate` call and the ids each `encode` returned, in this page's life. */
export interface EngineTap {
  encodes: Record<string, number[]>;
  rows: { promptIds: number[]; route: number[]; silence: number[] }[];
}

export const DB_NAME = 'reachlab'; // src/store/schema.ts DB_NAME

/**
 * Wraps Worker.prototype.postMessage before the app runs. Comlink sends
 * `{ id, type: 'APPLY', path: [method], argumentList: [{ type: 'RAW', value }] }` and the worker
 * answers `{ id, type: 'RAW', value }`.
 */
export async function tapEngineCalls(page: Page): Promise<void> {
  await page.addInitScript(() => {
    type Wire = { id?: string; type?: string; path?: string[]; argumentList?: { type: string; value: unknown }[]; value?: unknown };
    const tap = { encodes: {} as Record<string, number[]>, rows: [] as { promptIds: number[]; route: number[]; silence: number[] }[] };
    (window as unknown as { __engineTap: typeof tap }).__engineTap = tap;
    const pending = new Map<string, string>();
    const listening = new WeakSet<Worker>();
    const post = Worker.prototype.postMessage as (this: Worker, message: unknown, ...rest: unknown[]) => void;
    Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
      const m = message as Wire | null;
      if (m && m.type === 'APPLY' && Array.isArray(m.path) && m.id) {
        if (!listening.has(this)) {
          listening.add(this);
          this.addEventListener('message', (ev: MessageEvent) => {
            const d = ev.data as Wire | null;
            const text = d?.id ? pending.get(d.id) : undefined;
            if (text === undefined || !d) return;
            pending.delete(d.id!);
            if (d.type === 'RAW' && Array.isArray(d.value)) tap.encodes[text] = d.value as number[];
          });
        }
        const method = m.path.join('.');
        const first = m.argumentList?.[0]?.value;
        if (method === 'encode' && typeof first === 'string') pending.set(m.id, first);
        if (method === 'generate' && Array.isArray(first)) {
          for (const r of first as { promptIds: number[]; route: number[]; silence: number[] }[]) {
            tap.rows.push({ promptIds: [...r.promptIds], route: [...r.route], silence: [...r.silence] });
          }
        }
      }
      return post.call(this, message, ...rest);
    } as typeof Worker.prototype.postMessage;
  });
}

/**
 * Keeps the engine workers the page starts (the app names them "reachlab-engine"), so a test can end
 * one as a crash would: `crashEngine` terminates the newest and raises its error event, which is how
 * the page learns that a worker died (src/engine/remote.ts). The app itself ships no such hook.
 */
export async function trackEngineWorkers(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Native = window.Worker;
    const engines: Worker[] = [];
    (window as unknown as { __engineWorkers: Worker[] }).__engineWorkers = engines;
    window.Worker = class extends Native {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        if (options?.name === 'reachlab-engine') engines.push(this);
      }
    };
  });
}

/** Ends the newest engine worker as a crash would; returns how many engine rows were sent before. */
export async function crashEngine(page: Page): Promise<number> {
  return page.evaluate(() => {
    const w = window as unknown as { __engineWorkers: Worker[]; __engineTap: EngineTap };
    const engine = w.__engineWorkers.at(-1);
    if (!engine) throw new Error('no engine worker was started');
    engine.terminate();
    engine.dispatchEvent(new ErrorEvent('error', { message: 'the engine worker was killed by the test' }));
    return w.__engineTap.rows.length;
  });
}

/** Every run and record in the app's IndexedDB database (open it only after the app has). */
export async function readStore(page: Page): Promise<StoreSnapshot> {
  return page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(name);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const all = (store: string) =>
      new Promise<unknown[]>((resolve, reject) => {
        const req = db.transaction(store, 'readonly').objectStore(store).getAll();
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    try {
      type Rec = {
        key: unknown;
        runIds: string[];
        computedBy: string;
        record: {
          doc_id: string;
          probe: string;
          arguments: { prompt: string };
          attempts: { route: number[]; silence: number[] }[];
          selectors?: Record<string, { attempt: number | null; route?: number[] }>;
        };
      };
      const runs = (await all('runs')) as { id: string; manifestKey: string; manifest: { status: string; model: { source: string } }; counters: StoreRun['counters'] }[];
      const records = (await all('records')) as Rec[];
      return {
        runs: runs.map((r) => ({ id: r.id, status: r.manifest.status, source: r.manifest.model.source, manifestKey: r.manifestKey, counters: r.counters })),
        records: records.map((s) => {
          const fixed = s.record.selectors?.['fixed-route'];
          return {
            key: JSON.stringify(s.key),
            doc_id: s.record.doc_id,
            probe: s.record.probe,
            prompt: s.record.arguments.prompt,
            attempts: s.record.attempts.map((a) => ({ route: a.route, silence: a.silence })),
            fixedRouteExtra: fixed && fixed.attempt === null && fixed.route ? fixed.route : null,
            runIds: s.runIds,
            computedBy: s.computedBy,
            raw: JSON.stringify(s),
          };
        }),
      };
    } finally {
      db.close();
    }
  }, DB_NAME);
}

/**
 * Clicks Start and returns as soon as the store holds at least `min` records (polled in the page
 * every 20 ms), so the caller can interrupt the run mid-way; fails if the run already finished.
 */
export async function startAndWaitForRecords(page: Page, min: number, total: number, timeoutMs = 180_000): Promise<number> {
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('screen-run')).toBeVisible();
  const n = await page.evaluate(
    async ({ name, min, timeoutMs }) => {
      const t0 = performance.now();
      for (;;) {
        const count = await new Promise<number>((resolve) => {
          const req = indexedDB.open(name);
          req.onerror = () => resolve(0);
          req.onsuccess = () => {
            const db = req.result;
            if (!db.objectStoreNames.contains('records')) return db.close(), resolve(0);
            const c = db.transaction('records', 'readonly').objectStore('records').count();
            c.onsuccess = () => (db.close(), resolve(c.result));
            c.onerror = () => (db.close(), resolve(0));
          };
        });
        if (count >= min) return count;
        if (performance.now() - t0 > timeoutMs) throw new Error(`fewer than ${min} records after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    { name: DB_NAME, min, timeoutMs },
  );
  expect(n, 'the run was still going when the test interrupted it').toBeLessThan(total);
  return n;
}

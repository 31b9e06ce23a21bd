// The import worker's boundary (workers/import.worker.ts): the page hands the worker a File; the
// worker reads, checks and stores it in IndexedDB (import-file.ts) off the page's thread, reporting
// progress back; Cancel on the page aborts it there. Results cross as a tagged value, not a throw,
// so a StoreError keeps its code and a cancel stays an AbortError (comlink's global throw handler
// belongs to the engine's boundary, src/engine/remote.ts).

import * as Comlink from 'comlink';
import { StoreError, isStoreError, type StoreErrorCode } from './errors.ts';
import type { ImportResult } from './import.ts';
import { importFile, type ImportFileOptions } from './import-file.ts';
import type { ImportControl, ImportProgress } from './import-progress.ts';
import type { RunStore } from './store.ts';

type Outcome = { ok: true; result: ImportResult } | { ok: false; name: string; message: string; code?: StoreErrorCode };

/** What the worker serves. */
export interface Importer {
  /** `name` goes along: a File's name is not kept by every structured clone (Node's). */
  importFile(file: Blob, name: string, o: ImportFileOptions, onProgress?: (p: ImportProgress) => void): Promise<Outcome>;
  cancel(): void;
}

/** Worker side: serve imports into the store `open` gives (opened per import, closed after). */
export function exposeImporter(open: () => Promise<RunStore>, endpoint: Comlink.Endpoint = self as unknown as Comlink.Endpoint): void {
  let current: AbortController | null = null;
  const importer: Importer = {
    async importFile(file, name, o, onProgress) {
      const cancel = (current = new AbortController());
      let store: RunStore | null = null;
      try {
        store = await open();
        const source = { name, size: file.size, stream: () => file.stream() };
        return { ok: true, result: await importFile(store, source, o, { signal: cancel.signal, onProgress }) };
      } catch (e) {
        if (isStoreError(e)) return { ok: false, name: e.name, message: e.message, code: e.code };
        return { ok: false, name: e instanceof Error ? e.name : 'Error', message: e instanceof Error ? e.message : String(e) };
      } finally {
        store?.close();
        if (current === cancel) current = null;
      }
    },
    cancel() {
      current?.abort(new DOMException('the import was cancelled', 'AbortError'));
    },
  };
  Comlink.expose(importer, endpoint);
}

/**
 * Page side: imports `file` through a worker `spawn` starts, ended when the import settles. Rejects
 * as the import inline would (a StoreError with its code, an AbortError on cancel); a worker that
 * dies rejects with a StoreError naming that.
 */
export async function importInWorker(spawn: () => Worker, file: File, o: ImportFileOptions, control: ImportControl = {}): Promise<ImportResult> {
  control.signal?.throwIfAborted();
  const worker = spawn();
  const remote = Comlink.wrap<Importer>(worker);
  const onAbort = () => void remote.cancel();
  control.signal?.addEventListener('abort', onAbort);
  try {
    const died = new Promise<never>((_, reject) => {
      worker.addEventListener('error', (ev) => reject(new StoreError('internal', `the import worker stopped (${(ev as ErrorEvent).message || 'uncaught error'})`)));
      worker.addEventListener('messageerror', () => reject(new StoreError('internal', 'the import worker sent a message that could not be read')));
    });
    const progress = control.onProgress;
    const out = await Promise.race([remote.importFile(file, file.name, o, progress ? Comlink.proxy((p: ImportProgress) => progress(p)) : undefined), died]);
    if (out.ok) return out.result;
    if (out.code) throw new StoreError(out.code, out.message);
    if (out.name === 'AbortError') throw new DOMException(out.message, 'AbortError');
    throw Object.assign(new Error(out.message), { name: out.name });
  } finally {
    control.signal?.removeEventListener('abort', onAbort);
    remote[Comlink.releaseProxy]();
    worker.terminate();
  }
}

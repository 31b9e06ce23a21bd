// The import worker's boundary over a MessageChannel (a worker's own postMessage in the browser):
// a file is stored by the far side with progress, a refusal keeps its StoreError code, a cancel
// from the page rolls the import back there and rejects as an AbortError.
import { afterEach, describe, expect, it } from 'vitest';
import { isStoreError } from './errors.ts';
import type { IdbRunStore } from './idb-store.ts';
import { IMPORT_BATCH } from './idb-store.ts';
import type { ImportProgress } from './import-progress.ts';
import { exposeImporter, importInWorker } from './import-remote.ts';
import { freshIdbStore } from './test-helpers.ts';
import { lmEvalSampleLine, lmEvalSamplesText } from './testing/lm-eval-samples.ts';

const NAME = 'samples_gsm8k_2025.jsonl';
const opts = { appVersion: 'test', runId: 'lm-1' };
const ports: MessagePort[] = [];

/** A "worker" whose far side serves imports into `store` (kept open: the far side closes each). */
function workerInto(store: IdbRunStore): () => Worker {
  return () => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    exposeImporter(async () => Object.assign(Object.create(store) as IdbRunStore, { close: () => {} }), port1);
    port2.start();
    return Object.assign(port2, { terminate: () => port2.close() }) as unknown as Worker;
  };
}

afterEach(() => {
  for (const p of ports.splice(0)) p.close();
});

describe('importInWorker', () => {
  it('stores a file on the far side, reporting progress to the page', async () => {
    const store = await freshIdbStore();
    const seen: ImportProgress[] = [];
    const file = new File([lmEvalSamplesText(IMPORT_BATCH + 1)], NAME);
    const res = await importInWorker(workerInto(store), file, opts, { onProgress: (p) => seen.push(p) });
    expect(res).toEqual({ runId: 'lm-1', records: IMPORT_BATCH + 1, stored: IMPORT_BATCH + 1, linked: 0, legacy: false });
    expect(seen.at(-1)).toMatchObject({ bytesRead: file.size, recordsStored: IMPORT_BATCH + 1, recordsTotal: IMPORT_BATCH + 1 });
    expect((await store.getRun('lm-1'))?.counters.recordsDone).toBe(IMPORT_BATCH + 1);
  });

  it('refuses a bad file with the StoreError the inline import gives', async () => {
    const store = await freshIdbStore();
    const file = new File([[lmEvalSampleLine(0), '{oops'].join('\n')], NAME);
    const e = await importInWorker(workerInto(store), file, opts).catch((x: unknown) => x);
    expect(isStoreError(e) && e.code).toBe('invalid-import');
    expect((e as Error).message).toMatch(/^samples_gsm8k_2025\.jsonl line 2: not JSON/);
    expect(await store.listRuns()).toEqual([]);
  });

  it('cancelled from the page, it rolls back on the far side and rejects as an AbortError', async () => {
    const store = await freshIdbStore();
    const cancel = new AbortController();
    const file = new File([lmEvalSamplesText(4 * IMPORT_BATCH)], NAME);
    const e = await importInWorker(workerInto(store), file, opts, {
      signal: cancel.signal,
      onProgress: (p) => {
        if (p.recordsVerified > 0) cancel.abort();
      },
    }).catch((x: unknown) => x);
    expect((e as Error).name).toBe('AbortError');
    expect(await store.listRuns()).toEqual([]);
    expect(await store.keysInRange([''], ['\uffff'])).toEqual([]);
  });
});

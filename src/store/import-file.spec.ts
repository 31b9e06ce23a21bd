// Importing a File as a stream (import-file.ts): the same run as importing its text, the same
// refusals by line, progress counted, and a cancel or a refusal leaving nothing stored.
import { describe, expect, it } from 'vitest';
import { exportRunJson, loadRun } from './export.ts';
import { importFile, type ImportSource } from './import-file.ts';
import { importLmEvalSamples, importRunJson } from './import.ts';
import type { ImportProgress } from './import-progress.ts';
import { isStoreError } from './errors.ts';
import { MemoryRunStore } from './memory-store.ts';
import { IMPORT_BATCH } from './idb-store.ts';
import { freshIdbStore } from './test-helpers.ts';
import { lmEvalSampleLine, lmEvalSamplesText } from './testing/lm-eval-samples.ts';

const NAME = 'samples_gsm8k_2025.jsonl';
const opts = { appVersion: 'test', runId: 'lm-1' };
const lmOpts = { runId: 'lm-1', appVersion: 'test', model: { fingerprint: `lm-eval:${NAME}`, name: NAME, source: `lm-eval:${NAME}` }, task: { id: `lm-eval:${NAME}`, version: 1 }, fileName: NAME };

/** A file whose stream hands out `chunk` bytes at a time and counts how many it handed out. */
function source(name: string, text: string, chunk = 7): ImportSource & { pulled: () => number } {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return {
    name,
    size: bytes.length,
    pulled: () => at,
    stream: () =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          if (at >= bytes.length) return c.close();
          c.enqueue(bytes.slice(at, at + chunk));
          at += chunk;
        },
      }),
  };
}

const withoutTimes = (run: Awaited<ReturnType<typeof loadRun>>) => ({
  ...run,
  manifest: { ...run.manifest, startedAt: '', finishedAt: '' },
  records: run.records.map((r) => r),
});

async function refusal(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(Error);
  return e as Error;
}

describe('importFile (a stream)', () => {
  it('imports a samples file read a few bytes at a time as the same run as its text', async () => {
    // a BOM, CRLF line ends, a character of 4 UTF-8 bytes cut by the chunks, a blank line
    const text = '\uFEFF' + [lmEvalSampleLine(0), lmEvalSampleLine(1).replace('What', 'Wh😀at'), '', lmEvalSampleLine(2)].join('\r\n') + '\r\n';
    const a = new MemoryRunStore();
    const b = new MemoryRunStore();
    const viaText = await importLmEvalSamples(a, text.slice(1), lmOpts); // Blob.text() drops the BOM
    const viaStream = await importFile(b, source(NAME, text), opts);
    expect(viaStream).toEqual(viaText);
    expect(withoutTimes(await loadRun(b, 'lm-1'))).toEqual(withoutTimes(await loadRun(a, 'lm-1')));
    expect((await loadRun(b, 'lm-1')).records[1].doc.text).toBe('Wh😀at is 1+2?');
  });

  it('imports a run file as importRunJson does', async () => {
    const held = new MemoryRunStore();
    await importLmEvalSamples(held, lmEvalSamplesText(5), lmOpts);
    const file = await exportRunJson(held, 'lm-1');
    const a = new MemoryRunStore();
    const b = await freshIdbStore();
    expect(await importFile(b, source('run.json', file, 1000), opts)).toEqual(await importRunJson(a, file, 'run.json'));
    expect((await loadRun(b, 'lm-1')).records).toEqual((await loadRun(a, 'lm-1')).records);
  });

  it('refuses a bad line as the text import does, stops reading there and stores nothing', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => lmEvalSampleLine(i));
    lines[40] = lmEvalSampleLine(3); // a repeated doc_id
    const text = lines.join('\n');
    const expected = (await refusal(importLmEvalSamples(new MemoryRunStore(), text, lmOpts))).message;
    expect(expected).toBe(`${NAME} line 41: doc_id 3 repeats line 4`);
    const store = await freshIdbStore();
    const file = source(NAME, text, 1024);
    expect((await refusal(importFile(store, file, opts))).message).toBe(expected);
    expect(file.pulled()).toBeLessThan(file.size / 2);
    expect(await store.listRuns()).toEqual([]);
    expect(await store.keysInRange([''], ['\uffff'])).toEqual([]);
  });

  it('reports bytes read, samples checked and records stored, ending at the totals', async () => {
    const n = 2 * IMPORT_BATCH + 7;
    const file = source(NAME, lmEvalSamplesText(n), 64 * 1024);
    const seen: ImportProgress[] = [];
    await importFile(await freshIdbStore(), file, opts, { onProgress: (p) => seen.push(p) });
    const last = seen.at(-1)!;
    expect(last).toEqual({ fileName: NAME, bytesRead: file.size, bytesTotal: file.size, recordsVerified: n, recordsStored: n, recordsTotal: n });
    for (const [i, p] of seen.entries()) {
      if (i === 0) continue;
      expect(p.bytesRead).toBeGreaterThanOrEqual(seen[i - 1].bytesRead);
      expect(p.recordsVerified).toBeGreaterThanOrEqual(seen[i - 1].recordsVerified);
    }
  });

  it('cancelled while storing, it rolls back: no run, no record', async () => {
    const n = 3 * IMPORT_BATCH;
    const store = await freshIdbStore();
    const cancel = new AbortController();
    const stages: number[] = [];
    const e = await refusal(
      importFile(store, source(NAME, lmEvalSamplesText(n), 64 * 1024), opts, {
        signal: cancel.signal,
        onProgress: (p) => {
          if (p.recordsStored > 0) {
            stages.push(p.recordsStored);
            cancel.abort();
          }
        },
      }),
    );
    expect(e.name).toBe('AbortError');
    expect(isStoreError(e)).toBe(false);
    expect(stages[0]).toBeLessThan(n);
    expect(await store.listRuns()).toEqual([]);
    expect(await store.keysInRange([''], ['\uffff'])).toEqual([]);
    // and the same file imports whole afterwards
    expect((await importFile(store, source(NAME, lmEvalSamplesText(n), 64 * 1024), opts)).stored).toBe(n);
  });

  it('cancelled while reading, it stops there', async () => {
    const cancel = new AbortController();
    cancel.abort();
    const store = new MemoryRunStore();
    expect((await refusal(importFile(store, source(NAME, lmEvalSamplesText(3)), opts, { signal: cancel.signal }))).name).toBe('AbortError');
    expect(await store.listRuns()).toEqual([]);
  });
});

// Importing a file as the Library does, read as a stream: an lm-eval samples file line by line (each
// line checked as it arrives, the text hashed as it passes), a run file whole (one JSON document).
// Progress and cancel go through the tracker (import-progress.ts). The same code runs in the import
// worker (workers/import.worker.ts) and, where no worker can be had, inline.

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { importRunText, lmEvalFormatOf, LmEvalSamples, type ImportResult, type LmEvalImportOptions } from './import.ts';
import { ImportTracker, type ImportControl } from './import-progress.ts';
import type { RunStore } from './store.ts';

/** What import reads of a File (a Blob with a name). */
export interface ImportSource {
  readonly name: string;
  readonly size: number;
  stream(): ReadableStream<Uint8Array>;
}

export interface ImportFileOptions {
  appVersion: string;
  /** Id of the run an lm-eval samples file becomes (a run file keeps its own). */
  runId: string;
}

/** A harness samples file, by lm-eval's own naming (samples_<task>_<date>.jsonl). */
export const isLmEvalSamplesName = (name: string) => /^samples_.*\.jsonl$/i.test(name);

/** The run a samples file becomes: the file states no model, condition, engine or route, so it is
 *  named after the file ("imported, condition unknown"); a math task's samples (by the task in the
 *  file's name) are regraded under the math format. */
export function lmEvalOptionsFor(fileName: string, o: ImportFileOptions): LmEvalImportOptions {
  const format = lmEvalFormatOf(fileName.replace(/^samples_/i, ''));
  return {
    ...(format ? { answerFormat: format } : {}),
    runId: o.runId,
    appVersion: o.appVersion,
    model: { fingerprint: `lm-eval:${fileName}`, name: fileName, source: `lm-eval:${fileName}` },
    task: { id: `lm-eval:${fileName}`, version: 1 },
    fileName,
  };
}

/** Imports `file` into `store`: refused whole with its first problem named, or stored whole. */
export async function importFile(store: RunStore, file: ImportSource, o: ImportFileOptions, control: ImportControl = {}): Promise<ImportResult> {
  const t = new ImportTracker(file.name, file.size, control);
  if (isLmEvalSamplesName(file.name)) {
    const samples = new LmEvalSamples(lmEvalOptionsFor(file.name, o), t);
    let n = 0;
    const hash = await readText(file, t, {
      line: (text) => samples.line(text, ++n),
    });
    return samples.importInto(store, hash);
  }
  const parts: string[] = [];
  await readText(file, t, { chunk: (text) => parts.push(text) });
  return importRunText(store, parts.join(''), file.name, t);
}

interface TextSink {
  /** Each decoded piece of the text, in order. */
  chunk?: (text: string) => void;
  /** Each line of the text, without its "\n" (what text.split("\n") gives). */
  line?: (text: string) => void;
}

/**
 * Reads `file` as UTF-8 text exactly as Blob.text() decodes it (a leading BOM dropped, malformed
 * bytes replaced), counting bytes into the tracker; returns the SHA-256 of that text's UTF-8, the
 * digest sha256Hex(await file.text()) gives. A line is joined from its pieces once its end is seen,
 * so a long line costs its length once.
 */
async function readText(file: ImportSource, t: ImportTracker, sink: TextSink): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  const encoder = new TextEncoder();
  const hash = sha256.create();
  let pending: string[] = [];
  const take = (text: string) => {
    if (text === '') return;
    hash.update(encoder.encode(text));
    sink.chunk?.(text);
    if (!sink.line) return;
    let from = 0;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', from)) {
      pending.push(text.slice(from, at));
      sink.line(pending.join(''));
      pending = [];
      from = at + 1;
    }
    if (from < text.length) pending.push(text.slice(from));
  };
  const reader = file.stream().getReader();
  try {
    for (;;) {
      t.check();
      const { done, value } = await reader.read();
      if (done) break;
      t.read(value.byteLength);
      take(decoder.decode(value, { stream: true }));
    }
  } catch (e) {
    // a refused line or a cancel: stop reading the rest
    await reader.cancel().catch(() => {});
    throw e;
  }
  take(decoder.decode());
  sink.line?.(pending.join(''));
  return bytesToHex(hash.digest());
}

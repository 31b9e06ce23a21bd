// How far an import has come, for the Library's progress line: bytes of the file read, records
// checked, records placed in the store. The tracker also carries the import's cancel signal: each
// step checks it, so a cancelled import stops at the next record and writes nothing.

import { formatBytes } from './errors.ts';

export interface ImportProgress {
  fileName: string;
  bytesRead: number;
  bytesTotal: number;
  /** Records (run file) or samples (lm-eval lines) checked so far. */
  recordsVerified: number;
  /** Records placed in the store so far, of recordsTotal (null until storing starts). */
  recordsStored: number;
  recordsTotal: number | null;
}

export interface ImportControl {
  onProgress?: (p: ImportProgress) => void;
  /** Aborting it stops the import; nothing of it is stored. */
  signal?: AbortSignal;
}

/** The progress in words: "read 12.3 MB of 40.1 MB, 51,200 records checked, 0 of 100,000 stored". */
export function progressText(p: ImportProgress): string {
  const parts = [`read ${formatBytes(p.bytesRead)} of ${formatBytes(p.bytesTotal)}`, `${p.recordsVerified.toLocaleString('en')} records checked`];
  if (p.recordsTotal !== null) parts.push(`${p.recordsStored.toLocaleString('en')} of ${p.recordsTotal.toLocaleString('en')} stored`);
  return parts.join(', ');
}

/** At most one report per this many milliseconds while reading (storing reports each batch). */
const REPORT_EVERY_MS = 100;

export class ImportTracker {
  private p: ImportProgress;
  private last = -Infinity;

  constructor(
    fileName: string,
    bytesTotal: number,
    private readonly c: ImportControl = {},
  ) {
    this.p = { fileName, bytesRead: 0, bytesTotal, recordsVerified: 0, recordsStored: 0, recordsTotal: null };
  }

  get signal(): AbortSignal | undefined {
    return this.c.signal;
  }

  read(bytes: number): void {
    this.update({ bytesRead: this.p.bytesRead + bytes });
  }

  verified(records: number): void {
    this.update({ recordsVerified: records });
  }

  storing(total: number): void {
    this.update({ recordsTotal: total, recordsStored: 0 }, true);
  }

  /** Called once per stored batch (store IMPORT_BATCH records), so every batch is reported. */
  stored(records: number): void {
    this.update({ recordsStored: records }, true);
  }

  /** Throws the signal's reason once the import is cancelled. */
  check(): void {
    this.c.signal?.throwIfAborted();
  }

  private update(next: Partial<ImportProgress>, now = false): void {
    this.check();
    this.p = { ...this.p, ...next };
    if (!this.c.onProgress) return;
    const t = performance.now();
    if (!now && t - this.last < REPORT_EVERY_MS) return;
    this.last = t;
    this.c.onProgress({ ...this.p });
  }
}

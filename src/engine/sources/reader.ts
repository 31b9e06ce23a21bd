// One way to read the files of a checkpoint in Hugging Face layout, whatever it comes from
// (Hub over HTTP, files the user picked, a folder on disk). Weights are read by byte range only:
// a multi-GB file is never held whole in memory (browsers cap an ArrayBuffer near 2 GB).

import { EngineError, type CheckpointSource } from '../types.ts';
import { FilesReader } from './files.ts';
import { FsReader } from './fs.ts';
import { HubReader } from './hub.ts';

export interface CheckpointReader {
  /** Human label: "org/name@rev" for the Hub, the folder name otherwise. */
  readonly label: string;
  readonly hubRef?: { repo: string; revision: string };
  exists(file: string): Promise<boolean>;
  size(file: string): Promise<number>;
  /** The whole file as UTF-8 text (for the small JSON files). */
  text(file: string): Promise<string>;
  /** Bytes [start, end) of a file; never the whole multi-GB file. */
  range(file: string, start: number, end: number): Promise<Uint8Array>;
}

/** Called as bytes arrive: `loaded` bytes of `file` delivered so far (all reads together), of `total`. */
export type BytesListener = (file: string, loaded: number, total: number) => void;

export function openReader(source: CheckpointSource, onBytes?: BytesListener): CheckpointReader {
  switch (source.kind) {
    case 'hub':
      return new HubReader(source, onBytes);
    case 'files':
      return new FilesReader(source.files, onBytes);
    case 'fs':
      return new FsReader(source.dir, onBytes);
    default:
      throw new EngineError('bad-input', `unknown checkpoint source kind ${JSON.stringify((source as { kind?: unknown }).kind)}`);
  }
}

/** A file name inside a checkpoint: relative, forward slashes, no `..`, no scheme. */
export function checkFileName(file: string): void {
  if (
    file.length === 0 ||
    file.startsWith('/') ||
    file.includes('\\') ||
    file.includes('://') ||
    file.split('/').some((seg) => seg === '..' || seg === '.' || seg === '')
  ) {
    throw new EngineError('bad-checkpoint', `refusing file name ${JSON.stringify(file)}: not a plain relative path`);
  }
}

/** Checks a requested byte range against a file size. */
export function checkRange(label: string, file: string, start: number, end: number, size: number): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new EngineError('internal', `bad byte range [${start}, ${end}) for ${file} in ${label}`);
  }
  if (end > size) {
    throw new EngineError('bad-checkpoint', `${file} in ${label} is truncated: bytes [${start}, ${end}) requested, file has ${size}`);
  }
}

/** Per-file running totals of delivered bytes, reported through a BytesListener (n < 0 takes back a failed read). */
export class ByteCounter {
  private readonly loaded = new Map<string, number>();
  constructor(private readonly listener?: BytesListener) {}
  add(file: string, n: number, total: number): void {
    if (!this.listener || n === 0) return;
    const loaded = (this.loaded.get(file) ?? 0) + n;
    this.loaded.set(file, loaded);
    this.listener(file, Math.min(loaded, total), total);
  }
}

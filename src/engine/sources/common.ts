// Helpers shared by the checkpoint readers.

import { EngineError } from '../types.ts';
import { quote } from '../../util/clip.ts';

/** Called as bytes arrive: `loaded` bytes of `file` delivered so far (all reads together), of `total`. */
export type BytesListener = (file: string, loaded: number, total: number) => void;

/** A file name inside a checkpoint: relative, forward slashes, no `..`, no scheme. */
export function checkFileName(file: string): void {
  if (
    file.length === 0 ||
    file.startsWith('/') ||
    file.includes('\\') ||
    file.includes('://') ||
    file.split('/').some((seg) => seg === '..' || seg === '.' || seg === '')
  ) {
    throw new EngineError('bad-checkpoint', `refusing file name ${quote(file)}: not a plain relative path`);
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

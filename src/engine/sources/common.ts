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

/**
 * A checkpoint reader over files already at hand, by name (files the user picked, byte arrays in
 * memory): lookup, byte counting and range checks written once; a subclass says how big an item
 * is, how to read it, and how to word a missing file.
 */
export abstract class HeldFilesReader<T> {
  private readonly counter: ByteCounter;

  constructor(
    readonly label: string,
    private readonly items: Map<string, T>,
    onBytes?: BytesListener,
  ) {
    this.counter = new ByteCounter(onBytes);
  }

  protected abstract sizeOf(item: T): number;
  protected abstract textOf(file: string, item: T): Promise<string>;
  protected abstract bytesOf(item: T, start: number, end: number): Promise<Uint8Array>;
  protected abstract missing(file: string): string;

  async exists(file: string): Promise<boolean> {
    return this.items.has(file);
  }

  async size(file: string): Promise<number> {
    return this.sizeOf(this.get(file));
  }

  async text(file: string): Promise<string> {
    const item = this.get(file);
    const text = await this.textOf(file, item);
    this.counter.add(file, this.sizeOf(item), this.sizeOf(item));
    return text;
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    const item = this.get(file);
    const size = this.sizeOf(item);
    checkRange(this.label, file, start, end, size);
    const bytes = await this.bytesOf(item, start, end);
    this.counter.add(file, bytes.length, size);
    return bytes;
  }

  private get(file: string): T {
    const item = this.items.get(file);
    if (item === undefined) throw new EngineError('not-found', this.missing(file));
    return item;
  }
}

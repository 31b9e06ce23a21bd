// Files held in memory (generated checkpoints in tests and tools).

import { EngineError } from '../types.ts';
import type { CheckpointReader } from './reader.ts';
import { ByteCounter, checkRange, type BytesListener } from './common.ts';

export class MemoryReader implements CheckpointReader {
  private readonly files: Map<string, Uint8Array>;
  private readonly counter: ByteCounter;

  constructor(
    readonly label: string,
    files: Record<string, Uint8Array | string>,
    onBytes?: BytesListener,
  ) {
    const enc = new TextEncoder();
    this.files = new Map(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v]));
    this.counter = new ByteCounter(onBytes);
  }

  async exists(file: string): Promise<boolean> {
    return this.files.has(file);
  }

  async size(file: string): Promise<number> {
    return this.get(file).length;
  }

  async text(file: string): Promise<string> {
    const bytes = this.get(file);
    this.counter.add(file, bytes.length, bytes.length);
    return new TextDecoder().decode(bytes);
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    const bytes = this.get(file);
    checkRange(this.label, file, start, end, bytes.length);
    this.counter.add(file, end - start, bytes.length);
    return bytes.slice(start, end);
  }

  private get(file: string): Uint8Array {
    const f = this.files.get(file);
    if (!f) throw new EngineError('not-found', `${file} not found in ${this.label}`);
    return f;
  }
}

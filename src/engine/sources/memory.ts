// Files held in memory (generated checkpoints in tests and tools).

import type { CheckpointReader } from './reader.ts';
import { HeldFilesReader, type BytesListener } from './common.ts';

export class MemoryReader extends HeldFilesReader<Uint8Array> implements CheckpointReader {
  constructor(label: string, files: Record<string, Uint8Array | string>, onBytes?: BytesListener) {
    const enc = new TextEncoder();
    super(label, new Map(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v])), onBytes);
  }

  protected sizeOf(bytes: Uint8Array): number {
    return bytes.length;
  }

  protected async textOf(_file: string, bytes: Uint8Array): Promise<string> {
    return new TextDecoder().decode(bytes);
  }

  protected async bytesOf(bytes: Uint8Array, start: number, end: number): Promise<Uint8Array> {
    return bytes.slice(start, end);
  }

  protected missing(file: string): string {
    return `${file} not found in ${this.label}`;
  }
}

// A checkpoint folder on disk (Node only: tests, benchmarks, CLIs). node:fs is imported lazily
// through a computed specifier so the browser bundle never pulls it in.

import { EngineError } from '../types.ts';
import { checkTextFileSize } from '../limits.ts';
import type { CheckpointReader } from './reader.ts';
import { ByteCounter, checkFileName, checkRange, type BytesListener } from './common.ts';

type NodeFs = typeof import('node:fs/promises');
let fsModule: Promise<NodeFs> | undefined;
function nodeFs(): Promise<NodeFs> {
  const specifier = 'node:fs/promises';
  fsModule ??= import(/* @vite-ignore */ specifier) as Promise<NodeFs>;
  return fsModule;
}

export class FsReader implements CheckpointReader {
  readonly label: string;
  private readonly dir: string;
  private readonly counter: ByteCounter;

  constructor(dir: string, onBytes?: BytesListener) {
    if (typeof dir !== 'string' || dir.length === 0) throw new EngineError('bad-input', 'fs source needs a folder path');
    this.dir = dir.replace(/[\\/]+$/, '') || '/';
    this.label = this.dir.split(/[\\/]/).pop() || this.dir;
    this.counter = new ByteCounter(onBytes);
  }

  private path(file: string): string {
    checkFileName(file);
    return `${this.dir}/${file}`;
  }

  async exists(file: string): Promise<boolean> {
    const fs = await nodeFs();
    try {
      return (await fs.stat(this.path(file))).isFile();
    } catch {
      return false;
    }
  }

  async size(file: string): Promise<number> {
    const fs = await nodeFs();
    try {
      const st = await fs.stat(this.path(file));
      if (!st.isFile()) throw new Error('not a file');
      return st.size;
    } catch (e) {
      throw this.missing(file, e);
    }
  }

  async text(file: string): Promise<string> {
    checkTextFileSize(this.label, file, await this.size(file));
    const fs = await nodeFs();
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(this.path(file));
    } catch (e) {
      throw this.missing(file, e);
    }
    this.counter.add(file, bytes.length, bytes.length);
    return new TextDecoder().decode(bytes);
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    const fs = await nodeFs();
    let handle: Awaited<ReturnType<NodeFs['open']>>;
    try {
      handle = await fs.open(this.path(file), 'r');
    } catch (e) {
      throw this.missing(file, e);
    }
    try {
      const { size } = await handle.stat();
      checkRange(this.label, file, start, end, size);
      const out = new Uint8Array(end - start);
      let filled = 0;
      while (filled < out.length) {
        const { bytesRead } = await handle.read(out, filled, out.length - filled, start + filled);
        if (bytesRead === 0) throw new EngineError('bad-checkpoint', `${file} in ${this.label} ended early at byte ${start + filled}`);
        filled += bytesRead;
      }
      this.counter.add(file, out.length, size);
      return out;
    } finally {
      await handle.close();
    }
  }

  private missing(file: string, e: unknown): EngineError {
    if (e instanceof EngineError) return e;
    return new EngineError('not-found', `${file} not found in folder ${this.label} (${e instanceof Error ? e.message : String(e)})`);
  }
}

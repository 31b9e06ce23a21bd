// Files the user picked (folder input, drag and drop, File System Access API), read by Blob.slice.
// A folder pick names files "folder/config.json" (webkitRelativePath); the common top folder is
// stripped so names match the Hub layout.

import { EngineError } from '../types.ts';
import { checkTextFileSize } from '../limits.ts';
import type { CheckpointReader } from './reader.ts';
import { ByteCounter, checkRange, type BytesListener } from './common.ts';

export class FilesReader implements CheckpointReader {
  readonly label: string;
  private readonly byName = new Map<string, File>();
  private readonly counter: ByteCounter;

  constructor(files: File[], onBytes?: BytesListener) {
    if (files.length === 0) throw new EngineError('bad-input', 'no files were picked');
    const paths = files.map((f) => ((f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name).replace(/\\/g, '/'));
    const tops = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
    const top = tops.size === 1 ? [...tops][0] : '';
    this.label = top || 'picked files';
    paths.forEach((p, i) => {
      const name = top ? p.slice(top.length + 1) : p;
      if (this.byName.has(name)) throw new EngineError('bad-input', `${name} was picked twice`);
      this.byName.set(name, files[i]);
    });
    this.counter = new ByteCounter(onBytes);
  }

  async exists(file: string): Promise<boolean> {
    return this.byName.has(file);
  }

  async size(file: string): Promise<number> {
    return this.get(file).size;
  }

  async text(file: string): Promise<string> {
    const f = this.get(file);
    checkTextFileSize(this.label, file, f.size);
    const text = await f.text();
    this.counter.add(file, f.size, f.size);
    return text;
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    const f = this.get(file);
    checkRange(this.label, file, start, end, f.size);
    const bytes = new Uint8Array(await f.slice(start, end).arrayBuffer());
    this.counter.add(file, bytes.length, f.size);
    return bytes;
  }

  private get(file: string): File {
    const f = this.byName.get(file);
    if (!f) throw new EngineError('not-found', `${file} is not among the picked files (${this.label})`);
    return f;
  }
}

// Files the user picked (folder input, drag and drop, File System Access API), read by Blob.slice.
// A folder pick names files "folder/config.json" (webkitRelativePath); the common top folder is
// stripped so names match the Hub layout.

import { EngineError } from '../types.ts';
import { checkTextFileSize } from '../limits.ts';
import type { CheckpointReader } from './reader.ts';
import { HeldFilesReader, type BytesListener } from './common.ts';

export class FilesReader extends HeldFilesReader<File> implements CheckpointReader {
  constructor(files: File[], onBytes?: BytesListener) {
    const { label, byName } = byPickedName(files);
    super(label, byName, onBytes);
  }

  protected sizeOf(f: File): number {
    return f.size;
  }

  protected async textOf(file: string, f: File): Promise<string> {
    checkTextFileSize(this.label, file, f.size);
    return f.text();
  }

  protected async bytesOf(f: File, start: number, end: number): Promise<Uint8Array> {
    return new Uint8Array(await f.slice(start, end).arrayBuffer());
  }

  protected missing(file: string): string {
    return `${file} is not among the picked files (${this.label})`;
  }
}

/** The picked files by their name in the checkpoint (the common top folder stripped), and the reader's label. */
function byPickedName(files: File[]): { label: string; byName: Map<string, File> } {
  if (files.length === 0) throw new EngineError('bad-input', 'no files were picked');
  const paths = files.map((f) => ((f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name).replace(/\\/g, '/'));
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
  const top = tops.size === 1 ? [...tops][0] : '';
  const byName = new Map<string, File>();
  paths.forEach((p, i) => {
    const name = top ? p.slice(top.length + 1) : p;
    if (byName.has(name)) throw new EngineError('bad-input', `${name} was picked twice`);
    byName.set(name, files[i]);
  });
  return { label: top || 'picked files', byName };
}

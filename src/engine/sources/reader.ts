// One way to read the files of a checkpoint in Hugging Face layout, whatever it comes from
// (Hub over HTTP, files the user picked, a folder on disk). Weights are read by byte range only:
// a multi-GB file is never held whole in memory (browsers cap an ArrayBuffer near 2 GB).

import { EngineError, type CheckpointSource } from '../types.ts';
import type { BytesListener } from './common.ts';
import { FilesReader } from './files.ts';
import { FsReader } from './fs.ts';
import { HubReader } from './hub.ts';
import { quote } from '../../util/clip.ts';

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
  /** What a person should know about where the files came from (e.g. a damaged cached copy replaced), one sentence each. */
  notices?(): string[];
  /** The Hub commit the files are read at, when the revision resolved to one (else null). */
  commit?(): Promise<string | null>;
}

export type { BytesListener } from './common.ts';

export function openReader(source: CheckpointSource, onBytes?: BytesListener, opts: { signal?: AbortSignal } = {}): CheckpointReader {
  switch (source.kind) {
    case 'hub':
      return new HubReader(source, onBytes, undefined, { signal: opts.signal });
    case 'files':
      return new FilesReader(source.files, onBytes);
    case 'fs':
      return new FsReader(source.dir, onBytes);
    default:
      throw new EngineError('bad-input', `unknown checkpoint source kind ${quote((source as { kind?: unknown }).kind)}`);
  }
}

// A CheckpointReader that keeps a Hub checkpoint's files in the weight cache: the first load
// downloads each file whole into the Cache API, later loads (also offline) read byte ranges of
// the cached Blob. Store errors become EngineErrors so their meaning survives the worker boundary.

import type { BytesListener, CheckpointReader } from '../engine/sources/reader.ts';
import { EngineError, isEngineError } from '../engine/types.ts';
import { isStoreError } from './errors.ts';
import type { WeightCache } from './weight-cache.ts';

/** What the Hub reader offers beyond CheckpointReader (src/engine/sources/hub.ts HubReader). */
export interface HubFileReader extends CheckpointReader {
  readonly hubRef: { repo: string; revision: string };
  url(file: string): string;
}

export class CachedHubReader implements CheckpointReader {
  readonly label: string;
  readonly hubRef: { repo: string; revision: string };
  private readonly blobs = new Map<string, Promise<Blob>>();

  constructor(
    private readonly hub: HubFileReader,
    private readonly cache: WeightCache,
    private readonly opts: { token?: string; onBytes?: BytesListener } = {},
  ) {
    this.label = hub.label;
    this.hubRef = hub.hubRef;
  }

  async exists(file: string): Promise<boolean> {
    if (await this.cached(file)) return true;
    try {
      return await this.hub.exists(file);
    } catch (e) {
      // Offline with this model cached: every file a load needed was cached by the first load,
      // so an uncached file is one the checkpoint does not have (e.g. a shard index).
      if (isEngineError(e) && e.code === 'network' && (await this.cache.hasModel(this.hubRef.repo, this.hubRef.revision))) return false;
      throw e;
    }
  }

  async size(file: string): Promise<number> {
    return (await this.blob(file)).size;
  }

  async text(file: string): Promise<string> {
    return (await this.blob(file)).text();
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    const blob = await this.blob(file);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
      throw new EngineError('internal', `bad byte range [${start}, ${end}) for ${file} in ${this.label}`);
    }
    if (end > blob.size) {
      throw new EngineError('bad-checkpoint', `${file} in ${this.label} is truncated: bytes [${start}, ${end}) requested, file has ${blob.size}`);
    }
    return new Uint8Array(await blob.slice(start, end).arrayBuffer());
  }

  private async cached(file: string) {
    return this.cache.lookup({ ...this.hubRef, file });
  }

  /** The whole file as a (disk-backed) Blob: the cached copy when it matches the Hub's size. */
  private blob(file: string): Promise<Blob> {
    let p = this.blobs.get(file);
    if (!p) {
      p = this.load(file);
      this.blobs.set(file, p);
      p.catch(() => this.blobs.delete(file));
    }
    return p;
  }

  private async load(file: string): Promise<Blob> {
    let expectedSize: number | undefined;
    try {
      expectedSize = await this.hub.size(file);
    } catch (e) {
      // Offline (or the Hub is down): a cached copy is the file.
      if (!(isEngineError(e) && e.code === 'network')) throw e;
      const hit = await this.cached(file);
      if (hit) return hit.blob;
      throw e;
    }
    try {
      return await this.cache.getCachedOrFetch({
        ...this.hubRef,
        file,
        url: this.hub.url(file),
        expectedSize,
        headers: this.opts.token ? { Authorization: `Bearer ${this.opts.token}` } : undefined,
        onBytes: this.opts.onBytes ? (loaded, total) => this.opts.onBytes!(file, loaded, total) : undefined,
      });
    } catch (e) {
      if (!isStoreError(e)) throw e;
      const code = e.code === 'insufficient-space' || e.code === 'quota-exceeded' ? 'out-of-memory' : 'network';
      throw new EngineError(code, e.message);
    }
  }
}

/**
 * A reader that goes through the weight cache once `cache` opens, or straight to the Hub when it
 * cannot (no Cache API): the engine worker builds readers synchronously while the cache opens.
 */
export function cachingHubReader(
  hub: HubFileReader,
  cache: Promise<WeightCache | null>,
  opts: { token?: string; onBytes?: BytesListener } = {},
): CheckpointReader {
  const inner: Promise<CheckpointReader> = cache.then((c) => (c ? new CachedHubReader(hub, c, opts) : hub));
  return {
    label: hub.label,
    hubRef: hub.hubRef,
    exists: async (file) => (await inner).exists(file),
    size: async (file) => (await inner).size(file),
    text: async (file) => (await inner).text(file),
    range: async (file, start, end) => (await inner).range(file, start, end),
  };
}

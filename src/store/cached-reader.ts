// A CheckpointReader that keeps a Hub checkpoint's files in the weight cache: the revision name is
// resolved to its commit first (the Hub's revision API) and files are cached and read at that commit;
// the first load downloads each file whole into the Cache API, later loads (also offline) read byte
// ranges of the cached Blob, each checked against its stored hashes as it is read. A cached copy that
// fails the check is dropped and downloaded again, and the load says so (notices()). An endpoint
// without a revision API has no commit: files cached under the revision name are revalidated against
// the server's entity tags on each load, and one it states no tag for is downloaded again. Store errors
// become EngineErrors so their meaning survives the worker boundary.

import { checkTextFileSize } from '../engine/limits.ts';
import type { BytesListener, CheckpointReader } from '../engine/sources/reader.ts';
import type { HubRevision } from '../engine/sources/hub.ts';
import type { HubTimeouts } from '../engine/sources/timeouts.ts';
import { EngineError, isEngineError } from '../engine/types.ts';
import { isStoreError } from './errors.ts';
import { SHA256_HEX } from '../util/hash.ts';
import { shortCommit, type CachedCopy, type WeightCache } from './weight-cache.ts';

/** What the Hub reader offers beyond CheckpointReader (src/engine/sources/hub.ts HubReader). */
export interface HubFileReader extends CheckpointReader {
  readonly hubRef: { repo: string; revision: string };
  readonly signal?: AbortSignal;
  url(file: string): string;
  resolveRevision(): Promise<HubRevision | null>;
  /** A file's size and the entity tag the server states for it (revalidates a copy cached under a revision name). */
  validator(file: string): Promise<{ size: number; etag?: string }>;
  pin(commit: string): void;
}

export interface CachedReaderOptions {
  token?: string;
  onBytes?: BytesListener;
  timeouts?: HubTimeouts;
}

/** How the commit was found: asked of the Hub, stated by the source, the last one known here (Hub unreachable), or none (no revision API). */
type Resolution = { commit: string; files: HubRevision['files']; how: 'hub' | 'stated' | 'offline' | 'name' };

const unreachable = (e: unknown) => isEngineError(e) && (e.code === 'network' || e.code === 'timeout');

export class CachedHubReader implements CheckpointReader {
  readonly label: string;
  readonly hubRef: { repo: string; revision: string };
  private readonly copies = new Map<string, Promise<CachedCopy>>();
  private readonly replaced = new WeakSet<CachedCopy>();
  private resolution: Promise<Resolution> | null = null;
  private readonly notes: string[] = [];

  constructor(
    private readonly hub: HubFileReader,
    private readonly cache: WeightCache,
    private readonly opts: CachedReaderOptions = {},
  ) {
    this.label = hub.label;
    this.hubRef = hub.hubRef;
  }

  /** What a person should know about this load's files (offline copy, a damaged copy replaced), one sentence each. */
  notices(): string[] {
    return [...this.notes];
  }

  /** The commit the files are read at (resolves the revision on first use); null when the endpoint
   *  has no revision API (files read under the revision's name). */
  async commit(): Promise<string | null> {
    const r = await this.resolve();
    return r.how === 'name' ? null : r.commit;
  }

  async exists(file: string): Promise<boolean> {
    const r = await this.resolve();
    if (r.how === 'hub' && Object.keys(r.files).length > 0) return file in r.files;
    if (await this.cache.lookup({ repo: this.hubRef.repo, commit: r.commit, file })) return true;
    // Offline with this commit cached: every file a load needed was cached by the first load,
    // so an uncached file is one the checkpoint does not have (e.g. a shard index).
    if (r.how === 'offline') return false;
    try {
      return await this.hub.exists(file);
    } catch (e) {
      if (unreachable(e) && (await this.cache.hasModel(this.hubRef.repo, r.commit))) return false;
      throw e;
    }
  }

  async size(file: string): Promise<number> {
    return (await this.copy(file, false)).size;
  }

  /** A text file within its bound (engine/limits.ts): refused from its stated size before it is
   *  downloaded, as its bytes pass the bound while it downloads, and as a cached copy. */
  async text(file: string): Promise<string> {
    return this.verified(
      file,
      (c) => {
        checkTextFileSize(this.label, file, c.size);
        return c.text();
      },
      true,
    );
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
      throw new EngineError('internal', `bad byte range [${start}, ${end}) for ${file} in ${this.label}`);
    }
    return this.verified(file, async (c) => {
      if (end > c.size) {
        throw new EngineError('bad-checkpoint', `${file} in ${this.label} is truncated: bytes [${start}, ${end}) requested, file has ${c.size}`);
      }
      return c.read(start, end);
    });
  }

  private resolve(): Promise<Resolution> {
    this.resolution ??= this.resolveOnce();
    const p = this.resolution;
    p.catch(() => {
      if (this.resolution === p) this.resolution = null;
    });
    return p;
  }

  private async resolveOnce(): Promise<Resolution> {
    const { repo, revision } = this.hubRef;
    let r: HubRevision | null;
    try {
      r = await this.hub.resolveRevision();
    } catch (e) {
      if (!unreachable(e)) throw e;
      const last = await this.cache.getRef(repo, revision);
      if (!last) throw e;
      const when = last.resolvedAt ? ` on ${last.resolvedAt.slice(0, 10)}` : '';
      this.notes.push(`The Hub could not be reached, so ${repo}@${revision} was loaded as it resolved here last${when} (commit ${shortCommit(last.commit)}).`);
      return { commit: last.commit, files: {}, how: 'offline' };
    }
    if (r === null) return { commit: revision, files: {}, how: 'name' };
    this.hub.pin(r.commit);
    await this.cache.setRef(repo, revision, r.commit).catch(() => undefined); // only offline loads need it
    return { commit: r.commit, files: r.files, how: r.stated ? 'stated' : 'hub' };
  }

  /** `use` on the file's cached copy; a copy that fails its hash check is dropped, downloaded again (once) and used. */
  private async verified<T>(file: string, use: (c: CachedCopy) => Promise<T>, text = false): Promise<T> {
    const c = await this.copy(file, text);
    try {
      return await use(c);
    } catch (e) {
      if (!(isEngineError(e) && e.code === 'integrity')) throw e;
      if (!this.replaced.has(c)) {
        this.replaced.add(c);
        this.notes.push(`The cached copy of ${file} did not match its hash, so it was downloaded again.`);
        await this.cache.drop(c.meta);
        this.copies.delete(file);
      }
      return use(await this.copy(file, text));
    }
  }

  private copy(file: string, text: boolean): Promise<CachedCopy> {
    let p = this.copies.get(file);
    if (!p) {
      p = this.load(file, text);
      this.copies.set(file, p);
      const mine = p;
      p.catch(() => {
        if (this.copies.get(file) === mine) this.copies.delete(file);
      });
    }
    return p;
  }

  /** The cached copy at the resolved commit, or the file downloaded into the cache first (a text
   *  file only within its bound). */
  private async load(file: string, text: boolean): Promise<CachedCopy> {
    const checkSize = text ? (bytes: number) => checkTextFileSize(this.label, file, bytes) : undefined;
    const r = await this.resolve();
    const ref = { repo: this.hubRef.repo, commit: r.commit, file };
    const stated = r.files[file];
    let expectedSize = stated?.size;
    let sha256 = stated?.sha256;
    if (r.how === 'name') {
      // No commit to key by: a copy cached under the name is reused only while the server's
      // validator says it is the same content (an LFS SHA-256, else the ETag it was cached with);
      // a file the server states none for is downloaded again. Offline, a cached copy is the file.
      let v: { size: number; etag?: string };
      try {
        v = await this.hub.validator(file);
      } catch (e) {
        if (!unreachable(e)) throw e;
        const hit = await this.cache.lookup(ref);
        if (hit) return hit;
        throw e;
      }
      expectedSize = v.size;
      if (v.etag !== undefined && SHA256_HEX.test(v.etag)) sha256 = v.etag;
      else {
        const old = await this.cache.lookup(ref, { size: expectedSize });
        if (old && v.etag !== undefined && old.meta.etag === v.etag) return old;
        if (old) await this.cache.drop(ref);
      }
    }
    if (expectedSize !== undefined) checkSize?.(expectedSize);
    const hit = await this.cache.lookup(ref, { size: expectedSize, sha256 });
    if (hit) return hit;
    expectedSize ??= await this.hub.size(file);
    checkSize?.(expectedSize);
    try {
      return await this.cache.getCachedOrFetch({
        ...ref,
        url: this.hub.url(file),
        expectedSize,
        sha256,
        headers: this.opts.token ? { Authorization: `Bearer ${this.opts.token}` } : undefined,
        onBytes: this.opts.onBytes ? (loaded, total) => this.opts.onBytes!(file, loaded, total) : undefined,
        signal: this.hub.signal,
        timeouts: this.opts.timeouts,
        checkSize,
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
export function cachingHubReader(hub: HubFileReader, cache: Promise<WeightCache | null>, opts: CachedReaderOptions = {}): CheckpointReader {
  let opened: CheckpointReader | null = null;
  const inner: Promise<CheckpointReader> = cache.then((c) => (opened = c ? new CachedHubReader(hub, c, opts) : hub));
  return {
    label: hub.label,
    hubRef: hub.hubRef,
    exists: async (file) => (await inner).exists(file),
    size: async (file) => (await inner).size(file),
    text: async (file) => (await inner).text(file),
    range: async (file, start, end) => (await inner).range(file, start, end),
    notices: () => opened?.notices?.() ?? [],
    commit: async () => (await inner).commit?.() ?? null,
  };
}

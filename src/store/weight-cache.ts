// Model files in the Cache API under a versioned cache name, keyed by (repo, revision, file).
// A download is checked as it streams (byte count, and SHA-256 when the Hub gave one) and stored
// only when it is whole; a cached file of another size or hash is fetched again. The caller gets
// a Blob: `blob.slice(start, end)` reads a tensor without holding the multi-GB file in memory.

import { formatBytes, isQuotaError, StoreError } from './errors.ts';
// Incremental SHA-256 checks a multi-GB download as it streams (WebCrypto's digest() needs it whole).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Bump when the stored layout changes; older caches are deleted by `open`. */
export const WEIGHT_CACHE_NAME = 'reachlab-weights-v1';
const CACHE_PREFIX = 'reachlab-weights-';
const KEY_ORIGIN = 'https://reachlab.invalid/weights';
const H_SIZE = 'x-reachlab-size';
const H_SHA = 'x-reachlab-sha256';
const H_AT = 'x-reachlab-cached-at';

/** The parts of CacheStorage / Cache / StorageManager used here (injectable for tests). */
export interface CacheLike {
  match(request: string): Promise<Response | undefined>;
  put(request: string, response: Response): Promise<void>;
  delete(request: string): Promise<boolean>;
  keys(): Promise<readonly { url: string }[]>;
}
export interface CacheStorageLike {
  open(name: string): Promise<CacheLike>;
  keys(): Promise<string[]>;
  delete(name: string): Promise<boolean>;
}
export interface StorageManagerLike {
  estimate(): Promise<{ usage?: number; quota?: number }>;
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
}

export interface FileRef {
  repo: string;
  revision: string;
  /** Path inside the repo, e.g. "model.safetensors". */
  file: string;
}

export interface CachedFileRequest extends FileRef {
  /** Where to download it from (e.g. the Hub resolve URL). */
  url: string;
  /** Size the source reports; a cached copy of another size is fetched again. */
  expectedSize?: number;
  /** Lowercase hex SHA-256 when known (Hub LFS oid); a download that differs is refused. */
  sha256?: string;
  /** Request headers (Authorization for gated repos). */
  headers?: Record<string, string>;
  /** Download progress: bytes of this file received so far, of total (0 when unknown). */
  onBytes?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
}

export interface CachedFile extends FileRef {
  size: number;
  sha256?: string;
  cachedAt: string;
}

export interface CachedModel {
  repo: string;
  revision: string;
  files: CachedFile[];
  totalBytes: number;
}

export interface WeightCacheOptions {
  caches?: CacheStorageLike;
  storage?: StorageManagerLike;
  fetch?: typeof fetch;
}

export class WeightCache {
  private persistAsked = false;

  private constructor(
    private readonly cache: CacheLike,
    private readonly storage: StorageManagerLike | undefined,
    private readonly fetchFn: typeof fetch,
  ) {}

  /** Opens the current cache and deletes caches of earlier layouts. */
  static async open(opts: WeightCacheOptions = {}): Promise<WeightCache> {
    const g = globalThis as { caches?: CacheStorageLike; navigator?: { storage?: StorageManagerLike } };
    const caches = opts.caches ?? g.caches;
    if (!caches) throw new StoreError('unavailable', 'The Cache API is not available here (insecure context or private window); model files are downloaded on every load.');
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE_PREFIX) && name !== WEIGHT_CACHE_NAME) await caches.delete(name);
    }
    return new WeightCache(await caches.open(WEIGHT_CACHE_NAME), opts.storage ?? g.navigator?.storage, opts.fetch ?? ((...a) => fetch(...a)));
  }

  /** The cached file when its size (and hash, when both are known) match; never downloads. */
  async lookup(ref: FileRef, expect: { size?: number; sha256?: string } = {}): Promise<{ blob: Blob; meta: CachedFile } | null> {
    const res = await this.cache.match(cacheKey(ref));
    if (!res) return null;
    const meta = metaOf(ref, res);
    const blob = await res.blob();
    const damaged = blob.size !== meta.size;
    const stale = (expect.size !== undefined && expect.size !== meta.size) || (expect.sha256 !== undefined && meta.sha256 !== undefined && expect.sha256 !== meta.sha256);
    if (damaged || stale) {
      await this.cache.delete(cacheKey(ref));
      return null;
    }
    return { blob, meta };
  }

  /** The file from the cache, or downloaded into it first. */
  async getCachedOrFetch(req: CachedFileRequest): Promise<Blob> {
    const hit = await this.lookup(req, { size: req.expectedSize, sha256: req.sha256 });
    if (hit) return hit.blob;
    await this.download(req);
    const stored = await this.lookup(req, { size: req.expectedSize, sha256: req.sha256 });
    if (!stored) throw new StoreError('download-failed', `${req.file} of ${req.repo}@${req.revision} was downloaded but could not be read back from the cache`);
    return stored.blob;
  }

  /** Free bytes per navigator.storage.estimate(), or null when the browser does not say. */
  async freeBytes(): Promise<number | null> {
    if (!this.storage) return null;
    const { usage, quota } = await this.storage.estimate();
    if (quota === undefined) return null;
    return Math.max(0, quota - (usage ?? 0));
  }

  /** Throws 'insufficient-space' ("needs 1.20 GB, 0.80 GB free") when `bytes` would not fit. */
  async ensureSpace(bytes: number, what: string): Promise<void> {
    const free = await this.freeBytes();
    if (free !== null && bytes > free) {
      throw new StoreError('insufficient-space', `${what} needs ${formatBytes(bytes)}, ${formatBytes(free)} free in browser storage; delete cached models or free disk space`);
    }
  }

  /** Asks once that the origin's storage not be evicted under pressure; true when granted. */
  async requestPersistence(): Promise<boolean> {
    if (!this.storage?.persist) return false;
    if (this.storage.persisted && (await this.storage.persisted())) return true;
    this.persistAsked = true;
    return this.storage.persist();
  }

  async list(): Promise<CachedModel[]> {
    const models = new Map<string, CachedModel>();
    for (const req of await this.cache.keys()) {
      const ref = refOf(req.url);
      if (!ref) continue;
      const res = await this.cache.match(req.url);
      if (!res) continue;
      const meta = metaOf(ref, res);
      const id = `${ref.repo}@${ref.revision}`;
      const m = models.get(id) ?? { repo: ref.repo, revision: ref.revision, files: [], totalBytes: 0 };
      m.files.push(meta);
      m.totalBytes += meta.size;
      models.set(id, m);
    }
    const out = [...models.values()];
    for (const m of out) m.files.sort((a, b) => a.file.localeCompare(b.file));
    return out.sort((a, b) => `${a.repo}@${a.revision}`.localeCompare(`${b.repo}@${b.revision}`));
  }

  async hasModel(repo: string, revision: string): Promise<boolean> {
    for (const req of await this.cache.keys()) {
      const ref = refOf(req.url);
      if (ref && ref.repo === repo && ref.revision === revision) return true;
    }
    return false;
  }

  /** Deletes every cached file of a model; returns how many. */
  async deleteModel(repo: string, revision: string): Promise<number> {
    let n = 0;
    for (const req of await this.cache.keys()) {
      const ref = refOf(req.url);
      if (ref && ref.repo === repo && ref.revision === revision && (await this.cache.delete(req.url))) n++;
    }
    return n;
  }

  private async download(req: CachedFileRequest): Promise<void> {
    const where = `${req.file} of ${req.repo}@${req.revision}`;
    if (req.expectedSize !== undefined) await this.ensureSpace(req.expectedSize, where);
    if (!this.persistAsked) await this.requestPersistence().catch(() => false);
    let res: Response;
    try {
      res = await this.fetchFn(req.url, { headers: req.headers, signal: req.signal });
    } catch (e) {
      throw new StoreError('download-failed', `cannot download ${where}: offline or unreachable (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      throw new StoreError('download-failed', `cannot download ${where}: HTTP ${res.status}`);
    }
    const lengthHeader = res.headers.get('content-length');
    const total = req.expectedSize ?? (lengthHeader !== null ? Number(lengthHeader) : 0);
    if (req.expectedSize === undefined && total > 0) {
      try {
        await this.ensureSpace(total, where);
      } catch (e) {
        await res.body.cancel();
        throw e;
      }
    }
    const hash = req.sha256 !== undefined ? sha256.create() : null;
    let loaded = 0;
    // Checks run in flush: an incomplete or wrong body errors the stream, so put() stores nothing.
    const check = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        loaded += chunk.length;
        hash?.update(chunk);
        req.onBytes?.(loaded, total);
        ctl.enqueue(chunk);
      },
      flush(ctl) {
        if (req.expectedSize !== undefined && loaded !== req.expectedSize) {
          ctl.error(new StoreError('download-failed', `${where} arrived with ${loaded} bytes, ${req.expectedSize} expected`));
          return;
        }
        const digest = hash ? bytesToHex(hash.digest()) : undefined;
        if (digest !== undefined && digest !== req.sha256) {
          ctl.error(new StoreError('download-failed', `${where} arrived with SHA-256 ${digest}, ${req.sha256} expected`));
        }
      },
    });
    const size = req.expectedSize ?? (total > 0 ? total : undefined);
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', [H_AT]: new Date().toISOString() };
    if (size !== undefined) headers[H_SIZE] = String(size);
    if (req.sha256) headers[H_SHA] = req.sha256;
    try {
      await this.cache.put(cacheKey(req), new Response(res.body.pipeThrough(check), { headers }));
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (isQuotaError(e)) {
        throw new StoreError('quota-exceeded', `browser storage filled up while caching ${where}; delete cached models or free disk space`, { cause: e });
      }
      throw new StoreError('download-failed', `download of ${where} broke off (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
    if (size === undefined) {
      // Size unknown up front: store it now so later lookups can check the copy.
      const stored = await this.cache.match(cacheKey(req));
      if (stored) {
        const blob = await stored.blob();
        await this.cache.put(cacheKey(req), new Response(blob, { headers: { ...headers, [H_SIZE]: String(blob.size) } }));
      }
    }
  }
}

/** Cache key of a file: a URL that names (repo, revision, file) and no host that serves it. */
export function cacheKey(ref: FileRef): string {
  const file = ref.file.split('/').map(encodeURIComponent).join('/');
  return `${KEY_ORIGIN}/${encodeURIComponent(ref.repo)}/${encodeURIComponent(ref.revision)}/${file}`;
}

function refOf(url: string): FileRef | null {
  if (!url.startsWith(`${KEY_ORIGIN}/`)) return null;
  const [repo, revision, ...file] = url.slice(KEY_ORIGIN.length + 1).split('/');
  if (!repo || !revision || file.length === 0) return null;
  return { repo: decodeURIComponent(repo), revision: decodeURIComponent(revision), file: file.map(decodeURIComponent).join('/') };
}

function metaOf(ref: FileRef, res: Response): CachedFile {
  const size = Number(res.headers.get(H_SIZE) ?? NaN);
  return {
    repo: ref.repo,
    revision: ref.revision,
    file: ref.file,
    size: Number.isFinite(size) ? size : -1,
    sha256: res.headers.get(H_SHA) ?? undefined,
    cachedAt: res.headers.get(H_AT) ?? '',
  };
}

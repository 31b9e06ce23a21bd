// Model files in the Cache API under a versioned cache name, keyed by (repo, commit, file). A download
// is checked as it streams (byte count, and the SHA-256 the Hub states when it states one) and stored
// only when whole, with its SHA-256 and one per 4 MiB block; every read of a cached copy is checked
// against those block hashes as it is read (CachedCopy.read), so damaged bytes are never used. Which
// commit a revision name last resolved to is kept too, for loads while the Hub cannot be reached.

import { formatBytes, isQuotaError, StoreError } from './errors.ts';
import { EngineError, isEngineError } from '../engine/types.ts';
import { fetchWithin, guardStream, HUB_HEADERS_TIMEOUT_MS, HUB_STALL_TIMEOUT_MS, type HubTimeouts } from '../engine/sources/timeouts.ts';
import { SHA256_HEX, sha256Hex } from '../util/hash.ts';
// Incremental SHA-256 checks a multi-GB download as it streams (WebCrypto's digest() needs it whole).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Bump when the stored layout changes; older caches are deleted by `open`. v2: keyed by commit, block hashes. */
export const WEIGHT_CACHE_NAME = 'reachlab-weights-v2';
/** Cached files are verified in blocks of this size: a tensor read hashes at most two blocks more than it reads. */
export const HASH_BLOCK_BYTES = 4 * 2 ** 20;
const CACHE_PREFIX = 'reachlab-weights-';
const KEY_ORIGIN = 'https://reachlab.invalid/weights';
const META_ORIGIN = 'https://reachlab.invalid/weights-meta';
const REF_ORIGIN = 'https://reachlab.invalid/weights-refs';

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
  /** The commit the file is at (or the revision name, where the endpoint resolves no commit). */
  commit: string;
  /** Path inside the repo, e.g. "model.safetensors". */
  file: string;
}

export interface CachedFileRequest extends FileRef {
  /** Where to download it from (e.g. the Hub resolve URL at the commit). */
  url: string;
  /** Size the source reports; a cached copy of another size is fetched again. */
  expectedSize?: number;
  /** Lowercase hex SHA-256 when the Hub states one (LFS oid); a download that differs is refused. */
  sha256?: string;
  /** Request headers (Authorization for gated repos). */
  headers?: Record<string, string>;
  /** Download progress: bytes of this file received so far, of total (0 when unknown). */
  onBytes?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
  timeouts?: HubTimeouts;
  /** Throws when a file of this many bytes must not be cached (a text file past its bound): asked
   *  of the stated size before the download and of the bytes received as they arrive. */
  checkSize?: (bytes: number) => void;
}

export interface CachedFile extends FileRef {
  size: number;
  /** SHA-256 of the whole file, computed as it arrived. */
  sha256: string;
  /** SHA-256 of each HASH_BLOCK_BYTES block, in order. */
  blockSha256: string[];
  /** The Hub's X-Linked-Etag / ETag, when it sent one (for LFS files, their SHA-256). */
  etag?: string;
  cachedAt: string;
}

export interface CachedModel {
  repo: string;
  commit: string;
  /** Revision names that last resolved to this commit here. */
  revisions: string[];
  files: CachedFile[];
  totalBytes: number;
}

export interface WeightCacheOptions {
  caches?: CacheStorageLike;
  storage?: StorageManagerLike;
  fetch?: typeof fetch;
}

/** A cached file whose bytes are checked against their stored block hashes as they are read. */
export class CachedCopy {
  private readonly verified = new Set<number>();
  constructor(
    readonly blob: Blob,
    readonly meta: CachedFile,
  ) {}

  get size(): number {
    return this.blob.size;
  }

  /**
   * Bytes [start, end), after every block they touch matched its SHA-256; a mismatch throws
   * EngineError('integrity') naming the file (the caller drops the copy and downloads again).
   */
  async read(start: number, end: number): Promise<Uint8Array> {
    if (end <= start) return new Uint8Array(0);
    const first = Math.floor(start / HASH_BLOCK_BYTES);
    const last = Math.floor((end - 1) / HASH_BLOCK_BYTES);
    let todo = false;
    for (let b = first; b <= last; b++) if (!this.verified.has(b)) todo = true;
    if (!todo) return new Uint8Array(await this.blob.slice(start, end).arrayBuffer());
    const from = first * HASH_BLOCK_BYTES;
    const to = Math.min(this.blob.size, (last + 1) * HASH_BLOCK_BYTES);
    const bytes = new Uint8Array(await this.blob.slice(from, to).arrayBuffer());
    for (let b = first; b <= last; b++) {
      if (this.verified.has(b)) continue;
      const at = (b - first) * HASH_BLOCK_BYTES;
      const got = await sha256Hex(bytes.subarray(at, Math.min(bytes.length, at + HASH_BLOCK_BYTES)));
      if (got !== this.meta.blockSha256[b]) throw integrityError(this.meta, b);
      this.verified.add(b);
    }
    return bytes.slice(start - from, end - from);
  }

  /** The whole file as UTF-8 text, verified. */
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.read(0, this.size));
  }
}

function integrityError(meta: CachedFile, block: number): EngineError {
  const blocks = Math.max(1, Math.ceil(meta.size / HASH_BLOCK_BYTES));
  return new EngineError(
    'integrity',
    `the cached copy of ${meta.file} of ${meta.repo}@${shortCommit(meta.commit)} did not match its SHA-256 (bytes ${block * HASH_BLOCK_BYTES}–${Math.min(meta.size, (block + 1) * HASH_BLOCK_BYTES)}, block ${block + 1} of ${blocks})`,
  );
}

/** The first 12 digits of a commit sha; a revision name as it is. */
export function shortCommit(commit: string): string {
  return /^[0-9a-f]{40}$/.test(commit) ? commit.slice(0, 12) : commit;
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

  /**
   * The cached copy when it is whole and matches what is expected of it (size, the Hub's SHA-256);
   * a copy that does not is deleted. Never downloads. Its bytes are verified as they are read.
   */
  async lookup(ref: FileRef, expect: { size?: number; sha256?: string } = {}): Promise<CachedCopy | null> {
    const [res, meta] = await Promise.all([this.cache.match(cacheKey(ref)), this.readMeta(ref)]);
    if (!res && !meta) return null;
    const blob = res ? await res.blob() : null;
    const whole = blob !== null && meta !== null && blob.size === meta.size && meta.blockSha256.length === Math.ceil(meta.size / HASH_BLOCK_BYTES);
    const stale = meta !== null && ((expect.size !== undefined && expect.size !== meta.size) || (expect.sha256 !== undefined && expect.sha256 !== meta.sha256));
    if (!whole || stale) {
      await this.drop(ref);
      return null;
    }
    return new CachedCopy(blob, meta);
  }

  /** The file from the cache, or downloaded into it first. */
  async getCachedOrFetch(req: CachedFileRequest): Promise<CachedCopy> {
    const hit = await this.lookup(req, { size: req.expectedSize, sha256: req.sha256 });
    if (hit) return hit;
    await this.download(req);
    const stored = await this.lookup(req, { size: req.expectedSize, sha256: req.sha256 });
    if (!stored) throw new StoreError('download-failed', `${describe(req)} was downloaded but could not be read back from the cache`);
    return stored;
  }

  /** Deletes one cached file (its bytes and hashes). */
  async drop(ref: FileRef): Promise<void> {
    await this.cache.delete(cacheKey(ref));
    await this.cache.delete(metaKey(ref));
  }

  /** Remembers that `revision` of `repo` resolved to `commit` (for loads while the Hub is unreachable). */
  async setRef(repo: string, revision: string, commit: string): Promise<void> {
    const body = JSON.stringify({ repo, revision, commit, resolvedAt: new Date().toISOString() });
    await this.cache.put(refKey(repo, revision), new Response(body, { headers: { 'content-type': 'application/json' } }));
  }

  /** The commit `revision` of `repo` last resolved to here, or null. */
  async getRef(repo: string, revision: string): Promise<{ commit: string; resolvedAt: string } | null> {
    const res = await this.cache.match(refKey(repo, revision));
    if (!res) return null;
    try {
      const j = (await res.json()) as { commit?: unknown; resolvedAt?: unknown };
      if (typeof j.commit !== 'string' || j.commit === '') return null;
      return { commit: j.commit, resolvedAt: typeof j.resolvedAt === 'string' ? j.resolvedAt : '' };
    } catch {
      return null; // unreadable: as if never resolved
    }
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
    const refs: { repo: string; revision: string; commit: string }[] = [];
    for (const req of await this.cache.keys()) {
      if (req.url.startsWith(`${REF_ORIGIN}/`)) {
        const [repo, revision] = req.url.slice(REF_ORIGIN.length + 1).split('/').map(decodeURIComponent);
        const ref = await this.getRef(repo, revision);
        if (ref) refs.push({ repo, revision, commit: ref.commit });
        continue;
      }
      const ref = refOf(req.url, META_ORIGIN);
      if (!ref) continue;
      const meta = await this.readMeta(ref);
      if (!meta) continue;
      const id = `${ref.repo}@${ref.commit}`;
      const m = models.get(id) ?? { repo: ref.repo, commit: ref.commit, revisions: [], files: [], totalBytes: 0 };
      m.files.push(meta);
      m.totalBytes += meta.size;
      models.set(id, m);
    }
    for (const r of refs) models.get(`${r.repo}@${r.commit}`)?.revisions.push(r.revision);
    const out = [...models.values()];
    for (const m of out) {
      m.files.sort((a, b) => a.file.localeCompare(b.file));
      m.revisions.sort();
    }
    return out.sort((a, b) => `${a.repo}@${a.commit}`.localeCompare(`${b.repo}@${b.commit}`));
  }

  async hasModel(repo: string, commit: string): Promise<boolean> {
    for (const req of await this.cache.keys()) {
      const ref = refOf(req.url, META_ORIGIN);
      if (ref && ref.repo === repo && ref.commit === commit) return true;
    }
    return false;
  }

  /** Deletes every cached file of a model at a commit; returns how many. */
  async deleteModel(repo: string, commit: string): Promise<number> {
    let n = 0;
    for (const req of await this.cache.keys()) {
      const ref = refOf(req.url, META_ORIGIN);
      if (ref && ref.repo === repo && ref.commit === commit) {
        await this.drop(ref);
        n++;
      }
    }
    return n;
  }

  private async readMeta(ref: FileRef): Promise<CachedFile | null> {
    const res = await this.cache.match(metaKey(ref));
    if (!res) return null;
    try {
      const m = (await res.json()) as CachedFile;
      const ok =
        Number.isSafeInteger(m.size) && m.size >= 0 && typeof m.sha256 === 'string' && Array.isArray(m.blockSha256) && m.blockSha256.every((h) => typeof h === 'string');
      return ok ? { ...m, repo: ref.repo, commit: ref.commit, file: ref.file } : null;
    } catch {
      return null;
    }
  }

  private async download(req: CachedFileRequest): Promise<void> {
    const where = describe(req);
    if (req.expectedSize !== undefined) {
      req.checkSize?.(req.expectedSize);
      await this.ensureSpace(req.expectedSize, where);
    }
    if (!this.persistAsked) await this.requestPersistence().catch(() => false);
    let res: Response;
    try {
      res = await fetchWithin(this.fetchFn, req.url, { headers: req.headers, cache: 'no-store' }, `the download of ${where}`, req.timeouts?.headersMs ?? HUB_HEADERS_TIMEOUT_MS, req.signal);
    } catch (e) {
      if (isEngineError(e)) throw e; // timeout, cancelled
      throw new StoreError('download-failed', `cannot download ${where}: offline or unreachable (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      throw new StoreError('download-failed', `cannot download ${where}: HTTP ${res.status}`);
    }
    const etag = etagOf(res);
    // the Hub's X-Linked-Etag of an LFS file is its SHA-256
    const expectSha = req.sha256 ?? (etag !== undefined && SHA256_HEX.test(etag) ? etag : undefined);
    const lengthHeader = res.headers.get('content-length');
    const total = req.expectedSize ?? (lengthHeader !== null ? Number(lengthHeader) : 0);
    if (req.expectedSize === undefined && total > 0) {
      try {
        req.checkSize?.(total);
        await this.ensureSpace(total, where);
      } catch (e) {
        await res.body.cancel();
        throw e;
      }
    }
    const hash = sha256.create();
    const blocks: string[] = [];
    let block = new Uint8Array(HASH_BLOCK_BYTES);
    let inBlock = 0;
    let loaded = 0;
    let sha: string | undefined;
    // the first failure, kept: Cache.put may reject with its own TypeError instead of the stream's error
    const failure: { error?: unknown } = {};
    const fail = (ctl: TransformStreamDefaultController<Uint8Array>, e: unknown) => {
      failure.error ??= e;
      ctl.error(e);
    };
    const check = new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, ctl) {
        loaded += chunk.length;
        // more bytes than stated, or than the file may have: stop now, not after caching them all
        if (req.expectedSize !== undefined && loaded > req.expectedSize) {
          return fail(ctl, new StoreError('download-failed', `${where} arrived with more than the ${req.expectedSize} bytes expected`));
        }
        try {
          req.checkSize?.(loaded);
        } catch (e) {
          return fail(ctl, e);
        }
        hash.update(chunk);
        for (let at = 0; at < chunk.length; ) {
          const n = Math.min(chunk.length - at, HASH_BLOCK_BYTES - inBlock);
          block.set(chunk.subarray(at, at + n), inBlock);
          inBlock += n;
          at += n;
          if (inBlock === HASH_BLOCK_BYTES) {
            blocks.push(await sha256Hex(block));
            block = new Uint8Array(HASH_BLOCK_BYTES);
            inBlock = 0;
          }
        }
        req.onBytes?.(loaded, total);
        ctl.enqueue(chunk);
      },
      async flush(ctl) {
        if (inBlock > 0) blocks.push(await sha256Hex(block.subarray(0, inBlock)));
        if (req.expectedSize !== undefined && loaded !== req.expectedSize) {
          return fail(ctl, new StoreError('download-failed', `${where} arrived with ${loaded} bytes, ${req.expectedSize} expected`));
        }
        sha = bytesToHex(hash.digest());
        if (expectSha !== undefined && sha !== expectSha) {
          return fail(ctl, new EngineError('integrity', `${where} arrived with SHA-256 ${sha}, the Hub states ${expectSha}`));
        }
      },
    });
    const body = guardStream(res.body, `the Hub, sending ${where},`, req.timeouts?.stallMs ?? HUB_STALL_TIMEOUT_MS, req.signal, failure);
    const headers = { 'content-type': 'application/octet-stream' };
    try {
      await this.cache.put(cacheKey(req), new Response(body.pipeThrough(check), { headers }));
    } catch (e) {
      await this.cache.delete(cacheKey(req)).catch(() => false);
      const cause = failure.error ?? e;
      if (cause instanceof StoreError || isEngineError(cause)) throw cause;
      if (isQuotaError(cause)) {
        throw new StoreError('quota-exceeded', `browser storage filled up while caching ${where}; delete cached models or free disk space`, { cause });
      }
      throw new StoreError('download-failed', `download of ${where} broke off (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    }
    const meta: CachedFile = {
      repo: req.repo,
      commit: req.commit,
      file: req.file,
      size: loaded,
      sha256: sha ?? bytesToHex(hash.digest()),
      blockSha256: blocks,
      ...(etag !== undefined ? { etag } : {}),
      cachedAt: new Date().toISOString(),
    };
    try {
      await this.cache.put(metaKey(req), new Response(JSON.stringify(meta), { headers: { 'content-type': 'application/json' } }));
    } catch (e) {
      await this.cache.delete(cacheKey(req)).catch(() => false);
      if (isQuotaError(e)) throw new StoreError('quota-exceeded', `browser storage filled up while caching ${where}; delete cached models or free disk space`, { cause: e });
      throw e;
    }
  }
}

/** "model.safetensors of org/name@0123456789ab". */
function describe(ref: FileRef): string {
  return `${ref.file} of ${ref.repo}@${shortCommit(ref.commit)}`;
}

/** The Hub's X-Linked-Etag (LFS files) or ETag, without W/ and quotes. */
function etagOf(res: Response): string | undefined {
  const raw = res.headers.get('x-linked-etag') ?? res.headers.get('etag');
  if (!raw) return undefined;
  return raw.replace(/^W\//, '').replace(/^"|"$/g, '');
}

function keyOf(origin: string, ref: FileRef): string {
  const file = ref.file.split('/').map(encodeURIComponent).join('/');
  return `${origin}/${encodeURIComponent(ref.repo)}/${encodeURIComponent(ref.commit)}/${file}`;
}

/** Cache key of a file's bytes: a URL that names (repo, commit, file) and no host that serves it. */
export function cacheKey(ref: FileRef): string {
  return keyOf(KEY_ORIGIN, ref);
}

function metaKey(ref: FileRef): string {
  return keyOf(META_ORIGIN, ref);
}

function refKey(repo: string, revision: string): string {
  return `${REF_ORIGIN}/${encodeURIComponent(repo)}/${encodeURIComponent(revision)}`;
}

function refOf(url: string, origin: string): FileRef | null {
  if (!url.startsWith(`${origin}/`)) return null;
  const [repo, commit, ...file] = url.slice(origin.length + 1).split('/');
  if (!repo || !commit || file.length === 0) return null;
  return { repo: decodeURIComponent(repo), commit: decodeURIComponent(commit), file: file.map(decodeURIComponent).join('/') };
}

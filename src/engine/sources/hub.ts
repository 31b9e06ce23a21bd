// The one Hugging Face Hub client: model files (`{endpoint}/{repo}/resolve/{revision}/{file}`, sizes
// from a one-byte Range request, weights by Range), the model API (`/api/models/...`), and the one
// reading of HTTP statuses that every Hub caller uses (dataset rows too, src/audit/tasks/hub.ts).
// @huggingface/hub was considered: it would bring 11 MB of packages (@huggingface/tasks among them), its
// Blob reads report no download progress nor retry, and it speaks API routes a mirror may not serve.

import { EngineError } from '../types.ts';
import { readTextResponse } from '../limits.ts';
import type { CheckpointReader } from './reader.ts';
import { ByteCounter, checkFileName, checkRange, type BytesListener } from './common.ts';
import { fetchWithin, guardStream, HUB_HEADERS_TIMEOUT_MS, HUB_STALL_TIMEOUT_MS, readAllWithin, readWithin, type HubTimeouts } from './timeouts.ts';
import { quote } from '../../util/clip.ts';
import { SHA256_HEX } from '../../util/hash.ts';

const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';
const RANGE_ATTEMPTS = 3;
const RETRY_DELAY_MS = 200;

export interface HubSource {
  repo: string;
  revision?: string;
  token?: string;
  endpoint?: string;
  /**
   * The commit these files are at, when the caller knows it (the app's own built-in models are the
   * build's files): no revision lookup, files read under `revision`. Otherwise the Hub resolves it.
   */
  commit?: string;
}

const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws 'bad-input' unless `repo` looks like a Hub repo id ("owner/name"). */
export function checkRepoId(repo: string): void {
  if (typeof repo !== 'string' || !REPO_ID.test(repo) || repo.includes('..')) {
    throw new EngineError('bad-input', `${quote(repo)} is not a Hub repo id: expected "owner/name"`);
  }
}

/** What a Hub answer means; `transient` ones are worth retrying. */
export interface HubStatusMeaning {
  code: 'gated' | 'not-found' | 'network';
  /** Why, in words, for "… of org/name: {reason} (HTTP 401)". */
  reason: string;
  transient: boolean;
}

/** The one mapping of Hub HTTP statuses (files, model API, dataset rows); null for success. */
export function hubStatusMeaning(status: number, hasToken: boolean): HubStatusMeaning | null {
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) {
    const reason = hasToken ? 'the token given has no access to this gated or private repo' : 'gated or private: a Hugging Face token with access to it is needed';
    return { code: 'gated', reason, transient: false };
  }
  if (status === 404) return { code: 'not-found', reason: 'not found (check the name and the revision)', transient: false };
  if (status === 429) return { code: 'network', reason: 'the Hub is limiting requests; wait a minute, then retry', transient: true };
  if (status >= 500) return { code: 'network', reason: 'the server failed; retry later', transient: true };
  return { code: 'network', reason: 'unexpected answer from the server', transient: false };
}

/** An EngineError for a failed Hub answer, naming what was asked for. */
function hubStatusError(status: number, what: string, hasToken: boolean): EngineError {
  const m = hubStatusMeaning(status, hasToken) ?? { code: 'network' as const, reason: 'unexpected answer from the server' };
  return new EngineError(m.code, `${what}: ${m.reason} (HTTP ${status})`);
}

export interface HubFetchOptions {
  token?: string;
  headers?: Record<string, string>;
  method?: string;
  signal?: AbortSignal;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  timeouts?: HubTimeouts;
}

/**
 * A request to the Hub (or a mirror, or the app's own /hub): the token as a Bearer header, and never
 * through the browser's HTTP cache. The weight cache is the cache for Hub files; the HTTP cache
 * answers a Range request from a stored compressed copy with a broken body or no Content-Range
 * (seen with vite preview's gzip), which broke every load after a reload. Offline → 'network';
 * no headers within the headers timeout → 'timeout'; `signal` aborted → 'cancelled'.
 */
export async function hubFetch(url: string, o: HubFetchOptions = {}): Promise<Response> {
  const headers = o.token ? { ...o.headers, Authorization: `Bearer ${o.token}` } : o.headers;
  const host = new URL(url).host;
  const fetchFn = o.fetch ?? ((u: string, init: RequestInit) => fetch(u, init));
  try {
    return await fetchWithin(fetchFn, url, { method: o.method ?? 'GET', headers, cache: 'no-store' }, `the request to ${host}`, o.timeouts?.headersMs ?? HUB_HEADERS_TIMEOUT_MS, o.signal);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw new EngineError('network', `cannot reach ${host}: offline or unreachable (${errorText(e)})`);
  }
}

/** A Hub answer's body as text, read within the stall limit. */
export async function hubText(res: Response, what: string, o: Pick<HubFetchOptions, 'signal' | 'timeouts'> = {}): Promise<string> {
  return new TextDecoder().decode(await readAllWithin(res, what, o.timeouts?.stallMs ?? HUB_STALL_TIMEOUT_MS, o.signal));
}

/** What the Hub's model API says about a repo before anything is downloaded. */
export interface HubRepoInfo {
  /** Resolved commit sha, when the API gave one. */
  sha?: string;
  license?: string;
  gated: false | 'auto' | 'manual';
  /** Sum of the safetensors files' sizes, when every one is listed with a size. */
  weightBytes?: number;
  modelType?: string;
  /** Per file: its size and, for LFS files, the SHA-256 the Hub states (`lfs.sha256`). */
  files: Record<string, { size?: number; sha256?: string }>;
}

const COMMIT_SHA = /^[0-9a-f]{40}$/;

/** `{endpoint}/api/models/{repo}/revision/{revision}?blobs=true`, read through the one status mapping. */
export async function fetchRepoInfo(source: HubSource, o: Pick<HubFetchOptions, 'fetch' | 'signal' | 'timeouts'> = {}): Promise<HubRepoInfo> {
  checkRepoId(source.repo);
  const revision = source.revision || 'main';
  const endpoint = (source.endpoint || DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
  const url = `${endpoint}/api/models/${source.repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  const what = `${source.repo}@${revision} on ${new URL(url).host}`;
  const res = await hubFetch(url, { ...o, token: source.token });
  if (!res.ok) {
    await res.body?.cancel();
    throw hubStatusError(res.status, what, !!source.token);
  }
  let meta: {
    sha?: unknown;
    gated?: false | 'auto' | 'manual';
    cardData?: { license?: string };
    config?: { model_type?: string };
    siblings?: { rfilename: string; size?: number; lfs?: { sha256?: unknown } }[];
  };
  const text = await hubText(res, `the revision API for ${what}`, o);
  try {
    meta = JSON.parse(text);
  } catch (e) {
    throw new EngineError('network', `the revision API for ${what} answered with text that is not JSON (${errorText(e)})`);
  }
  if (!meta || typeof meta !== 'object' || Array.isArray(meta) || (meta.siblings !== undefined && !Array.isArray(meta.siblings))) {
    throw new EngineError('network', `the revision API for ${what} answered with JSON that is not a model description`);
  }
  if (meta.sha !== undefined && (typeof meta.sha !== 'string' || !COMMIT_SHA.test(meta.sha))) {
    throw new EngineError('network', `the revision API for ${what} gave ${quote(meta.sha)} as the commit, not a 40-digit hex sha`);
  }
  const siblings = (meta.siblings ?? []).filter((s) => s && typeof s.rfilename === 'string');
  const files: HubRepoInfo['files'] = {};
  for (const s of siblings) {
    const sha256 = typeof s.lfs?.sha256 === 'string' && SHA256_HEX.test(s.lfs.sha256) ? s.lfs.sha256 : undefined;
    files[s.rfilename] = { ...(typeof s.size === 'number' ? { size: s.size } : {}), ...(sha256 ? { sha256 } : {}) };
  }
  const weights = siblings.filter((s) => s.rfilename.endsWith('.safetensors'));
  const sized = weights.length > 0 && weights.every((s) => typeof s.size === 'number');
  return {
    files,
    sha: meta.sha as string | undefined,
    license: meta.cardData?.license,
    gated: meta.gated ?? false,
    weightBytes: sized ? weights.reduce((a, s) => a + (s.size ?? 0), 0) : undefined,
    modelType: meta.config?.model_type,
  };
}

/** What a revision name stands for: its commit, and what the Hub states about each file there. */
export interface HubRevision {
  commit: string;
  files: HubRepoInfo['files'];
  /** True when the source stated the commit (nothing was asked of the Hub). */
  stated?: boolean;
}

export interface HubReaderOptions {
  /** Cancels every request of this reader (a load's cancellation). */
  signal?: AbortSignal;
  timeouts?: HubTimeouts;
}

export class HubReader implements CheckpointReader {
  readonly label: string;
  readonly hubRef: { repo: string; revision: string };
  readonly signal?: AbortSignal;
  private readonly endpoint: string;
  private readonly token?: string;
  private readonly statedCommit?: string;
  /** The revision in file URLs: the name given, or the commit once pinned. */
  private urlRevision: string;
  private readonly sizes = new Map<string, Promise<number | null>>();
  /** Each file's entity tag, as its size was read (an LFS file's is its SHA-256). */
  private readonly etags = new Map<string, string>();
  private readonly counter: ByteCounter;
  private readonly timeouts: HubTimeouts;

  /** `fetchFn`: tests put a scripted server behind the reader. */
  constructor(
    source: HubSource,
    onBytes?: BytesListener,
    private readonly fetchFn?: HubFetchOptions['fetch'],
    opts: HubReaderOptions = {},
  ) {
    checkRepoId(source.repo);
    const revision = source.revision ?? 'main';
    if (revision.length === 0 || revision.split('/').includes('..')) {
      throw new EngineError('bad-input', `${quote(revision)} is not a revision`);
    }
    this.hubRef = { repo: source.repo, revision };
    this.label = `${source.repo}@${revision}`;
    this.endpoint = (source.endpoint ?? DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
    this.token = source.token || undefined;
    this.counter = new ByteCounter(onBytes);
    this.signal = opts.signal;
    this.timeouts = opts.timeouts ?? {};
    this.urlRevision = revision;
    if (source.commit !== undefined) {
      if (!/^[\w.-]{1,96}$/.test(source.commit)) throw new EngineError('bad-input', `${quote(source.commit)} is not a commit`);
      this.statedCommit = source.commit;
    }
  }

  url(file: string): string {
    checkFileName(file);
    const path = file.split('/').map(encodeURIComponent).join('/');
    return `${this.endpoint}/${this.hubRef.repo}/resolve/${encodeURIComponent(this.urlRevision)}/${path}`;
  }

  /**
   * The commit this revision names, asked of the Hub's revision API (none asked when the source
   * states it); null when the endpoint has no such API (404: files are read under the name).
   */
  async resolveRevision(): Promise<HubRevision | null> {
    if (this.statedCommit !== undefined) return { commit: this.statedCommit, files: {}, stated: true };
    const source = { repo: this.hubRef.repo, revision: this.hubRef.revision, token: this.token, endpoint: this.endpoint };
    try {
      const info = await fetchRepoInfo(source, { fetch: this.fetchFn, signal: this.signal, timeouts: this.timeouts });
      if (info.sha === undefined) throw new EngineError('network', `the revision API for ${this.label} gave no commit sha`);
      return { commit: info.sha, files: info.files };
    } catch (e) {
      if (e instanceof EngineError && e.code === 'not-found') return null;
      throw e;
    }
  }

  /** Reads files at `commit` from now on (a resolved revision), so a moving branch cannot mix files. */
  pin(commit: string): void {
    if (this.statedCommit !== undefined) return;
    if (!COMMIT_SHA.test(commit)) throw new EngineError('internal', `cannot pin ${this.label} to ${quote(commit)}: not a commit sha`);
    this.urlRevision = commit;
    this.sizes.clear();
    this.etags.clear();
  }

  async exists(file: string): Promise<boolean> {
    return (await this.sizeOrNull(file)) !== null;
  }

  async size(file: string): Promise<number> {
    const n = await this.sizeOrNull(file);
    if (n === null) throw this.notFound(file);
    return n;
  }

  /** A file's size and the entity tag the server states for it (X-Linked-Etag, else ETag; an LFS
   *  file's is its SHA-256), to tell whether a copy read under a revision name is still current. */
  async validator(file: string): Promise<{ size: number; etag?: string }> {
    const size = await this.size(file);
    const etag = this.etags.get(file);
    return etag === undefined ? { size } : { size, etag };
  }

  async text(file: string): Promise<string> {
    const res = await this.fetch(file, {});
    this.checkStatus(res, file);
    const bytes = await readTextResponse(this.stallGuarded(res, file), this.label, file);
    this.counter.add(file, bytes.length, bytes.length);
    return new TextDecoder().decode(bytes);
  }

  async range(file: string, start: number, end: number): Promise<Uint8Array> {
    const size = await this.size(file);
    checkRange(this.label, file, start, end, size);
    if (end === start) return new Uint8Array(0);
    // A multi-GB load is many range reads: retry transient failures (network, 5xx, 429) a few times.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.rangeOnce(file, start, end, size);
      } catch (e) {
        if (!(e instanceof EngineError) || e.code !== 'network' || attempt >= RANGE_ATTEMPTS) throw e;
        await new Promise((ok) => setTimeout(ok, RETRY_DELAY_MS * 4 ** (attempt - 1)));
      }
    }
  }

  private async rangeOnce(file: string, start: number, end: number, size: number): Promise<Uint8Array> {
    const res = await this.fetch(file, { Range: `bytes=${start}-${end - 1}` });
    this.checkStatus(res, file);
    // 206: from the Content-Range start (some servers widen the range). 200: a server that ignores
    // Range sends the file from byte 0. Either way keep [start, end) and stop reading there.
    const from = res.status === 206 ? rangeStart(res) : 0;
    if (from > start) {
      await res.body?.cancel();
      throw new EngineError('network', `the server answered ${file} of ${this.label} from byte ${from}, byte ${start} was asked for`);
    }
    return this.readBody(res, file, start - from, end - start, size);
  }

  /** The same answer, its body failing with 'timeout' when it stalls (or 'cancelled'). */
  private stallGuarded(res: Response, file: string): Response {
    if (!res.body) return res;
    const body = guardStream(res.body, `the Hub, sending ${file} of ${this.label},`, this.timeouts.stallMs ?? HUB_STALL_TIMEOUT_MS, this.signal);
    return new Response(body, { status: res.status, headers: res.headers });
  }

  private sizeOrNull(file: string): Promise<number | null> {
    let p = this.sizes.get(file);
    if (!p) {
      p = this.probeSize(file);
      this.sizes.set(file, p);
      p.catch(() => this.sizes.delete(file));
    }
    return p;
  }

  private async probeSize(file: string): Promise<number | null> {
    const res = await this.fetch(file, { Range: 'bytes=0-0' });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (res.status === 416) {
      // Range not satisfiable: an empty file.
      await res.body?.cancel();
      return 0;
    }
    this.checkStatus(res, file);
    this.noteEtag(file, res);
    const total = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1];
    const length = res.status === 200 ? res.headers.get('content-length') : null;
    await res.body?.cancel();
    if (total !== undefined) return Number(total);
    if (length !== null) return Number(length);
    const head = await this.fetch(file, {}, 'HEAD');
    this.checkStatus(head, file);
    this.noteEtag(file, head);
    const headLength = head.headers.get('content-length');
    if (headLength === null) {
      throw new EngineError('network', `the Hub gave no size for ${file} in ${this.label} (no Content-Range or Content-Length)`);
    }
    return Number(headLength);
  }

  private noteEtag(file: string, res: Response): void {
    const raw = res.headers.get('x-linked-etag') ?? res.headers.get('etag');
    if (raw) this.etags.set(file, raw.replace(/^W\//, '').replace(/^"|"$/g, ''));
  }

  private async fetch(file: string, headers: Record<string, string>, method = 'GET'): Promise<Response> {
    try {
      return await hubFetch(this.url(file), { token: this.token, headers, method, fetch: this.fetchFn, signal: this.signal, timeouts: this.timeouts });
    } catch (e) {
      if (e instanceof EngineError && e.code === 'network') throw new EngineError('network', `${file} of ${this.label}: ${e.message}`);
      throw e;
    }
  }

  private checkStatus(res: Response, file: string): void {
    if (res.status === 200 || res.status === 206) return;
    void res.body?.cancel();
    throw hubStatusError(res.status, `${file} of ${this.label}`, !!this.token);
  }

  /** Streams `length` bytes of the body after skipping `skip`, reporting progress as it goes. */
  private async readBody(res: Response, file: string, skip: number, length: number, size: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    let filled = 0;
    let toSkip = skip;
    const body = res.body;
    if (!body) throw new EngineError('network', `empty response for ${file} of ${this.label}`);
    const stream = body.getReader();
    const what = `the Hub, sending ${file} of ${this.label},`;
    try {
      while (filled < length) {
        const { done, value } = await readWithin(stream, what, this.timeouts.stallMs ?? HUB_STALL_TIMEOUT_MS, this.signal);
        if (done) break;
        let chunk = value;
        if (toSkip > 0) {
          const dropped = Math.min(toSkip, chunk.length);
          toSkip -= dropped;
          chunk = chunk.subarray(dropped);
        }
        const n = Math.min(chunk.length, length - filled);
        out.set(chunk.subarray(0, n), filled);
        filled += n;
        this.counter.add(file, n, size);
      }
    } catch (e) {
      this.counter.add(file, -filled, size); // this attempt's bytes do not count
      if (e instanceof EngineError) throw e; // timeout, cancelled
      throw new EngineError('network', `download of ${file} from ${this.label} broke off: ${errorText(e)}`);
    } finally {
      if (filled >= length) await stream.cancel().catch(() => undefined);
      stream.releaseLock();
    }
    if (filled < length) {
      this.counter.add(file, -filled, size);
      throw new EngineError('network', `download of ${file} from ${this.label} ended after ${filled} of ${length} bytes`);
    }
    return out;
  }

  private notFound(file: string): EngineError {
    return hubStatusError(404, `${file} of ${this.label}`, !!this.token);
  }
}

/** The first byte of a 206 answer, from its Content-Range; 0 when the header is not readable. */
function rangeStart(res: Response): number {
  const m = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
  return m ? Number(m[1]) : 0;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

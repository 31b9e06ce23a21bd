// Hugging Face Hub files over HTTP: `{endpoint}/{repo}/resolve/{revision}/{file}`.
// Sizes come from a one-byte Range request (Content-Range), weights from Range requests.

import { EngineError } from '../types.ts';
import type { CheckpointReader } from './reader.ts';
import { ByteCounter, checkFileName, checkRange, type BytesListener } from './common.ts';

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';
const RANGE_ATTEMPTS = 3;
const RETRY_DELAY_MS = 200;

export interface HubSource {
  repo: string;
  revision?: string;
  token?: string;
  endpoint?: string;
}

const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws 'bad-input' unless `repo` looks like a Hub repo id ("owner/name"). */
export function checkRepoId(repo: string): void {
  if (typeof repo !== 'string' || !REPO_ID.test(repo) || repo.includes('..')) {
    throw new EngineError('bad-input', `${JSON.stringify(repo)} is not a Hub repo id: expected "owner/name"`);
  }
}

export class HubReader implements CheckpointReader {
  readonly label: string;
  readonly hubRef: { repo: string; revision: string };
  private readonly endpoint: string;
  private readonly token?: string;
  private readonly sizes = new Map<string, Promise<number | null>>();
  private readonly counter: ByteCounter;

  constructor(source: HubSource, onBytes?: BytesListener) {
    checkRepoId(source.repo);
    const revision = source.revision ?? 'main';
    if (revision.length === 0 || revision.split('/').includes('..')) {
      throw new EngineError('bad-input', `${JSON.stringify(revision)} is not a revision`);
    }
    this.hubRef = { repo: source.repo, revision };
    this.label = `${source.repo}@${revision}`;
    this.endpoint = (source.endpoint ?? DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
    this.token = source.token || undefined;
    this.counter = new ByteCounter(onBytes);
  }

  url(file: string): string {
    checkFileName(file);
    const { repo, revision } = this.hubRef;
    const path = file.split('/').map(encodeURIComponent).join('/');
    return `${this.endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${path}`;
  }

  async exists(file: string): Promise<boolean> {
    return (await this.sizeOrNull(file)) !== null;
  }

  async size(file: string): Promise<number> {
    const n = await this.sizeOrNull(file);
    if (n === null) throw this.notFound(file);
    return n;
  }

  async text(file: string): Promise<string> {
    const res = await this.fetch(file, {});
    this.checkStatus(res, file);
    const bytes = new Uint8Array(await res.arrayBuffer());
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
    // 206: exactly the range. 200: a server that ignores Range sends the file from byte 0;
    // keep [start, end) and stop reading there.
    const skip = res.status === 206 ? 0 : start;
    return this.readBody(res, file, skip, end - start, size);
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
    const total = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1];
    const length = res.status === 200 ? res.headers.get('content-length') : null;
    await res.body?.cancel();
    if (total !== undefined) return Number(total);
    if (length !== null) return Number(length);
    const head = await this.fetch(file, {}, 'HEAD');
    this.checkStatus(head, file);
    const headLength = head.headers.get('content-length');
    if (headLength === null) {
      throw new EngineError('network', `the Hub gave no size for ${file} in ${this.label} (no Content-Range or Content-Length)`);
    }
    return Number(headLength);
  }

  private async fetch(file: string, headers: Record<string, string>, method = 'GET'): Promise<Response> {
    const url = this.url(file);
    if (this.token) headers = { ...headers, Authorization: `Bearer ${this.token}` };
    try {
      return await fetch(url, { method, headers });
    } catch (e) {
      throw new EngineError('network', `cannot fetch ${file} from ${this.label}: offline or unreachable (${errorText(e)})`);
    }
  }

  private checkStatus(res: Response, file: string): void {
    if (res.status === 401 || res.status === 403) {
      void res.body?.cancel();
      const { repo } = this.hubRef;
      throw new EngineError(
        'gated',
        this.token
          ? `the Hub refused ${file} of ${repo} (HTTP ${res.status}): the token given has no access to this gated or private repo`
          : `${repo} is gated, private or missing (HTTP ${res.status}): a Hub token with access to it is needed`,
      );
    }
    if (res.status === 404) {
      void res.body?.cancel();
      throw this.notFound(file);
    }
    if (res.status !== 200 && res.status !== 206) {
      void res.body?.cancel();
      throw new EngineError('network', `the Hub answered HTTP ${res.status} for ${file} of ${this.label}`);
    }
  }

  /** Streams `length` bytes of the body after skipping `skip`, reporting progress as it goes. */
  private async readBody(res: Response, file: string, skip: number, length: number, size: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    let filled = 0;
    let toSkip = skip;
    const body = res.body;
    if (!body) throw new EngineError('network', `empty response for ${file} of ${this.label}`);
    const stream = body.getReader();
    try {
      while (filled < length) {
        const { done, value } = await stream.read();
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
    return new EngineError('not-found', `${file} not found in ${this.label} (HTTP 404)`);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// Time limits for every Hub request: the headers must arrive within HUB_HEADERS_TIMEOUT_MS, and a
// body that sends no bytes for HUB_STALL_TIMEOUT_MS fails in words. A caller's AbortSignal cancels
// either wait. Errors: EngineError 'timeout' (stated in seconds) or 'cancelled'.

import { EngineError } from '../types.ts';

/** How long a Hub request may wait for the answer's headers. */
export const HUB_HEADERS_TIMEOUT_MS = 30_000;
/** How long a Hub answer's body may send nothing before it counts as stalled. */
export const HUB_STALL_TIMEOUT_MS = 30_000;

export interface HubTimeouts {
  headersMs?: number;
  stallMs?: number;
}

export const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The caller's cancellation as an EngineError naming what was cancelled. */
function cancelledError(what: string): EngineError {
  return new EngineError('cancelled', `${what}: cancelled`);
}

/**
 * `fetchFn(url, init)` with a headers deadline: the returned promise rejects with 'timeout' when no
 * answer came within `ms`, with 'cancelled' when `signal` aborts first. The body stays tied to the
 * signal (abort later cancels the body too), not to the deadline.
 */
export async function fetchWithin(
  fetchFn: (url: string, init: RequestInit) => Promise<Response>,
  url: string,
  init: RequestInit,
  what: string,
  ms: number,
  signal?: AbortSignal,
): Promise<Response> {
  if (signal?.aborted) throw cancelledError(what);
  const ctl = new AbortController();
  let timedOut = false;
  const onAbort = () => ctl.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new EngineError('timeout', `${what}: no answer within ${seconds(ms)}`));
  }, ms);
  try {
    return await fetchFn(url, { ...init, signal: ctl.signal });
  } catch (e) {
    if (timedOut) throw new EngineError('timeout', `${what}: no answer within ${seconds(ms)}`);
    if (signal?.aborted) throw cancelledError(what);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads one chunk of `stream`, failing with 'timeout' ("… sent no bytes for 30 s") when nothing comes
 * within `ms`, or 'cancelled' when `signal` aborts; either way the stream is cancelled.
 */
export function readWithin<T>(
  stream: ReadableStreamDefaultReader<T>,
  what: string,
  ms: number,
  signal?: AbortSignal,
): Promise<ReadableStreamReadResult<T>> {
  if (signal?.aborted) {
    void stream.cancel().catch(() => undefined);
    return Promise.reject(cancelledError(what));
  }
  return new Promise((resolve, reject) => {
    const stop = (e: EngineError) => {
      cleanup();
      void stream.cancel(e).catch(() => undefined);
      reject(e);
    };
    const onAbort = () => stop(cancelledError(what));
    const timer = setTimeout(() => stop(new EngineError('timeout', `${what} sent no bytes for ${seconds(ms)}`)), ms);
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.read().then(
      (r) => {
        cleanup();
        resolve(r);
      },
      (e: unknown) => {
        cleanup();
        reject(e);
      },
    );
  });
}

/** A whole body, each chunk read within the stall limit. */
export async function readAllWithin(res: Response, what: string, ms: number, signal?: AbortSignal): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, what, ms, signal);
      if (done) break;
      parts.push(value);
      n += value.length;
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `stream` with every chunk arriving within the stall limit; the first failure is kept in `failure.error`. */
export function guardStream(stream: ReadableStream<Uint8Array>, what: string, ms: number, signal?: AbortSignal, failure: { error?: unknown } = {}): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      try {
        const { done, value } = await readWithin(reader, what, ms, signal);
        if (done) ctl.close();
        else ctl.enqueue(value);
      } catch (e) {
        failure.error ??= e;
        ctl.error(e);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

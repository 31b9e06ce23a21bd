// The worker boundary: one Engine interface on both sides. `exposeEngine` runs in the worker,
// `connectEngine` in the page; both install a comlink throw handler that carries EngineError codes
// across postMessage (comlink's default keeps only name/message/stack).

import * as Comlink from 'comlink';
import { EngineError, isEngineError, type Engine, type EngineErrorCode, type LoadProgress } from './types';

interface SerializedError {
  name: string;
  message: string;
  code?: EngineErrorCode;
  row?: number;
  stack?: string;
}

let handlerInstalled = false;
function installErrorHandler(): void {
  if (handlerInstalled) return;
  handlerInstalled = true;
  const base = Comlink.transferHandlers.get('throw')!;
  Comlink.transferHandlers.set('throw', {
    canHandle: base.canHandle,
    serialize(thrown: { value: unknown }) {
      const v = thrown.value;
      const out: SerializedError =
        v instanceof Error
          ? { name: v.name, message: v.message, stack: v.stack, code: isEngineError(v) ? v.code : undefined, row: isEngineError(v) ? v.row : undefined }
          : { name: 'Error', message: String(v) };
      return [out, []];
    },
    deserialize(s: SerializedError): never {
      if (s.code) throw Object.assign(new EngineError(s.code, s.message, s.row), { stack: s.stack });
      throw Object.assign(new Error(s.message), { name: s.name, stack: s.stack });
    },
  } as Comlink.TransferHandler<unknown, SerializedError>);
}

/** Worker side: serve `engine` on the worker's global scope (or any endpoint). */
export function exposeEngine(engine: Engine, endpoint: Comlink.Endpoint = self as unknown as Comlink.Endpoint): void {
  installErrorHandler();
  Comlink.expose(engine, endpoint);
}

/** A connected engine plus the worker that runs it. */
export interface RemoteEngine extends Engine {
  /** Ends the worker; pending calls reject with 'worker-crashed'. */
  terminate(): void;
}

/**
 * Page side: an Engine backed by `worker`. If the worker dies (error event or terminate), every
 * pending and later call rejects with EngineError('worker-crashed'); create a fresh worker to go on.
 */
export function connectEngine(worker: Worker): RemoteEngine {
  installErrorHandler();
  const remote = Comlink.wrap<Required<Engine>>(worker);
  let dead: EngineError | null = null;
  const pending = new Set<(e: EngineError) => void>();
  const die = (why: string) => {
    if (dead) return;
    dead = new EngineError('worker-crashed', `the engine worker stopped (${why}); start a fresh engine to continue`);
    for (const reject of pending) reject(dead);
    pending.clear();
  };
  worker.addEventListener('error', (ev) => die((ev as ErrorEvent).message || 'uncaught error'));
  worker.addEventListener('messageerror', () => die('a message could not be read'));

  const call = <T>(fn: () => Promise<T>): Promise<T> => {
    if (dead) return Promise.reject(dead);
    return new Promise<T>((resolve, reject) => {
      pending.add(reject);
      fn().then(resolve, reject).finally(() => pending.delete(reject));
    });
  };

  return {
    load: (source, opts, onProgress) =>
      call(() => remote.load(source, opts, onProgress ? Comlink.proxy((p: LoadProgress) => onProgress(p)) : undefined)),
    info: () => call(() => remote.info()),
    encode: (text) => call(() => remote.encode(text)),
    decode: (ids) => call(() => remote.decode(ids)),
    applyChatTemplate: (messages, vars) => call(() => remote.applyChatTemplate(messages, vars)),
    logits: (row, opts) => call(() => remote.logits(row, opts)),
    generate: (rows, opts) => call(() => remote.generate(rows, opts)),
    score: (rows) => call(() => remote.score(rows)),
    // one method for every read-out: the read-out is data (its name), so a new one needs no line here
    readout: (name, row) => call(() => remote.readout(name, row as never) as never),
    stats: () => call(() => remote.stats()),
    // cancel must reach the worker even while another call is in flight; it does not wait on `call`.
    cancel: () => (dead ? Promise.resolve() : remote.cancel()),
    dispose: () => (dead ? Promise.resolve() : remote.dispose()),
    terminate() {
      worker.terminate();
      die('terminated');
    },
  };
}

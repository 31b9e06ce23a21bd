// Chat templates rendered in a sandbox that does not rely on the template's cooperation: a
// dedicated worker (template-host.ts: a Web Worker in the browser, a worker thread with a heap cap
// in Node) renders one prompt at a time under the interpreter's own bounds (chat-template.ts). From
// outside, a render that has not answered TEMPLATE_LIMITS.timeMs + KILL_GRACE_MS after it was sent
// has its worker terminated (a fresh one serves the next render) and fails with a named error; a
// worker that dies at its memory cap fails the render the same way. Renders are cached per
// (template, conversation, variables), so an audit pays the worker's round trip once per prompt.

import { canonicalJson } from '../util/hash.ts';
import { TEMPLATE_LIMITS } from './chat-template.ts';
import { EngineError, type EngineErrorCode, type TemplateVars } from './types.ts';

/** How long past the interpreter's own time limit the worker is given before it is ended. */
export const KILL_GRACE_MS = 500;
/** A fresh worker that has not said it is ready within this long is a failure, not a hang. */
export const START_TIMEOUT_MS = 30_000;
/** The heap a template worker may use where the host can cap it (Node), in MB. */
export const TEMPLATE_MEMORY_MB = 256;
/** Rendered prompts kept; an audit renders each question's prompt once. */
const CACHE_ENTRIES = 4096;

export interface RenderRequest {
  id: number;
  source: string;
  file: string;
  vars: Record<string, unknown>;
  templateVars: TemplateVars;
}
export type RenderReply = { ready: true } | { id: number; text: string } | { id: number; error: { code: EngineErrorCode; message: string } };

/** One template worker as the sandbox drives it. */
export interface TemplatePort {
  post(req: RenderRequest): void;
  /** `onReply` gets each message; `onExit` once, when the worker stops on its own ('memory': at its cap). */
  listen(onReply: (r: RenderReply) => void, onExit: (why: string) => void): void;
  /** Whether the worker keeps the process alive (Node); a no-op in the browser. */
  hold(held: boolean): void;
  terminate(): void;
}

type Pending = { id: number; resolve: (text: string) => void; reject: (e: EngineError) => void; timer: ReturnType<typeof setTimeout> };

interface Live {
  port: TemplatePort;
  ready: Promise<void>;
  pending: Pending | null;
}

export interface SandboxTemplate {
  render(vars: Record<string, unknown>, templateVars: TemplateVars): Promise<string>;
}

/** Where a tokenizer's chat template renders: the sandbox (a benchmark's baseline renders in-process). */
export interface TemplateRenderer {
  /** A template: `source` is what is parsed, `file` names it in errors. */
  template(source: string, file: string): SandboxTemplate;
}

export class TemplateSandbox implements TemplateRenderer {
  private live: Live | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private readonly cache = new Map<string, string>();
  /** Workers started so far (the first, and one per overrun or crash). */
  spawned = 0;

  constructor(private readonly spawn: () => Promise<TemplatePort>) {}

  template(source: string, file: string): SandboxTemplate {
    return { render: (vars, templateVars) => this.render(source, file, vars, templateVars) };
  }

  /** Ends the worker (a later render starts a fresh one). */
  close(): void {
    this.live?.port.terminate();
    this.live = null;
  }

  private render(source: string, file: string, vars: Record<string, unknown>, templateVars: TemplateVars): Promise<string> {
    const key = canonicalJson([source, file, vars, templateVars]);
    const hit = this.cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const run = this.queue.then(() => this.send({ id: this.nextId++, source, file, vars, templateVars }));
    this.queue = run.catch(() => undefined);
    return run.then((text) => {
      if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, text);
      return text;
    });
  }

  private async send(req: RenderRequest): Promise<string> {
    const live = await this.worker();
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.end(live, limitError(`ran past its ${TEMPLATE_LIMITS.timeMs / 1000} s time limit and was stopped (a looping template?)`));
      }, TEMPLATE_LIMITS.timeMs + KILL_GRACE_MS);
      live.pending = { id: req.id, resolve, reject, timer };
      live.port.hold(true);
      live.port.post(req);
    });
  }

  /** The live worker, started (and ready) if there is none. */
  private async worker(): Promise<Live> {
    if (!this.live) {
      this.spawned++;
      const port = await this.spawn();
      let readyNow!: () => void;
      let failStart!: (e: EngineError) => void;
      const live: Live = { port, pending: null, ready: new Promise<void>((res, rej) => ((readyNow = res), (failStart = rej))) };
      const startTimer = setTimeout(() => {
        failStart(new EngineError('internal', `the chat template sandbox did not start within ${START_TIMEOUT_MS / 1000} s`));
        this.end(live, null);
      }, START_TIMEOUT_MS);
      port.listen(
        (r) => {
          if ('ready' in r) {
            clearTimeout(startTimer);
            port.hold(false);
            return readyNow();
          }
          const p = live.pending;
          if (!p || p.id !== r.id) return;
          clearTimeout(p.timer);
          live.pending = null;
          port.hold(false);
          if ('text' in r) p.resolve(r.text);
          else p.reject(new EngineError(r.error.code, r.error.message));
        },
        (why) => {
          clearTimeout(startTimer);
          const e = why === 'memory'
            ? limitError(`went past its ${TEMPLATE_MEMORY_MB} MB memory limit and was stopped (an exploding template?)`)
            : new EngineError('internal', `the chat template sandbox stopped (${why})`);
          failStart(e);
          this.end(live, e);
        },
      );
      this.live = live;
    }
    const live = this.live;
    await live.ready;
    return live;
  }

  /** Terminates `live` and fails its render with `error`. */
  private end(live: Live, error: EngineError | null): void {
    live.port.terminate();
    if (this.live === live) this.live = null;
    const p = live.pending;
    live.pending = null;
    if (p) {
      clearTimeout(p.timer);
      p.reject(error ?? new EngineError('internal', 'the chat template sandbox stopped'));
    }
  }
}

function limitError(what: string): EngineError {
  return new EngineError('bad-input', `chat template ${what}`);
}

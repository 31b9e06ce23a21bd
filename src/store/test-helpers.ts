// Shared fixtures of the store's specs: a fresh fake IndexedDB per test, manifests, records,
// a counting fake engine and a fake audit that drives it unit by unit like the audit core.

// idb's wrappers test `instanceof IDBRequest` etc. on globals: install fake-indexeddb's classes;
// each test still opens its own fresh IDBFactory.
import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { Condition, ProbeName, ProbeSpec, QuestionRecord, RunManifest } from '../audit/types.ts';
import { probeOf } from '../audit/probes/registry.ts';
import { makeRecord as coreRecord } from '../audit/record.ts';
import { graderVersionOf } from '../audit/formats/registry.ts';
import { EngineError, type Engine, type EngineErrorCode } from '../engine/types.ts';
import { IdbRunStore } from './idb-store.ts';
import { recordKeyOf, type QuestionIdentity } from '../audit/condition.ts';
import { probeKey } from './keys.ts';
import type { AuditFn } from './run-controller.ts';
import type { CacheLike, CacheStorageLike } from './weight-cache.ts';

export async function freshIdbStore(factory: IDBFactory = new IDBFactory()): Promise<IdbRunStore> {
  return IdbRunStore.open({ factory, keyRange: IDBKeyRange });
}

export const condition: Condition = {
  promptTemplate: 'Q: {{question}}\nA:',
  chatTemplate: false,
  decodeRule: 'tokenizers',
  fewShot: { n: 0, seed: 0 },
  decoding: { kind: 'greedy' },
  maxNewTokens: 8,
  stopSequences: ['\n'],
  answerFormat: 'numeric',
  graderVersion: graderVersionOf('numeric'),
  engineDtype: 'f32',
};

export const probes: ProbeSpec[] = [
  { probe: 'deployment' },
  { probe: 'sampling', budget: 4, temperature: 0.6, topP: 0.95, seed: 7 },
];

export function makeManifest(over: Partial<RunManifest> = {}, questions = 5): RunManifest {
  return {
    id: 'run-1',
    appVersion: '0.1.0',
    model: { fingerprint: 'fp-tiny', name: 'tiny-qwen2', source: 'builtin' },
    task: { id: 'builtin:arith-2d', version: 1, questions },
    condition,
    condition_key: 'ck-1',
    probes,
    engine: { ep: 'wasm', dtype: 'f32' },
    startedAt: '2026-01-01T00:00:00.000Z',
    status: 'queued',
    ...over,
  };
}

export const docIds = (n: number) => Array.from({ length: n }, (_, i) => `q${i}`);

/** A question's identity; `content` stands for what the file says under that id (another content,
 *  other hashes). */
export const identity = (docId: string, content = 'a'): QuestionIdentity => ({ doc_id: docId, doc_hash: `dh-${docId}-${content}`, prompt_hash: `ph-${docId}-${content}` });

/** Questions q0..q{n-1}, all of one content. */
export const questionsOf = (n: number, content = 'a'): QuestionIdentity[] => docIds(n).map((d) => identity(d, content));

/** A record as the audit core writes it: `correctAt` is the first correct attempt or null. */
export async function makeRecord(manifest: RunManifest, question: string | QuestionIdentity, probe: ProbeName, correctAt: number | null): Promise<QuestionRecord> {
  const q = typeof question === 'string' ? identity(question) : question;
  const docId = q.doc_id;
  const spec = manifest.probes.find((p) => p.probe === probe)!;
  const n = probeOf(spec).maxAttempts(spec);
  const attempts = Array.from({ length: n }, (_, index) => ({
    index,
    route: [0, 1],
    silence: [],
    response: index === correctAt ? ' 42' : ' 7',
    extracted: index === correctAt ? '42' : '7',
    correct: index === correctAt,
    meanLogprob: -0.5,
  }));
  return coreRecord({
    question: { doc: { id: docId, text: `what is 40+2 (${docId})`, target: '42' }, prompt: `Q: what is 40+2 (${docId})\nA:`, doc_hash: q.doc_hash, prompt_hash: q.prompt_hash },
    spec,
    probe_key: await probeKey(spec),
    condition_key: manifest.condition_key,
    model_fingerprint: manifest.model.fingerprint,
    task_id: manifest.task.id,
    task_version: manifest.task.version,
    attempts,
    condition: manifest.condition,
  });
}

/** An engine whose generate() counts calls, can fail at a given call with an engine error, can
 *  hold calls at a gate, and advances an injected clock by one second per call. */
export class CountingEngine implements Engine {
  calls = 0;
  cancels = 0;
  clockMs = 0;
  failAt: { call: number; code: EngineErrorCode } | null = null;
  /** When set, generate waits until release() (or rejects on cancel()). */
  private held: { waiters: { resolve: () => void; reject: (e: unknown) => void }[] } | null = null;
  /** Called when a call reaches the gate. */
  onHeld: (() => void) | null = null;

  readonly now = () => this.clockMs;

  hold(): void {
    this.held = { waiters: [] };
  }
  release(): void {
    const h = this.held;
    this.held = null;
    for (const w of h?.waiters ?? []) w.resolve();
  }

  async load(): Promise<never> {
    throw new EngineError('internal', 'not used');
  }
  async info() {
    return null;
  }
  async encode(text: string) {
    return [...text].map((c) => c.charCodeAt(0));
  }
  async decode(ids: number[]) {
    return String.fromCharCode(...ids);
  }
  async applyChatTemplate() {
    return '';
  }
  async logits(): Promise<Float32Array[]> {
    return [];
  }
  async generate(rows: { promptIds: number[] }[]) {
    this.calls++;
    if (this.failAt && this.calls === this.failAt.call) throw new EngineError(this.failAt.code, `fake ${this.failAt.code}`);
    if (this.held) {
      const h = this.held;
      await new Promise<void>((resolve, reject) => {
        h.waiters.push({ resolve, reject });
        this.onHeld?.();
      });
    }
    this.clockMs += 1000;
    return rows.map(() => ({ tokens: [1], text: ' 42', tokenLogprobs: [-0.5], stop: 'eos' as const }));
  }
  async score(): Promise<number[][]> {
    return [];
  }
  async cancel() {
    this.cancels++;
    const h = this.held;
    this.held = null;
    for (const w of h?.waiters ?? []) w.reject(new EngineError('cancelled', 'cancelled'));
  }
  async dispose() {}
}

export interface FakeAuditInput {
  manifest: RunManifest;
  questions: QuestionIdentity[];
  /** docId → first correct attempt per probe (default: deployment wrong, sampling correct at 1). */
  correctAt?: (docId: string, probe: ProbeName) => number | null;
}

/** Drives the engine once per unit not skipped, probe by probe then question by question, like
 *  the audit core. */
export const fakeAudit: AuditFn<FakeAuditInput> = async (engine, { input, skip, onRecord, signal }) => {
  const m = input.manifest;
  for (const spec of m.probes) {
    const probe_key = await probeKey(spec);
    for (const q of input.questions) {
      const key = recordKeyOf({ model_fingerprint: m.model.fingerprint, condition_key: m.condition_key, probe_key, ...q });
      if (skip(key)) continue;
      signal.throwIfAborted();
      await engine.generate([{ promptIds: [1], route: [0, 1], silence: [], sampling: { kind: 'greedy' } }], { maxNewTokens: 4 });
      const at = input.correctAt ? input.correctAt(q.doc_id, spec.probe) : spec.probe === 'deployment' ? null : 1;
      await onRecord(await makeRecord(input.manifest, q, spec.probe, at));
    }
  }
};

/** CacheStorage in memory, storing bodies as bytes like the real one stores them on disk. */
export class MemoryCaches implements CacheStorageLike {
  readonly caches = new Map<string, MemoryCache>();
  async open(name: string) {
    let c = this.caches.get(name);
    if (!c) this.caches.set(name, (c = new MemoryCache()));
    return c;
  }
  async keys() {
    return [...this.caches.keys()];
  }
  async delete(name: string) {
    return this.caches.delete(name);
  }
}
class MemoryCache implements CacheLike {
  readonly entries = new Map<string, { bytes: Uint8Array; headers: [string, string][] }>();
  async match(url: string) {
    const e = this.entries.get(url);
    return e ? new Response(e.bytes.slice(), { headers: e.headers }) : undefined;
  }
  async put(url: string, res: Response) {
    const bytes = new Uint8Array(await res.arrayBuffer()); // rejects when the body stream errors
    this.entries.set(url, { bytes, headers: [...res.headers.entries()] });
  }
  async delete(url: string) {
    return this.entries.delete(url);
  }
  async keys() {
    return [...this.entries.keys()].map((url) => ({ url }));
  }
}


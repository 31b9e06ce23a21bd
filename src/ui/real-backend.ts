// The AppBackend: the audit core and the run controller over an engine and a run store it is given.
// The app gives it the engine worker (comlink) and the IndexedDB store (createAppBackend below);
// tests and the development page `?fake=1` give it a FakeEngine and a MemoryRunStore
// (testing/test-backend.ts). The run controller lives on the page, not in the engine worker: a
// crashed worker or lost GPU is detected here (src/engine/remote.ts), so the run can be marked
// interrupted and resumed on a fresh engine without losing a record.

import { drawsRoutes, loadTask, parseTaskFile, formatFromName, selectorsFor } from '../audit/index';
import { noteRowsRead } from './stores/task-rows.svelte';
import type { LoadedTask, QuestionRecord, RunManifest } from '../audit/types';
import { fetchRepoInfo } from '../engine/sources/hub';
import { spawnEngine } from '../engine/spawn-worker';
import { EngineError, type Engine, type CheckpointSource, type LoadOptions, type LoadProgress, type ModelInfo } from '../engine/types';
import { canonicalJson } from '../util/hash';
import { readAttempt, type AttemptLook, type AttemptLookResult } from '../engine/readout';
import {
  coreAudit,
  coreRunRequest,
  errorOfRunFailure,
  exportRunJson,
  importFile,
  importInWorker,
  spawnImporter,
  StoreError,
  type ImportControl,
  loadRun,
  openRunStore,
  ProgressChannel,
  RunController,
  type AuditFn,
  type CoreAuditInput,
  type RunStore,
  type TabLocks,
} from '../store/index';
import { StudyRunner } from '../store/study-runner';
import { studyTaskOptions } from '../store/study';
import type { StudyReport } from '../audit/study-report';
import type { NormalizedPlan } from '../audit/study-plan';
import { BUILTIN_MODELS, builtinModel, builtinRef } from '../audit/builtin-models';
import {
  type AppBackend,
  type StoredStudyEntry,
  type StudyOverview,
  type StudyProgress,
  type EnvironmentInfo,
  type HubModelMeta,
  type LibraryEntry,
  type ModelChoice,
  type RunHandle,
  type RunListener,
  type RunProgress,
  type RunSetup,
  type StoredRun,
  type TaskChoice,
  type TaskFilePreview,
} from './backend';

const APP_VERSION: string = import.meta.env.VITE_APP_VERSION ?? '0.0.0';
/** The built-in models' "commit": the app build they ship with. */
const BUILTIN_COMMIT = `build-${import.meta.env.VITE_APP_COMMIT && import.meta.env.VITE_APP_COMMIT !== 'unknown' ? import.meta.env.VITE_APP_COMMIT : APP_VERSION}`;

/** An engine as a backend holds it: the worker's can be terminated (resetEngine). */
export type BackendEngine = Engine & { terminate?(): void };

/** What a RealBackend runs on; it creates none of it. */
export interface BackendParts {
  /** Starts an engine: once at construction, again on each resetEngine. */
  spawnEngine: () => BackendEngine;
  store: RunStore;
  /** This tab's end of the cross-tab progress channel (the controller publishes on it). */
  channel: ProgressChannel;
  /** The audit locks between tabs (default: navigator.locks). */
  locks?: TabLocks;
  /** Set when IndexedDB could not be opened and runs live in memory only. */
  storageWarning?: string;
  /** What the Hub API says about a repo (hubModelInfo). */
  repoInfo: typeof fetchRepoInfo;
  /** Where the built-in models are served in Hub layout. */
  builtinEndpoint: string;
  /** The browser's facts environment() reports (the page's navigator). */
  browser: BrowserFacts;
}

/** What environment() reads of navigator. */
export interface BrowserFacts {
  onLine: boolean;
  deviceMemory?: number;
  gpu?: GPU;
}

function sourceOf(model: ModelChoice, builtinEndpoint: string): CheckpointSource {
  switch (model.kind) {
    case 'builtin':
      // the built-in files are the build's own: cached per build, no revision lookup
      return { kind: 'hub', repo: model.id, revision: 'main', endpoint: builtinEndpoint, commit: BUILTIN_COMMIT };
    case 'hub':
      return { kind: 'hub', repo: model.repo, revision: model.revision || 'main', ...(model.token ? { token: model.token } : {}), ...(model.endpoint ? { endpoint: model.endpoint } : {}) };
    case 'files':
      return { kind: 'files', files: model.files };
  }
}

/** A study's model reference as a model choice: a built-in model, or a Hub id "org/name[@revision]". */
function studyModel(ref: string): ModelChoice {
  if (ref.startsWith('builtin:')) {
    const builtin = builtinModel(ref);
    if (!builtin) throw new EngineError('not-found', `no built-in model "${ref}" (built in: ${BUILTIN_MODELS.map(builtinRef).join(', ')})`);
    return { kind: 'builtin', id: builtin.id };
  }
  const m = /^([\w.-]+\/[\w.-]+)(?:@([\w./-]+))?$/.exec(ref);
  if (!m) throw new EngineError('not-found', `model "${ref}" is neither builtin:<name> nor a Hub id org/name[@revision] (a browser study cannot read a folder path)`);
  return { kind: 'hub', repo: m[1], revision: m[2] ?? 'main' };
}

function sourceLabel(model: ModelChoice): string {
  return model.kind === 'builtin' ? `builtin:${model.id}` : model.kind === 'hub' ? `hub:${model.repo}` : `files:${model.name}`;
}

async function taskOf(choice: TaskChoice): Promise<LoadedTask> {
  switch (choice.kind) {
    case 'builtin':
      return loadTask(`builtin:${choice.id}`, { questions: choice.count, seed: choice.seed });
    case 'hub':
      return noteRowsRead(`hub:${choice.preset}`, await loadTask(`hub:${choice.preset}`, { questions: choice.count }));
    case 'file':
      return loadTask(`file:${choice.file.name}`, {
        questions: choice.count,
        file: { text: await choice.file.text(), mapping: choice.mapping, answerFormat: choice.answerFormat, format: formatFromName(choice.file.name) },
      });
  }
}

const belongsTo = (r: QuestionRecord, m: RunManifest) =>
  r.model_fingerprint === m.model.fingerprint && r.condition_key === m.condition_key && r.task_id === m.task.id;

/** How long a cancelled start's engine work may take to stop before the engine is replaced. */
const ENGINE_SETTLE_MS = 1000;

const cancelledStart = () => new EngineError('cancelled', 'the audit was cancelled before it started');

/** Whether `p` settles within `ms`. */
function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout>;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  return Promise.race([p.then(() => true, () => true), late]).finally(() => clearTimeout(timer));
}

/** A startRun in flight: each stage rejects at once when it is cancelled; `busy` is the engine
 *  stage still running (a load, the prompts), whatever the start's own promise did. */
class StartInFlight {
  private readonly abort = new AbortController();
  private readonly cancelled = new Promise<never>((_, reject) => this.abort.signal.addEventListener('abort', () => reject(cancelledStart())));
  private busy: Promise<unknown> = Promise.resolve();

  constructor() {
    this.cancelled.catch(() => {});
  }

  check(): void {
    if (this.abort.signal.aborted) throw cancelledStart();
  }

  /** `work`, or the cancellation if it comes first; `engine`: the work runs on the engine. */
  stage<T>(work: Promise<T>, engine = false): Promise<T> {
    this.check();
    if (engine) this.busy = work.catch(() => {});
    return Promise.race([work, this.cancelled]);
  }

  /** `engine`, refusing every call once the start is cancelled (so building prompts stops). */
  guard(engine: BackendEngine): Engine {
    return new Proxy(engine, {
      get: (target, key) => {
        const v = Reflect.get(target, key) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          this.check();
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /** Cancels; resolves when the engine stage has settled. */
  cancel(): Promise<unknown> {
    this.abort.abort();
    return this.busy;
  }
}

interface LiveRun {
  manifest: RunManifest;
  lastError?: string;
  listener: RunListener;
  settle: { resolve: (m: RunManifest) => void; reject: (e: unknown) => void };
}

export class RealBackend implements AppBackend {
  private engine: BackendEngine;
  /** Model loads not settled yet (cancelLoad stops the engine's work only while there is one). */
  private loadsInFlight = 0;
  private loaded: { key: string; info: ModelInfo } | null = null;
  /** The startRun in flight (cancelStart stops it). */
  private starting: StartInFlight | null = null;
  /** Settles once a cancelled start's engine work has ended or its engine was replaced: the
   *  screen is free at once, so the next load waits here, never on an engine about to go (null
   *  when no cancel is settling: a load then starts at once, so cancelLoad sees it in flight). */
  private cancelSettling: Promise<void> | null = null;
  private readonly live = new Map<string, LiveRun>();
  private readonly controller: RunController<CoreAuditInput>;
  private readonly studies: StudyRunner;

  constructor(private readonly parts: BackendParts) {
    this.engine = parts.spawnEngine();
    // Wrap the audit so each record, once persisted, also reaches the screen that started the run.
    const audit: AuditFn<CoreAuditInput> = (engine, call) =>
      coreAudit(engine, {
        ...call,
        onRecord: async (r) => {
          await call.onRecord(r);
          for (const run of this.live.values()) if (belongsTo(r, run.manifest)) run.listener.record(r);
        },
      });
    this.controller = new RunController<CoreAuditInput>({ store: parts.store, engine: this.engine, audit, channel: parts.channel, ...(parts.locks ? { locks: parts.locks } : {}) });
    this.controller.subscribe((e) => {
      if (e.type === 'status') {
        const live = this.live.get(e.run.id);
        if (live) live.manifest = e.run.manifest;
        if (live) live.lastError = e.run.counters.lastError;
      }
      if (e.type === 'progress') this.forward(e.progress);
    });
    this.studies = new StudyRunner(this.controller, {
      useModel: async (ref) => {
        const info = await this.loadModel(studyModel(ref), { ep: 'auto', dtype: this.studyDtype }, () => {});
        return { engine: this.engine, info, source: ref };
      },
      loadTask: async (spec, plan) => noteRowsRead(spec, await loadTask(spec, studyTaskOptions(plan))),
      appVersion: APP_VERSION,
    });
  }

  /** The dtype of the study being run (its models load with it). */
  private studyDtype: NormalizedPlan['dtype'] = 'f32';

  /** Marks the runs a closed tab or crash left "running" interrupted: resumable, never failed. */
  recoverInterrupted(): Promise<unknown> {
    return this.controller.recoverInterrupted();
  }

  /** Tells other tabs at once that this tab's running audit stopped (the page is going away). */
  announceClosing(): void {
    this.controller.announceClosing();
  }

  async getRunByKey(runKey: string): Promise<StoredRun> {
    const [run] = await this.controller.store.runsByManifestKey(runKey);
    if (!run) throw new EngineError('not-found', `no stored run has the run key ${runKey.slice(0, 12)}…`);
    return loadRun(this.controller.store, run.id);
  }

  async runStudy(plan: NormalizedPlan, onProgress: (p: StudyProgress) => void): Promise<StudyReport> {
    this.studyDtype = plan.dtype;
    return this.studies.run(plan, onProgress);
  }

  async pauseStudy(): Promise<void> {
    await this.studies.pause();
  }

  async listStudies(): Promise<StoredStudyEntry[]> {
    return this.studies.list();
  }

  async studyOverview(plan: NormalizedPlan): Promise<StudyOverview> {
    return this.studies.overview(plan);
  }

  async studyReport(planKey: string): Promise<StudyReport> {
    return this.studies.report(planKey);
  }

  /** Passes progress on; the run's last progress (a final status) settles its handle. */
  private forward(p: RunProgress): void {
    const live = this.live.get(p.runId);
    if (!live) return;
    live.listener.progress(p);
    if (p.status === 'finished' || p.status === 'cancelled') live.settle.resolve(live.manifest);
    else if (p.status === 'interrupted') live.settle.reject(new EngineError('worker-crashed', p.message ?? live.lastError ?? 'run interrupted'));
    // a failure keeps its kind (an input problem is named as one); a failure of unknown kind is a bug
    else if (p.status === 'failed') live.settle.reject(p.failure ? errorOfRunFailure(p.failure, p.message ?? 'run failed') : new EngineError('internal', p.message ?? live.lastError ?? 'run failed'));
    else return;
    this.live.delete(p.runId);
  }

  async environment(): Promise<EnvironmentInfo> {
    const storageWarning = this.parts.storageWarning;
    const { onLine: online, deviceMemory: deviceMemoryGiB, gpu } = this.parts.browser;
    const missing: EnvironmentInfo = { gpu: { status: 'missing', shaderF16: false }, online, deviceMemoryGiB, ...(storageWarning ? { storageWarning } : {}) };
    if (!gpu) return missing;
    const adapter = await gpu.requestAdapter().catch(() => null);
    if (!adapter) return missing;
    const info = (adapter as unknown as { info?: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean } }).info ?? {};
    const fallback = info.isFallbackAdapter === true || /swiftshader/i.test(info.architecture ?? '');
    return {
      gpu: {
        status: fallback ? 'fallback' : 'available',
        adapter: [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'unknown adapter',
        shaderF16: adapter.features.has('shader-f16'),
        maxBufferBytes: adapter.limits.maxBufferSize,
      },
      online,
      deviceMemoryGiB,
      ...(storageWarning ? { storageWarning } : {}),
    };
  }

  async hubModelInfo(repo: string, revision: string, token?: string, endpoint?: string): Promise<HubModelMeta> {
    const info = await this.parts.repoInfo({ repo, revision, token, endpoint });
    return { repo, revision: revision || 'main', ...info };
  }

  async resetEngine(): Promise<void> {
    this.engine.terminate?.();
    this.engine = this.parts.spawnEngine();
    this.loaded = null;
    this.controller.setEngine(this.engine);
  }

  /** On the loaded model when it is the run's; a built-in model is loaded as the run ran it. */
  async lookInside(manifest: RunManifest, look: AttemptLook): Promise<AttemptLookResult> {
    if (this.cancelSettling) await this.cancelSettling;
    if (this.loaded?.info.fingerprint !== manifest.model.fingerprint) {
      const builtin = builtinModel(manifest.model.source);
      if (!builtin || !manifest.engine) {
        throw new EngineError('not-loaded', `the run's model ${manifest.model.name} is not the one loaded: load it on Setup, then look inside`);
      }
      await this.loadModel({ kind: 'builtin', id: builtin.id }, { ep: manifest.engine.ep, dtype: manifest.engine.dtype }, () => {});
    }
    return readAttempt(this.engine, look);
  }

  async loadModel(model: ModelChoice, opts: LoadOptions, onProgress: (p: LoadProgress) => void): Promise<ModelInfo> {
    if (this.cancelSettling) await this.cancelSettling;
    const key = canonicalJson({ source: model.kind === 'files' ? { files: model.name } : sourceOf(model, this.parts.builtinEndpoint), opts });
    if (this.loaded?.key === key && !(await this.movedOnHub(model, this.loaded.info))) return this.loaded.info;
    this.loaded = null;
    this.loadsInFlight++;
    try {
      const info = await this.engine.load(sourceOf(model, this.parts.builtinEndpoint), opts, onProgress);
      this.loaded = { key, info };
      return info;
    } finally {
      this.loadsInFlight--;
    }
  }

  /** Whether a Hub model's revision now names another commit than the one loaded (Reload must load
   *  anew); an unreachable Hub keeps what is loaded. */
  private async movedOnHub(model: ModelChoice, info: ModelInfo): Promise<boolean> {
    if (model.kind !== 'hub') return false;
    const now = await this.parts.repoInfo(model).then((r) => r.sha, () => undefined);
    return now !== undefined && now !== info.commit;
  }

  async cancelLoad(): Promise<void> {
    if (this.loadsInFlight > 0) await this.engine.cancel();
  }

  async previewTaskFile(file: File): Promise<TaskFilePreview> {
    const format = formatFromName(file.name);
    const rows = parseTaskFile(await file.text(), format);
    const columns = [...new Set(rows.slice(0, 50).flatMap((r) => Object.keys(r)))];
    return { format, columns, rows: rows.slice(0, 5), total: rows.length };
  }

  async startRun(setup: RunSetup, listener: RunListener): Promise<RunHandle> {
    const start = new StartInFlight();
    this.starting = start;
    try {
      return await this.startStages(setup, listener, start);
    } finally {
      if (this.starting === start) this.starting = null;
    }
  }

  async cancelStart(): Promise<void> {
    const start = this.starting;
    if (!start) return;
    this.starting = null;
    const settled = this.settleCancelled(start);
    const settling = settled.catch(() => {}).finally(() => {
      if (this.cancelSettling === settling) this.cancelSettling = null;
    });
    this.cancelSettling = settling;
    await settled;
  }

  private async settleCancelled(start: StartInFlight): Promise<void> {
    const busy = start.cancel();
    // the engine's part stops at its next call (a load is aborted); one still busy is replaced
    await this.engine.cancel().catch(() => {});
    if (!(await settlesWithin(busy, ENGINE_SETTLE_MS))) await this.resetEngine();
  }

  private async startStages(setup: RunSetup, listener: RunListener, start: StartInFlight): Promise<RunHandle> {
    const info = await start.stage(this.loadModel(setup.model, setup.load, (load) => listener.load(load)), true);
    const task = await start.stage(taskOf(setup.task));
    const input: CoreAuditInput = {
      task,
      condition: setup.condition,
      probes: setup.probes,
      questions: Math.min(setup.task.count, task.test.length),
      selectors: selectorsFor(setup.probes.some((p) => drawsRoutes(p.probe)), task.train.length),
    };
    // the engine builds each question's prompt so the run key covers the prompts the audit will ask
    const req = await start.stage(
      coreRunRequest(start.guard(this.engine), info, input, {
        appVersion: APP_VERSION,
        source: sourceLabel(setup.model),
        questionSeed: setup.questionSeed,
        ...(setup.model.kind === 'hub' ? { revision: setup.model.revision } : {}),
      }),
      true,
    );
    start.check();
    let settle!: LiveRun['settle'];
    const done = new Promise<RunManifest>((resolve, reject) => (settle = { resolve, reject }));
    done.catch(() => {}); // observed through handle.done
    const run = await this.controller.start({ ...req, includeImported: setup.includeImported === true });
    const texts = new Map(task.test.map((d) => [d.id, d.text]));
    // the same audit finished before: its stored run is the answer, nothing runs
    if (run.manifest.status === 'finished') return { runId: run.id, alreadyFinished: true, texts, done: Promise.resolve(run.manifest) };
    this.live.set(run.id, { manifest: run.manifest, listener, settle });
    return { runId: run.id, alreadyFinished: false, texts, done };
  }

  async pauseRun(runId: string): Promise<void> {
    await this.controller.pause(runId);
  }

  async resumeRun(runId: string): Promise<void> {
    await this.controller.resume(runId);
  }

  async cancelRun(runId: string): Promise<void> {
    await this.controller.cancel(runId);
  }

  async listRuns(): Promise<LibraryEntry[]> {
    const runs = await this.controller.store.listRuns();
    return runs.map((r) => ({ ...r.manifest, legacy: r.legacy === true })).sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  async getRun(runId: string): Promise<StoredRun> {
    return loadRun(this.controller.store, runId);
  }

  async exportRun(runId: string): Promise<Blob> {
    const producer = { app: APP_VERSION, commit: import.meta.env.VITE_APP_COMMIT ?? 'unknown' };
    return new Blob([await exportRunJson(this.controller.store, runId, producer)], { type: 'application/json' });
  }

  async deleteRun(runId: string): Promise<void> {
    await this.controller.store.deleteRun(runId);
  }

  watchOtherTabs(listener: (p: RunProgress) => void): () => void {
    // A BroadcastChannel never hears its own messages: this tab's runs do not come back here.
    // A run whose tab stops beating is reported interrupted (tab-lock.ts watch).
    return this.parts.channel.watch(listener);
  }

  async importFile(file: File, control: ImportControl = {}): Promise<RunManifest> {
    const store = this.controller.store;
    // the run id an lm-eval samples file becomes (store/import-file.ts lmEvalOptionsFor)
    const o = { runId: crypto.randomUUID(), appVersion: APP_VERSION };
    // IndexedDB is open to workers: the file is read, checked and stored there, off this thread. A
    // store in memory is this page's own, so the import runs here.
    const result = store.kind === 'indexeddb' && typeof Worker !== 'undefined' ? await importInWorker(spawnImporter, file, o, control) : await importFile(store, file, o, control);
    const run = await store.getRun(result.runId);
    if (!run) throw new StoreError('not-found', `run ${result.runId} was imported but is not in the library`);
    return run.manifest;
  }
}

/** The app's backend: the engine worker over the IndexedDB store (memory when it cannot open). */
export async function createRealBackend(): Promise<AppBackend> {
  const { store, warning } = await openRunStore();
  if (warning) console.warn(warning);
  const backend = new RealBackend({
    spawnEngine,
    store,
    channel: new ProgressChannel(),
    ...(warning ? { storageWarning: warning } : {}),
    repoInfo: fetchRepoInfo,
    // the app serves its built-in model (and the reference checkpoints) in Hub layout under /hub
    builtinEndpoint: `${location.origin}${import.meta.env.BASE_URL}hub`,
    browser: navigator as BrowserFacts,
  });
  // Runs a closed tab or crash left "running" become interrupted: resumable, never failed.
  await backend.recoverInterrupted();
  // other tabs hear at once that this tab's running audit stopped
  globalThis.addEventListener?.('pagehide', () => backend.announceClosing());
  return backend;
}

// The AppBackend over the engine worker (comlink), the audit core and the IndexedDB store.
// The run controller lives on the page, not in the engine worker: a crashed worker or lost GPU is
// detected here (src/engine/remote.ts), so the run can be marked interrupted and resumed on a
// fresh engine without losing a record.

import { drawsRoutes, loadTask, parseTaskFile, formatFromName, selectorsFor } from '../audit/index';
import type { LoadedTask, QuestionRecord, RunManifest } from '../audit/types';
import { fetchRepoInfo } from '../engine/sources/hub';
import { spawnEngine } from '../engine/spawn-worker';
import type { RemoteEngine } from '../engine/remote';
import { EngineError, type CheckpointSource, type LoadOptions, type LoadProgress, type ModelInfo } from '../engine/types';
import { canonicalJson } from '../util/hash';
import { readAttempt, type AttemptLook, type AttemptReadout } from '../engine/readout';
import {
  coreAudit,
  coreRunRequest,
  errorOfRunFailure,
  exportRunJson,
  importLmEvalSamples,
  importRunJson,
  loadRun,
  openRunStore,
  ProgressChannel,
  RunController,
  type AuditFn,
  type CoreAuditInput,
} from '../store/index';
import { StudyRunner } from '../store/study-runner';
import { studyTaskOptions } from '../store/study';
import type { NormalizedPlan, StudyReport } from '../audit/study';
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

/** The app serves its built-in model (and the reference checkpoints) in Hub layout under /hub. */
function builtinEndpoint(): string {
  return `${location.origin}${import.meta.env.BASE_URL}hub`;
}

function sourceOf(model: ModelChoice): CheckpointSource {
  switch (model.kind) {
    case 'builtin':
      // the built-in files are the build's own: cached per build, no revision lookup
      return { kind: 'hub', repo: model.id, revision: 'main', endpoint: builtinEndpoint(), commit: BUILTIN_COMMIT };
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
      return loadTask(`hub:${choice.preset}`, { questions: choice.count });
    case 'file':
      return loadTask(`file:${choice.file.name}`, {
        questions: choice.count,
        file: { text: await choice.file.text(), mapping: choice.mapping, answerFormat: choice.answerFormat, format: formatFromName(choice.file.name) },
      });
  }
}

const belongsTo = (r: QuestionRecord, m: RunManifest) =>
  r.model_fingerprint === m.model.fingerprint && r.condition_key === m.condition_key && r.task_id === m.task.id;

interface LiveRun {
  manifest: RunManifest;
  lastError?: string;
  listener: RunListener;
  settle: { resolve: (m: RunManifest) => void; reject: (e: unknown) => void };
}

class RealBackend implements AppBackend {
  private engine: RemoteEngine = spawnEngine();
  /** Model loads not settled yet (cancelLoad stops the engine's work only while there is one). */
  private loadsInFlight = 0;
  private loaded: { key: string; info: ModelInfo } | null = null;
  private readonly live = new Map<string, LiveRun>();
  private readonly controller: RunController<CoreAuditInput>;
  private readonly studies: StudyRunner;

  constructor(
    controller: (audit: AuditFn<CoreAuditInput>, engine: RemoteEngine) => RunController<CoreAuditInput>,
    /** This tab's end of the cross-tab progress channel (the controller publishes on it). */
    private readonly channel: ProgressChannel,
    /** Set when IndexedDB could not be opened and runs live in memory only. */
    private readonly storageWarning?: string,
  ) {
    // Wrap the audit so each record, once persisted, also reaches the screen that started the run.
    const audit: AuditFn<CoreAuditInput> = (engine, call) =>
      coreAudit(engine, {
        ...call,
        onRecord: async (r) => {
          await call.onRecord(r);
          for (const run of this.live.values()) if (belongsTo(r, run.manifest)) run.listener.record(r);
        },
      });
    this.controller = controller(audit, this.engine);
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
      loadTask: (spec, plan) => loadTask(spec, studyTaskOptions(plan)),
      appVersion: APP_VERSION,
    });
  }

  /** The dtype of the study being run (its models load with it). */
  private studyDtype: NormalizedPlan['dtype'] = 'f32';

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
    const storageWarning = this.storageWarning;
    const online = navigator.onLine;
    const deviceMemoryGiB = (navigator as { deviceMemory?: number }).deviceMemory;
    const gpu = (navigator as { gpu?: GPU }).gpu;
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
    const info = await fetchRepoInfo({ repo, revision, token, endpoint });
    return { repo, revision: revision || 'main', ...info };
  }

  async resetEngine(): Promise<void> {
    this.engine.terminate();
    this.engine = spawnEngine();
    this.loaded = null;
    this.controller.setEngine(this.engine);
  }

  /** On the loaded model when it is the run's; a built-in model is loaded as the run ran it. */
  async lookInside(manifest: RunManifest, look: AttemptLook): Promise<AttemptReadout> {
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
    const key = canonicalJson({ source: model.kind === 'files' ? { files: model.name } : sourceOf(model), opts });
    if (this.loaded?.key === key) return this.loaded.info;
    this.loaded = null;
    this.loadsInFlight++;
    try {
      const info = await this.engine.load(sourceOf(model), opts, onProgress);
      this.loaded = { key, info };
      return info;
    } finally {
      this.loadsInFlight--;
    }
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
    const info = await this.loadModel(setup.model, setup.load, (load) => listener.load(load));
    const task = await taskOf(setup.task);
    const input: CoreAuditInput = {
      task,
      condition: setup.condition,
      probes: setup.probes,
      questions: Math.min(setup.task.count, task.test.length),
      selectors: selectorsFor(setup.probes.some((p) => drawsRoutes(p.probe)), task.train.length),
    };
    // the engine builds each question's prompt so the run key covers the prompts the audit will ask
    const req = await coreRunRequest(this.engine, info, input, {
      appVersion: APP_VERSION,
      source: sourceLabel(setup.model),
      questionSeed: setup.questionSeed,
      ...(setup.model.kind === 'hub' ? { revision: setup.model.revision } : {}),
    });
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
    return this.channel.watch(listener);
  }

  async importFile(file: File): Promise<RunManifest> {
    const text = await file.text();
    const store = this.controller.store;
    // A harness samples file states no condition, engine or route: the import leaves them null
    // ("imported, condition unknown") under a condition key no measured run can have.
    const result = /^samples_.*\.jsonl$/i.test(file.name)
      ? await importLmEvalSamples(store, text, {
          runId: crypto.randomUUID(),
          appVersion: APP_VERSION,
          model: { fingerprint: `lm-eval:${file.name}`, name: file.name, source: `lm-eval:${file.name}` },
          task: { id: `lm-eval:${file.name}`, version: 1 },
          fileName: file.name,
        })
      : await importRunJson(store, text, file.name);
    return (await loadRun(store, result.runId)).manifest;
  }
}

export async function createRealBackend(): Promise<AppBackend> {
  const { store, warning } = await openRunStore();
  if (warning) console.warn(warning);
  let controller!: RunController<CoreAuditInput>;
  const channel = new ProgressChannel();
  const backend = new RealBackend(
    (audit, engine) => {
      controller = new RunController<CoreAuditInput>({ store, engine, audit, channel });
      return controller;
    },
    channel,
    warning,
  );
  // Runs a closed tab or crash left "running" become interrupted: resumable, never failed.
  await controller.recoverInterrupted();
  // other tabs hear at once that this tab's running audit stopped
  globalThis.addEventListener?.('pagehide', () => controller.announceClosing());
  return backend;
}

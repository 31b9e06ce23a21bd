// An AppBackend with scripted behaviour, so the whole UI runs without a model (dev: ?fake=1, and
// tests). It holds runs in memory, streams scripted records with a delay, and fails on purpose for
// a few repo names so error screens can be exercised:
//   fake/gated → 'gated', fake/offline → 'network', fake/missing → 'not-found',
//   fake/device-lost → the run fails with 'device-lost' after a few questions.

import { isDeployment } from '../../audit';
import type { QuestionRecord, RunManifest } from '../../audit/types';
import { planKey, plannedRuns, type NormalizedPlan, type StudyReport } from '../../audit/study';
import { generateArith } from '../../audit/tasks/arith';
import { EngineError, type LoadOptions, type LoadProgress, type ModelInfo } from '../../engine/types';
import { StoreError } from '../../store/errors';
import type {
  AppBackend, EnvironmentInfo, HubModelMeta, LibraryEntry, ModelChoice, StoredStudyEntry, StudyOverview, RunHandle, RunListener, RunProgress, RunSetup, StoredRun, TaskFilePreview,
} from '../backend';
import { BUILTIN_MODEL_ID } from '../backend';
import { attemptsOf } from '../lib/estimate';
import { DEFAULT_SCRIPT, scriptedQuestion, scriptedRun, scriptedText } from './scripted-run';

export interface FakeOptions {
  /** Milliseconds between questions of a run (0: as fast as the event loop allows). */
  delayMs: number;
  /** Start with two finished runs (a base and an RL checkpoint) in the library. */
  seedLibrary: boolean;
  numLayers: number;
  environment: EnvironmentInfo;
}

const DEFAULTS: FakeOptions = {
  delayMs: 40,
  seedLibrary: true,
  numLayers: DEFAULT_SCRIPT.numLayers,
  environment: { gpu: { status: 'fallback', adapter: 'swiftshader (fake)', shaderF16: false }, online: true, deviceMemoryGiB: 8 },
};

interface LiveRun {
  manifest: RunManifest;
  /** The setup that made it (runs of one setup are one run: a finished one is returned as it is). */
  setupKey?: string;
  records: QuestionRecord[];
  paused: boolean;
  cancelled: boolean;
  wake?: () => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class FakeBackend implements AppBackend {
  readonly options: FakeOptions;
  private runs = new Map<string, LiveRun>();
  /** The latest load started, and the latest one cancelLoad stopped. */
  private loadEpoch = 0;
  private cancelledLoad = 0;
  private nextId = 1;
  /** How many times resetEngine was called (tests read it). */
  resets = 0;

  constructor(options: Partial<FakeOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
    if (this.options.seedLibrary) {
      const base = scriptedRun({ id: 'fake-base', modelName: 'Qwen/Qwen2.5-0.5B (fake)', seed: 7, skill: 0.45 });
      const rl = scriptedRun({ id: 'fake-rl', modelName: 'hkust-nlp/Qwen-2.5-0.5B-SimpleRL-Zoo (fake)', seed: 11, skill: 0.6, startedAt: '2025-01-02T00:00:00.000Z' });
      for (const r of [base, rl]) this.runs.set(r.manifest.id, { ...r, paused: false, cancelled: false });
    }
  }

  async environment(): Promise<EnvironmentInfo> {
    return structuredClone(this.options.environment);
  }

  async hubModelInfo(repo: string, revision: string): Promise<HubModelMeta> {
    this.failFor(repo);
    const gated = repo.startsWith('meta-llama/') ? 'manual' : false;
    return { repo, revision, sha: 'f'.repeat(40), license: gated ? 'llama3.2' : 'apache-2.0', gated, weightBytes: 988_097_824, modelType: 'qwen2', numLayers: 24 };
  }

  async resetEngine(): Promise<void> {
    this.resets++;
  }

  async loadModel(model: ModelChoice, opts: LoadOptions, onProgress: (p: LoadProgress) => void): Promise<ModelInfo> {
    if (model.kind === 'hub') this.failFor(model.repo);
    if (model.kind === 'files' && !model.files.some((f) => f.name === 'config.json')) {
      throw new EngineError('not-found', `folder "${model.name}" has no config.json`);
    }
    const total = 1_000_000;
    const epoch = ++this.loadEpoch;
    for (const [i, phase] of (['config', 'download', 'weights', 'graph', 'session'] as const).entries()) {
      onProgress({ phase, loadedBytes: (total * (i + 1)) / 5, totalBytes: total });
      await sleep(this.options.delayMs);
      if (this.cancelledLoad >= epoch) throw new EngineError('cancelled', `loading ${model.kind === 'hub' ? model.repo : 'the model'} was cancelled`);
    }
    return this.modelInfo(model, opts);
  }

  async cancelLoad(): Promise<void> {
    this.cancelledLoad = this.loadEpoch;
  }

  async previewTaskFile(file: File): Promise<TaskFilePreview> {
    const text = await file.text();
    const lower = file.name.toLowerCase();
    let rows: unknown[];
    try {
      if (lower.endsWith('.jsonl')) rows = text.split(/\r?\n/).filter((l) => l.trim()).map((l) => JSON.parse(l));
      else if (lower.endsWith('.json')) rows = JSON.parse(text);
      else throw new EngineError('bad-input', `"${file.name}": the fake backend reads .jsonl and .json task files`);
    } catch (e) {
      if (e instanceof EngineError) throw e;
      throw new EngineError('bad-input', `"${file.name}" is not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(rows) || !rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
      throw new EngineError('bad-input', `"${file.name}": expected a list of objects (one question per row)`);
    }
    const objs = rows as Record<string, unknown>[];
    const columns = [...new Set(objs.slice(0, 50).flatMap((r) => Object.keys(r)))];
    return { format: lower.endsWith('.jsonl') ? 'jsonl' : 'json', columns, rows: objs.slice(0, 5), total: objs.length };
  }

  async startRun(setup: RunSetup, listener: RunListener): Promise<RunHandle> {
    if (!setup.probes[0] || !isDeployment(setup.probes[0])) throw new EngineError('bad-input', 'a run starts with the deployment probe');
    if (setup.model.kind === 'hub') this.failFor(setup.model.repo);
    const info = this.modelInfo(setup.model, setup.load);
    const setupKey = keyOf(setup);
    const count = Math.min(setup.task.count, 500);
    const questions = generateArith(setup.task.kind === 'builtin' ? setup.task.id : 'arith-2d', 'test', count, setup.questionSeed).map((p, qi) => ({ id: `test-${qi}`, ...scriptedText(qi, p) }));
    const texts = new Map(questions.map((q) => [q.id, q.text]));
    const finished = [...this.runs.values()].find((r) => r.setupKey === setupKey && r.manifest.status === 'finished');
    if (finished) return { runId: finished.manifest.id, alreadyFinished: true, texts, done: Promise.resolve(structuredClone(finished.manifest)) };
    const id = `run-${Date.now().toString(36)}-${this.nextId++}`;
    const manifest: RunManifest = {
      id,
      appVersion: '0.1.0',
      model: { fingerprint: info.fingerprint, name: info.name, source: setup.model.kind, ...(setup.model.kind === 'hub' ? { revision: setup.model.revision } : {}) },
      task: { id: taskId(setup), version: 1, questions: count, question_seed: setup.questionSeed },
      condition: structuredClone(setup.condition),
      condition_key: 'fake-condition-key',
      probes: structuredClone(setup.probes),
      engine: { ep: info.ep, dtype: info.dtype },
      startedAt: new Date().toISOString(),
      status: 'running',
    };
    const live: LiveRun = { manifest, setupKey, records: [], paused: false, cancelled: false };
    this.runs.set(id, live);
    const failAfter = setup.model.kind === 'hub' && setup.model.repo === 'fake/device-lost' ? 3 : Infinity;
    const done = this.drive(live, questions, info.numLayers, failAfter, listener);
    done.catch(() => {}); // the caller observes failure through handle.done
    return { runId: id, alreadyFinished: false, texts, done };
  }

  private async drive(live: LiveRun, questions: { id: string; text: string; target: string }[], numLayers: number, failAfter: number, listener: RunListener): Promise<RunManifest> {
    const m = live.manifest;
    const attemptsTotal = attemptsOf(questions.length, m.probes);
    let attemptsDone = 0;
    let elapsedMs = 0;
    const script = { ...DEFAULT_SCRIPT, id: m.id, numLayers, questions: questions.length, seed: 5 };
    // the store's progress (store/progress.ts) of a run whose questions finish one after another
    const progress = (qi: number, current: QuestionRecord | null = null) => {
      const attemptsPerSec = attemptsDone > 0 && elapsedMs > 0 ? (1000 * attemptsDone) / elapsedMs : null;
      listener.progress({
        runId: m.id, manifestKey: m.id, status: m.status, recordsDone: live.records.length, recordsTotal: questions.length * m.probes.length, questionsDone: qi, questionsTotal: questions.length,
        attemptsDone, attemptsPerSec, etaSec: attemptsPerSec ? (attemptsTotal - attemptsDone) / attemptsPerSec : null, currentDocId: current?.doc_id ?? null, currentProbe: current?.probe ?? null, reused: 0, storage: 'memory',
      });
    };
    for (const [qi, q] of questions.entries()) {
      while (live.paused && !live.cancelled) {
        m.status = 'paused';
        progress(qi);
        await new Promise<void>((r) => (live.wake = r));
      }
      if (live.cancelled) return this.finish(live, 'cancelled', () => progress(qi));
      m.status = 'running';
      for (const r of scriptedQuestion(script, qi, q.text, q.target, m)) {
        progress(qi, r);
        const t0 = Date.now();
        await sleep(this.options.delayMs / m.probes.length);
        elapsedMs += Date.now() - t0;
        if (qi >= failAfter) {
          m.status = 'interrupted';
          progress(qi);
          throw new EngineError('device-lost', 'WebGPU device was lost (fake)');
        }
        attemptsDone += r.attempts.length;
        live.records.push(r);
        listener.record(structuredClone(r));
      }
    }
    return this.finish(live, 'finished', () => progress(questions.length));
  }

  private finish(live: LiveRun, status: 'finished' | 'cancelled', report: () => void): RunManifest {
    live.manifest.status = status;
    live.manifest.finishedAt = new Date().toISOString();
    report();
    return structuredClone(live.manifest);
  }

  async pauseRun(runId: string): Promise<void> {
    this.live(runId).paused = true;
  }

  async resumeRun(runId: string): Promise<void> {
    const r = this.live(runId);
    r.paused = false;
    r.wake?.();
  }

  async cancelRun(runId: string): Promise<void> {
    const r = this.live(runId);
    r.cancelled = true;
    r.wake?.();
  }

  async listRuns(): Promise<LibraryEntry[]> {
    return [...this.runs.values()].map((r) => ({ ...structuredClone(r.manifest), legacy: false })).sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  async getRun(runId: string): Promise<StoredRun> {
    const r = this.live(runId);
    return structuredClone({ manifest: r.manifest, records: r.records });
  }

  async exportRun(runId: string): Promise<Blob> {
    const r = this.live(runId);
    const lines = [JSON.stringify({ type: 'manifest', manifest: r.manifest }), ...r.records.map((rec) => JSON.stringify({ type: 'record', record: rec }))];
    return new Blob([lines.join('\n') + '\n'], { type: 'application/x-ndjson' });
  }

  async deleteRun(runId: string): Promise<void> {
    this.live(runId);
    this.runs.delete(runId);
  }

  private readonly otherTabListeners = new Set<(p: RunProgress) => void>();

  watchOtherTabs(listener: (p: RunProgress) => void): () => void {
    this.otherTabListeners.add(listener);
    return () => this.otherTabListeners.delete(listener);
  }

  async getRunByKey(runKey: string): Promise<StoredRun> {
    const hit = [...this.runs.values()].find((r) => r.manifest.id === runKey);
    if (!hit) throw new StoreError('not-found', `no stored run has the run key ${runKey}`);
    return this.getRun(hit.manifest.id);
  }

  /** Studies run real audits; the scripted backend has no engine to run them on. */
  async runStudy(): Promise<StudyReport> {
    throw new StoreError('unavailable', 'the scripted backend cannot run a study: studies need the engine (open the app without ?fake=1)');
  }

  async pauseStudy(): Promise<void> {}

  async listStudies(): Promise<StoredStudyEntry[]> {
    return [];
  }

  /** No study is stored here: every plan is new, none of its runs done. */
  async studyOverview(plan: NormalizedPlan): Promise<StudyOverview> {
    const runs = plannedRuns(plan).map((r) => ({ model: r.setting.model, task: r.setting.task, label: r.label, run_key: null, run_id: null, done: false }));
    return { plan_key: await planKey(plan), plan, runs, runsDone: 0, runsTotal: runs.length, status: 'new' };
  }

  async studyReport(planKey: string): Promise<StudyReport> {
    throw new StoreError('not-found', `no study ${planKey}`);
  }

  /** Plays a progress message as if another tab published it (tests). */
  progressFromOtherTab(p: RunProgress): void {
    for (const l of this.otherTabListeners) l(p);
  }

  async importFile(file: File): Promise<RunManifest> {
    const lines = (await file.text()).split('\n').filter((l) => l.trim());
    let manifest: RunManifest | undefined;
    const records: QuestionRecord[] = [];
    for (const [i, line] of lines.entries()) {
      let row: { type?: unknown; manifest?: RunManifest; record?: QuestionRecord };
      try {
        row = JSON.parse(line);
      } catch {
        throw new StoreError('invalid-import', `"${file.name}" line ${i + 1} is not JSON`);
      }
      if (row.type === 'manifest' && row.manifest && typeof row.manifest.id === 'string') manifest = row.manifest;
      else if (row.type === 'record' && row.record && typeof row.record.doc_id === 'string') records.push(row.record);
      else throw new StoreError('invalid-import', `"${file.name}" line ${i + 1} is neither a manifest nor a record`);
    }
    if (!manifest) throw new StoreError('invalid-import', `"${file.name}" has no manifest line`);
    if (this.runs.has(manifest.id)) manifest = { ...manifest, id: `${manifest.id}-imported-${this.nextId++}` };
    this.runs.set(manifest.id, { manifest, records, paused: false, cancelled: false });
    return structuredClone(manifest);
  }

  private live(runId: string): LiveRun {
    const r = this.runs.get(runId);
    if (!r) throw new StoreError('not-found', `no run "${runId}"`);
    return r;
  }

  private failFor(repo: string): void {
    if (repo === 'fake/gated') throw new EngineError('gated', `${repo}: 401 Unauthorized`);
    if (repo === 'fake/offline') throw new EngineError('network', `${repo}: Failed to fetch`);
    if (repo === 'fake/missing') throw new EngineError('not-found', `${repo}: 404`);
  }

  private modelInfo(model: ModelChoice, opts: LoadOptions): ModelInfo {
    const name = model.kind === 'builtin' ? BUILTIN_MODEL_ID : model.kind === 'hub' ? model.repo : model.name;
    const L = model.kind === 'hub' ? 24 : this.options.numLayers;
    const gpu = this.options.environment.gpu.status !== 'missing';
    const ep = opts.ep === 'wasm' || !gpu ? 'wasm' : 'webgpu';
    return {
      fingerprint: `fake-${name}`,
      name,
      modelType: 'qwen2',
      numLayers: L,
      vocabSize: 64,
      config: {
        modelType: 'qwen2', numLayers: L, hiddenSize: 64, intermediateSize: 128, numHeads: 4, numKvHeads: 2, headDim: 16, vocabSize: 64,
        rmsNormEps: 1e-6, ropeTheta: 10000, ropeScaling: null, maxPositionEmbeddings: 512, tieWordEmbeddings: true,
        attentionBias: true, qkNorm: false, bosTokenId: null, eosTokenIds: [0],
      },
      ep,
      dtype: opts.dtype ?? 'f32',
      ...(ep === 'wasm' && opts.ep !== 'wasm' ? { fallbackReason: 'WebGPU unavailable' } : {}),
      ...(ep === 'webgpu' ? { adapter: this.options.environment.gpu.adapter } : {}),
      hasChatTemplate: false,
      eosTokenIds: [0],
      maxSeqLen: opts.maxSeqLen ?? 512,
      weightBytes: model.kind === 'hub' ? 988_097_824 : 420_000,
    };
  }
}

/** One setup's identity, as the real store's run key stands for it (the token is not part of it). */
function keyOf(setup: RunSetup): string {
  const model = setup.model.kind === 'hub' ? { ...setup.model, token: undefined } : setup.model.kind === 'files' ? { kind: 'files', name: setup.model.name } : setup.model;
  const task = setup.task.kind === 'file' ? { ...setup.task, file: setup.task.file.name } : setup.task;
  return JSON.stringify({ model, task, condition: setup.condition, probes: setup.probes, questionSeed: setup.questionSeed });
}

function taskId(setup: RunSetup): string {
  const t = setup.task;
  return t.kind === 'builtin' ? `builtin:${t.id}` : t.kind === 'hub' ? `hub:${t.preset}` : `file:${t.file.name}`;
}

export function createFakeBackend(options: Partial<FakeOptions> = {}): AppBackend {
  return new FakeBackend(options);
}

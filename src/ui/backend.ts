// The one interface between the UI and everything behind it (engine worker, audit core, store).
// The UI holds an AppBackend and nothing else; RealBackend (real-backend.ts) implements it over the
// engine and run store it is given: the comlink worker and IndexedDB in the app, a FakeEngine and a
// MemoryRunStore in tests and on the development page ?fake=1 (testing/test-backend.ts).
// Every method rejects with an EngineError (or a StoreError with a `code`) that lib/errors.ts maps
// to a message a person can act on.

import type { Condition, ProbeSpec, QuestionRecord, RunManifest, AnswerFormat } from '../audit/types';
import type { LoadOptions, LoadProgress, ModelInfo } from '../engine/types';
import type { AttemptLook, AttemptLookResult } from '../engine/readout';
import type { StudyReport } from '../audit/study-report';
import type { NormalizedPlan } from '../audit/study-plan';
import type { ImportControl, LoadedRun, RunProgress } from '../store/index';
import type { StudyOverview, StudyProgress } from '../store/study-runner';
import { BUILTIN_MODELS, type BuiltinModelId } from '../audit/builtin-models';

/** The built-in model Setup offers, served by the app itself in Hub layout (the built-in models
 *  are listed in audit/builtin-models.ts). */
export const BUILTIN_MODEL_ID = BUILTIN_MODELS[0].id;

export type ModelChoice =
  | { kind: 'builtin'; id: BuiltinModelId }
  /** endpoint: a Hub mirror or local stand-in; default https://huggingface.co. */
  | { kind: 'hub'; repo: string; revision: string; token?: string; endpoint?: string }
  /** A folder the user picked or dropped; `name` is the folder name. */
  | { kind: 'files'; name: string; files: File[] };

/** Where a task's questions come from. `count` caps the number of test questions audited. */
export type TaskChoice =
  /** seed: the question seed (which questions the generator draws). */
  | { kind: 'builtin'; id: string; count: number; seed: number }
  | { kind: 'hub'; preset: string; count: number }
  | { kind: 'file'; file: File; mapping: FieldMapping; answerFormat: AnswerFormat; count: number };

/** Which columns of a task file hold what. */
export interface FieldMapping {
  question: string;
  answer: string;
  /** A column holding an array of option texts (multiple choice). */
  choices?: string;
  id?: string;
}

export interface TaskFilePreview {
  format: 'jsonl' | 'json' | 'csv';
  columns: string[];
  rows: Record<string, unknown>[]; // first few rows, for the mapping form
  total: number;
}

/** What the Hub API says about a model repo before anything is downloaded. */
export interface HubModelMeta {
  repo: string;
  revision: string;
  /** Resolved commit sha, when the API gave one. */
  sha?: string;
  license?: string;
  gated: false | 'auto' | 'manual';
  /** Sum of the weight files' sizes (safetensors), when listed. */
  weightBytes?: number;
  modelType?: string;
  numLayers?: number;
}

export interface GpuInfo {
  /** missing: no navigator.gpu or no adapter; fallback: a software adapter (e.g. SwiftShader). */
  status: 'available' | 'fallback' | 'missing';
  adapter?: string;
  shaderF16: boolean;
  maxBufferBytes?: number;
}

export interface EnvironmentInfo {
  gpu: GpuInfo;
  online: boolean;
  /** navigator.deviceMemory in GiB when the browser exposes it. */
  deviceMemoryGiB?: number;
  /** Set when IndexedDB could not be opened: runs stay in memory, so export before closing. */
  storageWarning?: string;
}

/** Everything a run needs; the manifest records it. */
export interface RunSetup {
  model: ModelChoice;
  task: TaskChoice;
  /** fewShot.seed is the question seed. */
  condition: Condition;
  /** Which questions (a built-in task's seed) and which few-shot examples; the run records it. */
  questionSeed: number;
  /** Always starts with the deployment probe ({ probe: DEPLOYMENT }). */
  probes: ProbeSpec[];
  load: LoadOptions;
  /** Reuse records imported from files (regraded on import); by default only records computed
   *  here are reused. */
  includeImported?: boolean;
}

/** A run's progress as the store counts it from the run's records (store/progress.ts), this tab's
 *  runs and other tabs' alike. Its status 'interrupted': the engine was lost (GPU lost, worker
 *  crashed); finished records are kept and the run resumes. */
export type { RunProgress };

/** What a started run reports: the model's load before the run exists, then the run's progress,
 *  and each record once stored. */
export interface RunListener {
  load(p: LoadProgress): void;
  progress(p: RunProgress): void;
  record(r: QuestionRecord): void;
}

export interface RunHandle {
  runId: string;
  /** A run with the same run key had finished already: nothing runs, its stored results are the answer. */
  alreadyFinished: boolean;
  /** The question texts by doc id, for the question being worked on (untrusted: render as text). */
  texts: ReadonlyMap<string, string>;
  /** Settles when the run ends: resolves with the final manifest (finished or cancelled), rejects on failure. */
  done: Promise<RunManifest>;
}

/** A run as the Library lists it; legacy runs were made by an earlier version (viewable, never
 *  resumed or reused). */
export type LibraryEntry = RunManifest & { legacy: boolean };

/** A run as the screens read it: the store's loaded run (its records in probe order). */
export type StoredRun = Pick<LoadedRun, 'manifest' | 'records'> & Partial<Pick<LoadedRun, 'importedFrom' | 'run_key'>>;

export interface AppBackend {
  environment(): Promise<EnvironmentInfo>;
  hubModelInfo(repo: string, revision: string, token?: string, endpoint?: string): Promise<HubModelMeta>;
  /** Disposes the engine (worker included) and starts a fresh one: the way out of 'device-lost'
   *  and 'worker-crashed'. The next loadModel loads again. */
  resetEngine(): Promise<void>;
  /** Loads (or checks) a model without running; the UI shows ModelInfo (layers, EP, dtype). */
  loadModel(model: ModelChoice, opts: LoadOptions, onProgress: (p: LoadProgress) => void): Promise<ModelInfo>;
  /** Stops a loadModel in flight (it rejects with EngineError 'cancelled'); does nothing when none is. */
  cancelLoad(): Promise<void>;
  previewTaskFile(file: File): Promise<TaskFilePreview>;
  /** Starts a run; its load, progress and records stream back through the listener. */
  startRun(setup: RunSetup, listener: RunListener): Promise<RunHandle>;
  /** Stops a startRun in flight (loading the model, reading the questions, building the prompts):
   *  it rejects at once with EngineError 'cancelled', and an engine still busy with it a moment
   *  later is replaced by a fresh one. Does nothing when no start is in flight. */
  cancelStart(): Promise<void>;
  pauseRun(runId: string): Promise<void>;
  resumeRun(runId: string): Promise<void>;
  cancelRun(runId: string): Promise<void>;
  listRuns(): Promise<LibraryEntry[]>;
  getRun(runId: string): Promise<StoredRun>;
  /** The run file (one JSON document: manifest and records) that importFile reads back. */
  exportRun(runId: string): Promise<Blob>;
  deleteRun(runId: string): Promise<void>;
  /** Imports a run file or lm-eval samples file; `control` hears its progress and can cancel it
   *  (nothing of a cancelled import is stored; it rejects with an AbortError). */
  importFile(file: File, control?: ImportControl): Promise<RunManifest>;
  /** Calls `listener` with the progress of runs other tabs are running; returns the unsubscribe. */
  watchOtherTabs(listener: (p: RunProgress) => void): () => void;
  /** The stored run with this run key (the study report cites runs by key). */
  getRunByKey(runKey: string): Promise<StoredRun>;
  /** Runs (or resumes) a study plan to its end; resolves with its findings report. */
  runStudy(plan: NormalizedPlan, onProgress: (p: StudyProgress) => void): Promise<StudyReport>;
  /** Pauses the study running in this tab (its finished runs stay; running the plan resumes). */
  pauseStudy(): Promise<void>;
  /** Every stored study with its standing, derived from the store; the latest updated first. */
  listStudies(): Promise<StoredStudyEntry[]>;
  /** Where a plan stands in the store: its planned runs done and its status. */
  studyOverview(plan: NormalizedPlan): Promise<StudyOverview>;
  /** A stored study's report from the runs it finished. */
  studyReport(planKey: string): Promise<StudyReport>;
  /** Runs one stored attempt again on the engine and reads it layer by layer (Look inside);
   *  absent where no engine runs. */
  lookInside?(manifest: RunManifest, look: AttemptLook): Promise<AttemptLookResult>;
}

export type { StudyProgress, StudyOverview };

/** A study as the Study screen and the Library list it. */
export type StoredStudyEntry = StudyOverview;

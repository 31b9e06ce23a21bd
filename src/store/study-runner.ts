// Runs a study in the app: each planned run goes through the run controller like any audit (so a
// finished identical run is reused, an interrupted one resumes, every record is stored the moment it
// is complete), models are loaded one at a time, and the study itself (its plan and the runs it
// started) is kept in the store. Pausing stops the current run; running the plan again resumes.

import type { PromptEngine } from '../audit/prompt.ts';
import { studyReport, type StudyReport, type StudyRunResult } from '../audit/study-report.ts';
import { normalizePlan, planKey, plannedRuns, type NormalizedPlan } from '../audit/study-plan.ts';
import type { LoadedTask, RunManifest } from '../audit/types.ts';
import type { ModelInfo } from '../engine/types.ts';
import type { CoreAuditInput } from './core-audit.ts';
import { StoreError } from './errors.ts';
import { loadRun } from './export.ts';
import type { RunController } from './run-controller.ts';
import type { StoredRun, StoredStudy } from './schema.ts';
import { manifestKey } from './keys.ts';
import { studyTaskOptions } from './study.ts';
import { executePlan, plannedRunKeys, type StudyBackend } from './study-executor.ts';
import { canonicalJson } from '../util/hash.ts';
import { errorOfRunFailure } from './run-failure.ts';

export interface StudyEnv {
  /** Loads a model reference into the controller's engine; the prompt engine builds prompts. */
  useModel(ref: string): Promise<{ engine: PromptEngine; info: ModelInfo; source: string }>;
  loadTask(spec: string, plan: NormalizedPlan): Promise<LoadedTask>;
  appVersion: string;
}

/** A study's status, read from the store: finished when every planned run's key is a finished
 *  run; running while this tab runs it; otherwise paused or failed as it stopped, interrupted (it
 *  was running when its tab closed or reloaded), incomplete (it finished, then a run of it left the
 *  library); new when never started. */
export type StudyStatus = 'new' | 'running' | 'paused' | 'failed' | 'interrupted' | 'incomplete' | 'finished';

/** One planned run of a study and whether its content-addressed run is finished in the store. */
export interface PlannedRunState {
  model: string;
  task: string;
  label: string;
  /** Its run key (derived from the plan, study-executor.ts plannedRunKeys, or else the one the study
   *  started), and the id of the run with that key; null while neither is known. */
  run_key: string | null;
  run_id: string | null;
  done: boolean;
}

/** A plan's standing in the store: its planned runs, how many are done, its status. */
export interface StudyOverview {
  plan_key: string;
  plan: NormalizedPlan;
  runs: PlannedRunState[];
  runsDone: number;
  runsTotal: number;
  status: StudyStatus;
  lastError?: string;
  startedAt?: string;
  updatedAt?: string;
}

export interface StudyProgress {
  plan_key: string;
  /** Planned runs done (computed or reused) of all. */
  runsDone: number;
  runsTotal: number;
  /** The run being worked on, with its questions done and its seconds left once measured. */
  current: {
    model: string; task: string; label: string; runId: string; questionsDone?: number; questionsTotal?: number; etaSec?: number | null;
    /** The run's pace so far, and what it was measured on (the Setup estimate keeps it once the run ends). */
    attemptsPerSec?: number | null;
    measured?: { fingerprint: string; ep: ModelInfo['ep']; dtype: ModelInfo['dtype']; probes: RunManifest['probes']; maxNewTokens: number };
  } | null;
  /** Seconds left for the whole study: the current run's, plus the runs after it at the mean
   *  duration of the runs this session computed; null until both are measured. */
  etaSec?: number | null;
  status: StoredStudy['status'];
  message?: string;
}

const TERMINAL: RunManifest['status'][] = ['finished', 'failed', 'interrupted', 'cancelled', 'paused'];

export class StudyRunner {
  private stopping = false;
  private currentRun: string | null = null;
  /** The plan key of the study this runner is running now (in memory only: a closed tab runs nothing). */
  private active: string | null = null;
  private readonly tasks = new Map<string, Promise<LoadedTask>>();

  constructor(
    private readonly controller: RunController<CoreAuditInput>,
    private readonly env: StudyEnv,
  ) {}

  /** Runs (or resumes) the plan to its end; resolves with the report from the stored records. */
  async run(raw: unknown, onProgress: (p: StudyProgress) => void = () => {}): Promise<StudyReport> {
    const plan = normalizePlan(raw);
    const key = await planKey(plan);
    const store = this.controller.store;
    const now = () => new Date().toISOString();
    const study: StoredStudy = (await store.getStudy(key)) ?? { plan_key: key, plan, status: 'running', runs: [], startedAt: now(), updatedAt: now() };
    study.status = 'running';
    delete study.lastError;
    await store.putStudy(study);
    this.stopping = false;
    this.active = key;
    const planned = plannedRuns(plan);
    const results: StudyRunResult[] = [];
    /** Seconds each run computed in this session took (reused runs take none). */
    const computedSec: number[] = [];
    const progress = (current: StudyProgress['current']) => {
      const after = planned.length - results.length - (current ? 1 : 0);
      const mean = computedSec.length ? computedSec.reduce((a, b) => a + b, 0) / computedSec.length : null;
      const etaSec = current?.etaSec == null ? null : after === 0 ? current.etaSec : mean === null ? null : current.etaSec + after * mean;
      onProgress({ plan_key: key, runsDone: results.length, runsTotal: planned.length, current, etaSec, status: study.status, ...(study.lastError ? { message: study.lastError } : {}) });
    };
    let current: StudyProgress['current'] = null;
    // the current run's own progress (questions done, seconds left) rides on the study's
    const off = this.controller.subscribe((e) => {
      if (e.type !== 'progress' || !current || e.progress.runId !== current.runId) return;
      current = { ...current, questionsDone: e.progress.questionsDone, questionsTotal: e.progress.questionsTotal, etaSec: e.progress.etaSec, attemptsPerSec: e.progress.attemptsPerSec };
      progress(current);
    });
    const backend: StudyBackend = {
      openModel: (ref) => this.env.useModel(ref),
      loadTask: (spec, p) => this.env.loadTask(spec, p),
      execute: async (req, run, { info }) => {
        if (this.stopping) throw new StoreError('internal', 'paused');
        const { model, task } = run.setting;
        const done = this.whenDone(await manifestKey(req.manifest, req.questions));
        const startedAt = Date.now();
        const started = await this.controller.start(req);
        this.currentRun = started.id;
        const m = req.manifest;
        const measured = m.condition ? { fingerprint: info.fingerprint, ep: info.ep, dtype: info.dtype, probes: m.probes, maxNewTokens: m.condition.maxNewTokens } : undefined;
        current = { model, task, label: run.label, runId: started.id, ...(measured ? { measured } : {}) };
        progress(current);
        const reused = started.manifest.status === 'finished';
        const finished = reused ? (done.cancel(), started) : await done.promise;
        if (!reused) computedSec.push((Date.now() - startedAt) / 1000);
        this.currentRun = null;
        current = null;
        const result: StudyRunResult = { model, task, label: run.label, run_key: finished.manifestKey, records: (await loadRun(store, finished.id)).records };
        results.push(result);
        study.runs = [...study.runs.filter((x) => !(x.model === model && x.task === task && x.label === run.label)), { model, task, label: run.label, run_id: finished.id, run_key: finished.manifestKey }];
        study.updatedAt = now();
        await store.putStudy(study);
        progress(null);
        return result;
      },
    };
    try {
      await executePlan(plan, backend, this.env.appVersion);
      study.status = 'finished';
      this.active = null;
      off();
    } catch (e) {
      off();
      this.active = null;
      study.status = this.stopping ? 'paused' : 'failed';
      if (!this.stopping) study.lastError = e instanceof Error ? e.message : String(e);
      study.updatedAt = now();
      await store.putStudy(study);
      progress(null);
      throw this.stopping ? new StoreError('internal', 'the study was paused; run it again to resume') : e;
    }
    study.updatedAt = now();
    await store.putStudy(study);
    progress(null);
    return studyReport(plan, results);
  }

  /** Stops after pausing the run in progress; its records stay and running the plan resumes. */
  async pause(): Promise<void> {
    this.stopping = true;
    if (this.currentRun) await this.controller.pause(this.currentRun);
  }

  /** Where a plan stands, from the store: each planned run is done when a run with its key is
   *  finished here (not imported), the key derived from the plan before anything runs (so an edited plan, or one never
   *  run, counts what is already stored) or else the one its study started; the status is
   *  derived, the stored one only telling a pause or a failure from an interruption. */
  async overview(raw: unknown): Promise<StudyOverview> {
    const plan = normalizePlan(raw);
    const key = await planKey(plan);
    const store = this.controller.store;
    const study = await store.getStudy(key);
    const derived = await plannedRunKeys(plan, store, (spec) => this.taskOf(spec, plan));
    const runs: PlannedRunState[] = [];
    for (const [i, r] of plannedRuns(plan).entries()) {
      const { model, task } = r.setting;
      const entry = study?.runs.find((x) => x.model === model && x.task === task && x.label === r.label);
      const keys = [...new Set([...derived[i], ...(entry ? [entry.run_key] : [])])];
      let finished: StoredRun | undefined;
      // a study reuses only runs computed here (it never includes imported records): an imported
      // run of the same key is not done
      for (const k of keys) finished ??= (await store.runsByManifestKey(k)).find((x) => x.manifest.status === 'finished' && !x.manifest.imported && !x.legacy);
      const run_key = finished?.manifestKey ?? keys[0] ?? null;
      runs.push({ model, task, label: r.label, run_key, run_id: finished?.id ?? (entry?.run_key === run_key ? entry.run_id : null), done: finished !== undefined });
    }
    const runsDone = runs.filter((r) => r.done).length;
    const status: StudyStatus =
      runsDone === runs.length ? 'finished'
      : this.active === key ? 'running'
      : !study ? 'new'
      : study.status === 'paused' || study.status === 'failed' ? study.status
      : study.status === 'finished' ? 'incomplete'
      : 'interrupted';
    return {
      plan_key: key,
      plan,
      runs,
      runsDone,
      runsTotal: runs.length,
      status,
      ...(study?.lastError ? { lastError: study.lastError } : {}),
      ...(study ? { startedAt: study.startedAt, updatedAt: study.updatedAt } : {}),
    };
  }

  /** Every stored study's overview, the latest updated first. */
  async list(): Promise<StudyOverview[]> {
    const all = await this.controller.store.listStudies();
    const out = await Promise.all(all.map((s) => this.overview(s.plan)));
    return out.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  }

  /** The report of a stored study from the runs it finished (missing lists what is not done). */
  async report(planKeyOf: string): Promise<StudyReport> {
    const store = this.controller.store;
    const study = await store.getStudy(planKeyOf);
    if (!study) throw new StoreError('not-found', `no study ${planKeyOf}`);
    const results: StudyRunResult[] = [];
    for (const r of study.runs) {
      const run = await store.getRun(r.run_id);
      if (run?.manifest.status !== 'finished') continue;
      results.push({ model: r.model, task: r.task, label: r.label, run_key: r.run_key, records: (await loadRun(store, r.run_id)).records });
    }
    return studyReport(study.plan, results);
  }

  /** A plan's task, loaded once per session for its options (the overview reads it on each edit). */
  private taskOf(spec: string, plan: NormalizedPlan): Promise<LoadedTask> {
    const key = canonicalJson([spec, studyTaskOptions(plan)]);
    const loaded = this.tasks.get(key) ?? this.env.loadTask(spec, plan);
    this.tasks.set(key, loaded);
    loaded.catch(() => this.tasks.delete(key)); // a task that failed to load is tried again
    return loaded;
  }

  /** Listens (before the run starts, so no event is missed) for the run of this manifest key to
   *  finish; rejects when it stops otherwise. */
  private whenDone(key: string): { promise: Promise<StoredRun>; cancel: () => void } {
    let off = () => {};
    const promise = new Promise<StoredRun>((resolve, reject) => {
      off = this.controller.subscribe((e) => {
        if (e.type !== 'status' || e.run.manifestKey !== key || !TERMINAL.includes(e.run.manifest.status)) return;
        off();
        if (e.run.manifest.status === 'finished') resolve(e.run);
        else if (e.failure) reject(errorOfRunFailure(e.failure, `run ${e.run.id} failed: ${e.run.counters.lastError ?? 'no reason given'}`));
        else reject(new StoreError('internal', `run ${e.run.id} ${e.run.manifest.status}${e.run.counters.lastError ? `: ${e.run.counters.lastError}` : ''}`));
      });
    });
    return { promise, cancel: () => off() };
  }
}

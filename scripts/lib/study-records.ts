// The study executor's record-folder back end (the study CLI's): each run is read back from its run
// file when one is stored whole under its run key, else computed in this process and written as a
// ReachLab run file (importable in the app's Library) named by that key.

import { runAudit } from '../../src/audit/index.ts';
import type { StudyRunResult } from '../../src/audit/study-report.ts';
import type { NormalizedPlan } from '../../src/audit/study-plan.ts';
import type { LoadedTask, QuestionRecord, RunManifest } from '../../src/audit/types.ts';
import type { Engine } from '../../src/engine/types.ts';
import { isStoreError } from '../../src/store/errors.ts';
import { runFile } from '../../src/store/export.ts';
import { verifyRunFile, type VerifiedRunFile } from '../../src/store/import.ts';
import { manifestKey } from '../../src/store/keys.ts';
import { orderRecords } from '../../src/store/records.ts';
import { checkRunFile, type RunFile } from '../../src/store/run-file.ts';
import type { OpenModel, StudyBackend } from '../../src/store/study-executor.ts';
import { parseJsonInput } from '../../src/util/json-input.ts';

export interface StudyDeps {
  openEngine(ref: string): Promise<Engine>;
  loadTask(spec: string, plan: NormalizedPlan): Promise<LoadedTask>;
  /** A stored run file's text by run key, or null. */
  readRun(runKey: string): string | null;
  writeRun(runKey: string, text: string): void;
  log(line: string): void;
  appVersion: string;
  /** The app's git commit (default "unknown"). */
  appCommit?: string;
}

/** The run file stored under `key` if it is that run, whole and as this version computes it: its
 *  stated run key and the key its own manifest and questions make are both `key` (a file copied
 *  under another run's name states another model, condition, budget or question list), it passes
 *  every check the app's import makes (import.ts verifyRunFile: each record the run's, once, and
 *  regraded from its attempts), and it holds every record its run asks for. Else the reason it is
 *  not: the run is then computed again and its file rewritten. */
async function storedRunFile(key: string, text: string): Promise<{ file: RunFile; records: QuestionRecord[] } | { problem: string }> {
  const name = `${key}.json`;
  let file: RunFile;
  try {
    file = checkRunFile(parseJsonInput(text), name);
  } catch (e) {
    return { problem: `the stored run file ${name} cannot be read (${(e as Error).message})` };
  }
  const made = await manifestKey(file.manifest, file.questions);
  if (file.run_key !== key || made !== key) return { problem: `the stored run file ${name} is another run (its manifest and questions make run ${made.slice(0, 12)})` };
  let verified: VerifiedRunFile;
  try {
    verified = await verifyRunFile(file, name);
  } catch (e) {
    if (!isStoreError(e)) throw e;
    return { problem: `the stored run file ${e.message}` };
  }
  if (!verified.regraded) return { problem: `the stored run file ${name} cannot be regraded by this version (its condition is unknown or graded by another grader version)` };
  const total = file.manifest.task.questions * file.manifest.probes.length;
  if (verified.items.length !== total) return { problem: `the stored run file ${name} holds ${verified.items.length} of the ${total} records its run asks for` };
  return { file, records: verified.items.map((it) => it.record) };
}

/** The back end over deps' record folder, with what it did: each run's manifest by run key (for the
 *  report's provenance) and how many runs it computed and reused. */
export function recordFolderBackend(deps: StudyDeps): { backend: StudyBackend<OpenModel & { engine: Engine }>; manifests: Map<string, RunManifest>; counts: { computed: number; reused: number } } {
  const manifests = new Map<string, RunManifest>();
  const counts = { computed: 0, reused: 0 };
  const backend: StudyBackend<OpenModel & { engine: Engine }> = {
    async openModel(ref) {
      const engine = await deps.openEngine(ref);
      try {
        return { engine, info: (await engine.info())!, source: ref, close: () => engine.dispose() };
      } catch (e) {
        await engine.dispose();
        throw e;
      }
    },
    loadTask: (spec, plan) => deps.loadTask(spec, plan),
    async execute(req, run, { engine }) {
      const { model, task } = run.setting;
      const key = await manifestKey(req.manifest, req.questions);
      const text = deps.readRun(key);
      const stored = text === null ? null : await storedRunFile(key, text);
      if (stored && 'problem' in stored) deps.log(`warning: ${stored.problem}; computing the run again`);
      const result = (records: QuestionRecord[]): StudyRunResult => ({ model, task, label: run.label, run_key: key, records });
      if (stored && 'file' in stored) {
        manifests.set(key, stored.file.manifest);
        counts.reused++;
        return result(stored.records);
      }
      const started = performance.now();
      const res = await runAudit(engine, req.input);
      if (res.run_key !== key) throw new Error(`internal: run key ${res.run_key} differs from the request's ${key}`);
      const records = orderRecords(res.records, req.manifest.probes.map((p) => p.probe));
      const manifest = { ...req.manifest, status: 'finished' as const, finishedAt: new Date().toISOString() };
      const loaded = { manifest, records, run_key: key, questions: req.questions, legacy: false, importedFrom: [] }; // every record computed here
      deps.writeRun(key, JSON.stringify(runFile(loaded, { app: deps.appVersion, commit: deps.appCommit ?? 'unknown' }), null, 1));
      manifests.set(key, manifest);
      counts.computed++;
      deps.log(`${model} · ${task} · ${run.label}: ${records.length} records in ${((performance.now() - started) / 1000).toFixed(1)} s (run ${key.slice(0, 12)})`);
      return result(records);
    },
  };
  return { backend, manifests, counts };
}

// The one plan executor: model → task → run, each planned run made into its store run request
// (study.ts) and handed to a back end that computes or reuses it. The app's back end is the run
// controller over IndexedDB (study-runner.ts); the CLI's, a folder of run files (scripts/lib/study-records.ts).

import type { PromptEngine } from '../audit/prompt.ts';
import { plannedRuns, scanProbe, studySettings, type NormalizedPlan, type PlannedRun, type StudySetting } from '../audit/study-plan.ts';
import type { StudyRunResult } from '../audit/study-report.ts';
import { manifestNumLayers } from '../audit/run-definition.ts';
import type { LoadedTask, RunManifest } from '../audit/types.ts';
import type { CoreAuditInput } from './core-audit.ts';
import { loadRun } from './export.ts';
import { manifestKey } from './keys.ts';
import type { RunRequest } from './run-controller.ts';
import type { RunStore } from './store.ts';
import { studyProbeRequest, studyScanRequest, type StudyRunContext } from './study.ts';

/** A model opened for its settings' runs; `close` (when given) once they are done. */
export interface OpenModel {
  engine: PromptEngine;
  info: StudyRunContext['info'];
  /** Where it came from, as the manifest names it. */
  source: string;
  close?(): Promise<void>;
}

export interface StudyBackend<M extends OpenModel = OpenModel> {
  /** The model of a plan reference; null where this back end has none (key derivation: no stored
   *  run states it), and its runs are skipped. */
  openModel(ref: string): Promise<M | null>;
  /** The task of a spec; null where it cannot be had (key derivation), and its runs are skipped. */
  loadTask(spec: string, plan: NormalizedPlan): Promise<LoadedTask | null>;
  /** Computes the run of this request, or reuses a finished one of its key; its records, or null
   *  where they are not at hand (key derivation: a scan defined by the run is then skipped). */
  execute(req: RunRequest<CoreAuditInput>, run: PlannedRun, model: M): Promise<StudyRunResult | null>;
}

/** Runs the plan's runs of the settings `owns` keeps (by index in studySettings; default all), a
 *  model opened once for all its settings, a task loaded once; the results in plan order. The one
 *  model → task → run → scan walk: the app's study runner, the study CLI and the derivation of a
 *  plan's run keys (plannedRunKeys) all go through it. */
export async function executePlan<M extends OpenModel>(plan: NormalizedPlan, backend: StudyBackend<M>, appVersion: string, owns: (settingIndex: number) => boolean = () => true): Promise<StudyRunResult[]> {
  const settings = studySettings(plan);
  const runs = plannedRuns(plan);
  const tasks = new Map<string, Promise<LoadedTask | null>>();
  const results: StudyRunResult[] = [];
  const same = (a: StudySetting, b: StudySetting) => a.model === b.model && a.task === b.task;
  for (const model of [...new Set(settings.map((s) => s.model))]) {
    const mine = settings.filter((s, i) => s.model === model && owns(i));
    if (mine.length === 0) continue;
    const open = await backend.openModel(model);
    if (!open) continue;
    try {
      for (const setting of mine) {
        if (!tasks.has(setting.task)) tasks.set(setting.task, backend.loadTask(setting.task, plan));
        const task = await tasks.get(setting.task)!;
        if (!task) continue;
        const ctx: StudyRunContext = { plan, setting, engine: open.engine, info: open.info, task, appVersion, source: open.source };
        const done = new Map<string, StudyRunResult | null>();
        for (const run of runs.filter((r) => same(r.setting, setting))) {
          const defining = run.probe === null ? done.get(scanProbe(plan)) : undefined;
          if (run.probe === null && !defining) continue;
          const req = run.probe === null ? await studyScanRequest(ctx, defining!.records) : await studyProbeRequest(ctx, run.probe);
          const result = await backend.execute(req, run, open);
          done.set(run.label, result);
          if (result) results.push(result);
        }
      }
    } finally {
      await open.close?.();
    }
  }
  return results;
}

/** The prompt engine of a study's key derivation: without a chat template a study's prompts, and
 *  so its run keys, need no model loaded (a chat plan's keys are derived once the model is). */
const NO_CHAT_TEMPLATE: PromptEngine = {
  applyChatTemplate: async () => {
    throw new Error('internal: a study condition applies no chat template');
  },
};

/** The models stored runs were made from under a plan's model reference (their manifest's source):
 *  each fingerprint once, with the layers its route spaces state. */
function storedModels(manifests: readonly RunManifest[], ref: string): StudyRunContext['info'][] {
  const out = new Map<string, StudyRunContext['info']>();
  for (const m of manifests) {
    const numLayers = manifestNumLayers(m);
    if (m.model.source !== ref || !m.engine || numLayers === null || out.has(m.model.fingerprint)) continue;
    out.set(m.model.fingerprint, { fingerprint: m.model.fingerprint, name: m.model.name, numLayers, ...m.engine });
  }
  return [...out.values()];
}

/** Each planned run's run key, derived from the plan before it runs by walking it as executePlan
 *  runs it, over a back end that only computes keys: its model as stored runs know it (every
 *  fingerprint stored under its reference, so usually one key), its task loaded, a scan's
 *  questions from its defining run once that is finished. Empty where it cannot be derived: a
 *  model no stored run states the layers of, a task that does not load, a scan whose defining run
 *  is not done. */
export async function plannedRunKeys(plan: NormalizedPlan, store: RunStore, loadTask: (spec: string) => Promise<LoadedTask>): Promise<string[][]> {
  const runs = plannedRuns(plan);
  // a chat plan's prompts are its models' templates' renders: not derivable without the model
  if (plan.chat) return runs.map(() => []);
  const manifests = (await store.listRuns()).map((r) => r.manifest);
  const models = new Map([...new Set(runs.map((r) => r.setting.model))].map((ref) => [ref, storedModels(manifests, ref)]));
  const at = (r: PlannedRun) => [r.setting.model, r.setting.task, r.label].join('\u0000');
  const keys = new Map(runs.map((r) => [at(r), [] as string[]]));
  const tasks = new Map<string, Promise<LoadedTask | null>>();
  const scanDefining = scanProbe(plan);
  // one walk per stored fingerprint of a model reference
  for (let i = 0; [...models.values()].some((m) => i < m.length); i++) {
    await executePlan(plan, {
      openModel: async (ref) => {
        const info = models.get(ref)?.[i];
        return info ? { engine: NO_CHAT_TEMPLATE, info, source: ref } : null;
      },
      loadTask: (spec) => tasks.get(spec) ?? tasks.set(spec, loadTask(spec).catch(() => null)).get(spec)!,
      execute: async (req, run) => {
        const key = await manifestKey(req.manifest, req.questions);
        keys.get(at(run))!.push(key);
        if (run.label !== scanDefining) return null;
        const [done] = (await store.runsByManifestKey(key)).filter((r) => r.manifest.status === 'finished');
        return done ? { model: run.setting.model, task: run.setting.task, label: run.label, run_key: key, records: (await loadRun(store, done.id)).records } : null;
      },
    }, '');
  }
  return runs.map((r) => keys.get(at(r))!);
}

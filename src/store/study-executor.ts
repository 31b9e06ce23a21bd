// The one plan executor: model → task → run, each planned run made into its store run request
// (study.ts) and handed to a back end that computes or reuses it. The app's back end is the run
// controller over IndexedDB (study-runner.ts); the CLI's, a folder of run files (scripts/lib/study-records.ts).

import type { PromptEngine } from '../audit/prompt.ts';
import { plannedRuns, scanProbe, studySettings, type NormalizedPlan, type PlannedRun, type StudySetting } from '../audit/study-plan.ts';
import type { StudyRunResult } from '../audit/study-report.ts';
import type { LoadedTask } from '../audit/types.ts';
import type { CoreAuditInput } from './core-audit.ts';
import type { RunRequest } from './run-controller.ts';
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
  openModel(ref: string): Promise<M>;
  loadTask(spec: string, plan: NormalizedPlan): Promise<LoadedTask>;
  /** Computes the run of this request, or reuses a finished one of its key; its records. */
  execute(req: RunRequest<CoreAuditInput>, run: PlannedRun, model: M): Promise<StudyRunResult>;
}

/** Runs the plan's runs of the settings `owns` keeps (by index in studySettings; default all), a
 *  model opened once for all its settings, a task loaded once; the results in plan order. */
export async function executePlan<M extends OpenModel>(plan: NormalizedPlan, backend: StudyBackend<M>, appVersion: string, owns: (settingIndex: number) => boolean = () => true): Promise<StudyRunResult[]> {
  const settings = studySettings(plan);
  const runs = plannedRuns(plan);
  const tasks = new Map<string, Promise<LoadedTask>>();
  const results: StudyRunResult[] = [];
  const same = (a: StudySetting, b: StudySetting) => a.model === b.model && a.task === b.task;
  for (const model of [...new Set(settings.map((s) => s.model))]) {
    const mine = settings.filter((s, i) => s.model === model && owns(i));
    if (mine.length === 0) continue;
    const open = await backend.openModel(model);
    try {
      for (const setting of mine) {
        if (!tasks.has(setting.task)) tasks.set(setting.task, backend.loadTask(setting.task, plan));
        const ctx: StudyRunContext = { plan, setting, engine: open.engine, info: open.info, task: await tasks.get(setting.task)!, appVersion, source: open.source };
        const done = new Map<string, StudyRunResult>();
        for (const run of runs.filter((r) => same(r.setting, setting))) {
          const req = run.probe === null ? await studyScanRequest(ctx, done.get(scanProbe(plan))!.records) : await studyProbeRequest(ctx, run.probe);
          const result = await backend.execute(req, run, open);
          done.set(run.label, result);
          results.push(result);
        }
      }
    } finally {
      await open.close?.();
    }
  }
  return results;
}

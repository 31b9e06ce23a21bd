// A study's runs as store run requests: the one place that turns a planned run (a setting and a
// probe, or its silencing scan) into the request the run controller starts and the headless study
// runner executes, so both make the same content-addressed runs as the single audit CLI.

import type { PromptEngine } from '../audit/prompt.ts';
import { auditCondition, taskLoadOptions } from '../audit/setup.ts';
import { plannedRuns, scanProbe, scanQuestions, studyRunProbes, type NormalizedPlan, type StudyProbe, type StudySetting } from '../audit/study-plan.ts';
import { silencingAllLayers } from '../audit/presets.ts';
import { isDeployment } from '../audit/probes/registry.ts';
import { manifestNumLayers } from '../audit/run-definition.ts';
import type { LoadTaskOptions } from '../audit/tasks/index.ts';
import type { Condition, LoadedTask, QuestionRecord, RunManifest } from '../audit/types.ts';
import type { ModelInfo } from '../engine/types.ts';
import { coreRunRequest, type CoreAuditInput, type RunModel } from './core-audit.ts';
import { StoreError } from './errors.ts';
import { loadRun } from './export.ts';
import { manifestKey } from './keys.ts';
import type { RunStore } from './store.ts';
import type { RunRequest } from './run-controller.ts';

/** loadTask options of a study's tasks: its questions, question seed and selectors. */
export function studyTaskOptions(plan: NormalizedPlan): LoadTaskOptions {
  return taskLoadOptions({ questions: plan.questions, questionSeed: plan.question_seed, fewShot: 0, selectors: plan.selectors });
}

/** The condition every run of a study's task is audited under (the audit CLI's defaults). */
function studyCondition(plan: NormalizedPlan, task: LoadedTask): Promise<Condition> {
  return auditCondition(task, { dtype: plan.dtype, chat: plan.chat ?? false, ...(plan.template_vars ? { templateVars: plan.template_vars } : {}), fewShot: 0, questionSeed: plan.question_seed, boxed: false, ...(plan.recipe ? { recipe: plan.recipe } : {}), ...(plan.max_new_tokens ? { maxNewTokens: plan.max_new_tokens } : {}) });
}

export interface StudyRunContext {
  plan: NormalizedPlan;
  setting: StudySetting;
  engine: PromptEngine;
  info: RunModel & Pick<ModelInfo, 'numLayers'>;
  task: LoadedTask;
  appVersion: string;
  /** Where the model came from, as the manifest names it. */
  source: string;
}

/** Why a plan asking `asked` questions of a task holding `has` cannot run (the CLI's and Study's words). */
export function questionsRefusal(asked: number, task: string, has: number): string {
  return `the plan asks for ${asked} questions, but ${task} has ${has} test questions: set "questions" to at most ${has}`;
}

/** A probe run of a setting: deployment and the study probe over the plan's questions (all of
 *  them: a task holding fewer is refused by name, never audited short). */
export async function studyProbeRequest(c: StudyRunContext, probe: StudyProbe): Promise<RunRequest<CoreAuditInput>> {
  if (c.task.test.length < c.plan.questions) throw new StoreError('bad-input', questionsRefusal(c.plan.questions, c.setting.task, c.task.test.length));
  const input: CoreAuditInput = {
    task: c.task,
    condition: await studyCondition(c.plan, c.task),
    probes: studyRunProbes(c.plan, probe, c.info.numLayers),
    questions: c.plan.questions,
    selectors: c.plan.selectors,
  };
  return coreRunRequest(c.engine, c.info, input, { appVersion: c.appVersion, source: c.source, questionSeed: c.plan.question_seed });
}

/** The silencing scan run of a setting: every layer's MLP silenced on the failure and realized
 *  questions of its defining run (scanProbe), exactly as the audit CLI's --scan runs it. */
export async function studyScanRequest(c: StudyRunContext, defining: QuestionRecord[]): Promise<RunRequest<CoreAuditInput>> {
  const { failures, realized } = scanQuestions(defining);
  const byId = new Map(defining.filter(isDeployment).map((r) => [r.doc_id, r.doc]));
  const input: CoreAuditInput = {
    task: c.task,
    condition: await studyCondition(c.plan, c.task),
    probes: [silencingAllLayers(c.info.numLayers)],
    docs: [...failures, ...realized].map((id) => byId.get(id)!),
  };
  return coreRunRequest(c.engine, c.info, input, { appVersion: c.appVersion, source: c.source, questionSeed: c.plan.question_seed });
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

/** Each planned run's run key, derived from the plan before it runs, as StudyRunner.run starts it
 *  (studyProbeRequest, studyScanRequest): its model as stored runs know it (every fingerprint
 *  stored under its reference, so usually one key), its task loaded, a scan's questions from its
 *  defining run once that is finished. Empty where it cannot be derived: a model no stored run
 *  states the layers of, a task that does not load, a scan whose defining run is not done. */
export async function plannedRunKeys(plan: NormalizedPlan, store: RunStore, loadTask: (spec: string) => Promise<LoadedTask>): Promise<string[][]> {
  const manifests = (await store.listRuns()).map((r) => r.manifest);
  const tasks = new Map<string, Promise<LoadedTask | null>>();
  const taskOf = (spec: string) => tasks.get(spec) ?? tasks.set(spec, loadTask(spec).catch(() => null)).get(spec)!;
  /** Keys by model, task, label and fingerprint: where a scan finds its defining run. */
  const keyOf = new Map<string, string>();
  const out: string[][] = [];
  // a chat plan's prompts are its models' templates' renders: not derivable without the model
  if (plan.chat) return plannedRuns(plan).map(() => []);
  for (const run of plannedRuns(plan)) {
    const { model, task } = run.setting;
    const loaded = await taskOf(task);
    const keys: string[] = [];
    for (const info of loaded ? storedModels(manifests, model) : []) {
      const ctx: StudyRunContext = { plan, setting: run.setting, engine: NO_CHAT_TEMPLATE, info, task: loaded!, appVersion: '', source: model };
      let req: Awaited<ReturnType<typeof studyProbeRequest>> | null = null;
      if (run.probe) req = await studyProbeRequest(ctx, run.probe);
      else {
        const defining = keyOf.get([model, task, scanProbe(plan), info.fingerprint].join('\u0000'));
        const [done] = defining ? (await store.runsByManifestKey(defining)).filter((r) => r.manifest.status === 'finished') : [];
        if (done) req = await studyScanRequest(ctx, (await loadRun(store, done.id)).records);
      }
      if (!req) continue;
      const key = await manifestKey(req.manifest, req.questions);
      keyOf.set([model, task, run.label, info.fingerprint].join('\u0000'), key);
      keys.push(key);
    }
    out.push(keys);
  }
  return out;
}

// A study's runs as store run requests: the one place that turns a planned run (a setting and a
// probe, or its silencing scan) into the request the run controller starts and the headless study
// runner executes, so both make the same content-addressed runs as the single audit CLI.

import type { PromptEngine } from '../audit/prompt.ts';
import { auditCondition, taskLoadOptions } from '../audit/setup.ts';
import { scanQuestions, studyRunProbes, type NormalizedPlan, type StudyProbe, type StudySetting } from '../audit/study-plan.ts';
import { silencingAllLayers } from '../audit/presets.ts';
import { isDeployment } from '../audit/probes/registry.ts';
import type { LoadTaskOptions } from '../audit/tasks/index.ts';
import type { Condition, LoadedTask, QuestionRecord } from '../audit/types.ts';
import type { ModelInfo } from '../engine/types.ts';
import { coreRunRequest, type CoreAuditInput, type RunModel } from './core-audit.ts';
import { StoreError } from './errors.ts';
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

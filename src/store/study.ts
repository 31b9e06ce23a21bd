// A study's runs as store run requests: the one place that turns a planned run (a setting and a
// probe, or its silencing scan) into the request the run controller starts and the headless study
// runner executes, so both make the same content-addressed runs as the single audit CLI.

import type { PromptEngine } from '../audit/prompt.ts';
import { auditCondition, taskLoadOptions } from '../audit/setup.ts';
import { scanQuestions, studyRunProbes, type NormalizedPlan, type StudyProbe, type StudySetting } from '../audit/study.ts';
import { silencingAllLayers } from '../audit/presets.ts';
import { isDeployment } from '../audit/probes/registry.ts';
import type { LoadTaskOptions } from '../audit/tasks/index.ts';
import type { Condition, LoadedTask, QuestionRecord } from '../audit/types.ts';
import type { ModelInfo } from '../engine/types.ts';
import { coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import type { RunRequest } from './run-controller.ts';

/** loadTask options of a study's tasks: its questions, question seed and selectors. */
export function studyTaskOptions(plan: NormalizedPlan): LoadTaskOptions {
  return taskLoadOptions({ questions: plan.questions, questionSeed: plan.question_seed, fewShot: 0, selectors: plan.selectors });
}

/** The condition every run of a study's task is audited under (the audit CLI's defaults). */
export function studyCondition(plan: NormalizedPlan, task: LoadedTask): Promise<Condition> {
  return auditCondition(task, { dtype: plan.dtype, chat: false, fewShot: 0, questionSeed: plan.question_seed, boxed: false });
}

export interface StudyRunContext {
  plan: NormalizedPlan;
  setting: StudySetting;
  engine: PromptEngine;
  info: ModelInfo;
  task: LoadedTask;
  appVersion: string;
  /** Where the model came from, as the manifest names it. */
  source: string;
}

/** A probe run of a setting: deployment and the study probe over the plan's questions. */
export async function studyProbeRequest(c: StudyRunContext, probe: StudyProbe): Promise<RunRequest<CoreAuditInput>> {
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


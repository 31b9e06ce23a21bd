// The run controller driving the audit core (src/audit/run.ts runAudit): the adapter and the run
// request built from a loaded model and audit options.

import { questionIdentities } from '../audit/attempts.ts';
import { bindFewShotPool, conditionKey } from '../audit/condition.ts';
import { bindProbes } from '../audit/probes/registry.ts';
import type { PromptEngine } from '../audit/prompt.ts';
import { runAudit, type AuditOptions } from '../audit/run.ts';
import type { RunManifest } from '../audit/types.ts';
import type { ModelInfo } from '../engine/types.ts';
import type { AuditFn, RunRequest } from './run-controller.ts';

/** Everything runAudit takes except the hooks the controller supplies. */
export type CoreAuditInput = Omit<AuditOptions, 'onRecord' | 'skip' | 'stored' | 'signal' | 'onAttempts'>;

export const coreAudit: AuditFn<CoreAuditInput> = (engine, call) =>
  runAudit(engine, { ...call.input, onRecord: call.onRecord, skip: call.skip, stored: call.stored, signal: call.signal, ...(call.onAttempts ? { onAttempts: call.onAttempts } : {}) });

export interface RunMeta {
  appVersion: string;
  /** Where the model came from: "hub:org/name", "files:folder", "builtin:micro". */
  source: string;
  revision?: string;
  /** Defaults to a random UUID. */
  id?: string;
  /** The seed that chose the questions (built-in generators) and the few-shot examples; written
   *  to the manifest as task.question_seed. */
  questionSeed?: number;
}

/** What a run request needs of a model: its identity and what it computes on (manifest only). */
export type RunModel = Pick<ModelInfo, 'fingerprint' | 'commit' | 'name' | 'numLayers' | 'ep' | 'dtype' | 'chatTemplateFile' | 'adapter' | 'runtime'>;

/**
 * The run request for auditing `input` on the model `info` describes, `engine` building the
 * prompts. The condition's few-shot pool is bound to the task's train split (bindFewShotPool), so
 * the request's input, its manifest and the audit share one condition and condition key; the
 * questions' identities (doc and prompt hashes) are the ones runAudit computes, so the manifest
 * key is the run key runAudit returns.
 */
export async function coreRunRequest(engine: PromptEngine, info: RunModel, input: CoreAuditInput, meta: RunMeta): Promise<RunRequest<CoreAuditInput>> {
  const condition = await bindFewShotPool(input.condition, input.task.train);
  const docs = input.docs ?? input.task.test.slice(0, input.questions ?? input.task.test.length);
  const questions = await questionIdentities(engine, condition, docs, input.task.train);
  // a depth-matched probe is bound to its MCTS probe and these questions, in the manifest too
  const probes = await bindProbes(input.probes, questions);
  const manifest: RunManifest = {
    id: meta.id ?? crypto.randomUUID(),
    appVersion: meta.appVersion,
    model: {
      fingerprint: info.fingerprint, name: info.name, source: meta.source, numLayers: info.numLayers, ...(meta.revision ? { revision: meta.revision } : {}),
      ...(info.commit ? { commit: info.commit } : {}),
      ...(input.condition.chatTemplate && info.chatTemplateFile ? { chatTemplate: info.chatTemplateFile } : {}),
    },
    task: {
      id: input.task.spec.id,
      version: input.task.spec.metadata.version,
      questions: docs.length,
      ...(meta.questionSeed !== undefined ? { question_seed: meta.questionSeed } : {}),
    },
    condition,
    condition_key: await conditionKey(condition),
    probes,
    engine: { ep: info.ep, dtype: info.dtype, ...(info.adapter ? { adapter: info.adapter } : {}), ...(info.runtime ? { runtime: info.runtime } : {}) },
    startedAt: new Date().toISOString(),
    status: 'queued',
  };
  return { manifest, questions, input: { ...input, condition, probes } };
}

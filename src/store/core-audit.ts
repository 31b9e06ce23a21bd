// The run controller driving the audit core (src/audit/run.ts runAudit): the adapter, the run
// request built from a loaded model and audit options, and the core's summary as the store's.

import { conditionKey } from '../audit/condition.ts';
import { runAudit, type AuditOptions } from '../audit/run.ts';
import { summarize } from '../audit/summary.ts';
import type { RunManifest } from '../audit/types.ts';
import type { ModelInfo } from '../engine/types.ts';
import type { AuditFn, RunRequest } from './run-controller.ts';

/** Everything runAudit takes except the hooks the controller supplies. */
export type CoreAuditInput = Omit<AuditOptions, 'onRecord' | 'skip' | 'signal' | 'onProgress'>;

export const coreAudit: AuditFn<CoreAuditInput> = (engine, call) =>
  runAudit(engine, { ...call.input, onRecord: call.onRecord, skip: call.skip, signal: call.signal });

export const coreSummarize = summarize;

export interface RunMeta {
  appVersion: string;
  /** Where the model came from: "hub:org/name", "files:folder", "builtin:micro". */
  source: string;
  revision?: string;
  /** Defaults to a random UUID. */
  id?: string;
}

/** The run request for auditing `input` on the model `info` describes. */
export async function coreRunRequest(info: ModelInfo, input: CoreAuditInput, meta: RunMeta): Promise<RunRequest<CoreAuditInput>> {
  const docs = input.docs ?? input.task.test.slice(0, input.questions ?? input.task.test.length);
  const manifest: RunManifest = {
    id: meta.id ?? crypto.randomUUID(),
    appVersion: meta.appVersion,
    model: { fingerprint: info.fingerprint, name: info.name, source: meta.source, ...(meta.revision ? { revision: meta.revision } : {}) },
    task: { id: input.task.spec.id, version: input.task.spec.metadata.version, questions: docs.length },
    condition: input.condition,
    condition_key: await conditionKey(input.condition),
    probes: input.probes,
    engine: { ep: info.ep, dtype: info.dtype },
    startedAt: new Date().toISOString(),
    status: 'queued',
  };
  return { manifest, docIds: docs.map((d) => d.id), input };
}

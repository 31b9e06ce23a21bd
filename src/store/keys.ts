// Keys that decide what is "the same work": a question record's key, a probe's key and a run's
// manifest key. Records computed under one key are reused by every run that asks for that key.

import { probeKey } from '../audit/condition.ts';
import type { ProbeName, QuestionRecord, RunManifest } from '../audit/types.ts';
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import { StoreError } from './errors.ts';

/**
 * IndexedDB key of a question record. The scope comes first so all records of one
 * (model, task, version, condition, probe) are one contiguous key range; doc_id is last.
 * The probe component is a probe key (name + hash of the full ProbeSpec), so a random-routes
 * record with budget 16 is never reused for a run asking budget 64.
 */
export type RecordKey = [
  model_fingerprint: string,
  task_id: string,
  task_version: number,
  condition_key: string,
  probe_key: string,
  doc_id: string,
];

/** The audit core's probe key: `${name}:${first 16 hex of sha256(canonical spec)}`. */
export { probeKey };

/** What a run's records share: everything in the record key but the question. */
export interface RunScope {
  model_fingerprint: string;
  task_id: string;
  task_version: number;
  condition_key: string;
  /** probe name → probe key, one per spec of the manifest. */
  probeKeys: Map<ProbeName, string>;
}

export async function runScope(manifest: RunManifest): Promise<RunScope> {
  const probeKeys = new Map<ProbeName, string>();
  for (const spec of manifest.probes) {
    if (probeKeys.has(spec.probe)) {
      throw new StoreError('bad-input', `run ${manifest.id} lists probe "${spec.probe}" twice; records name probes, so a run holds one spec per probe`);
    }
    probeKeys.set(spec.probe, await probeKey(spec));
  }
  return {
    model_fingerprint: manifest.model.fingerprint,
    task_id: manifest.task.id,
    task_version: manifest.task.version,
    condition_key: manifest.condition_key,
    probeKeys,
  };
}

export function recordKeyIn(scope: RunScope, record: QuestionRecord): RecordKey {
  const pk = scope.probeKeys.get(record.probe);
  if (pk === undefined) {
    throw new StoreError('bad-input', `record ${record.doc_id} is for probe "${record.probe}", which the run does not list`);
  }
  if (
    record.model_fingerprint !== scope.model_fingerprint ||
    record.task_id !== scope.task_id ||
    record.task_version !== scope.task_version ||
    record.condition_key !== scope.condition_key
  ) {
    throw new StoreError(
      'bad-input',
      `record ${record.doc_id}/${record.probe} does not belong to this run: model, task, version or condition key differ from the manifest`,
    );
  }
  if (record.probe_key !== pk) {
    throw new StoreError('bad-input', `record ${record.doc_id}/${record.probe} has probe key ${record.probe_key}; the run's ${record.probe} spec has ${pk}`);
  }
  return [scope.model_fingerprint, scope.task_id, scope.task_version, scope.condition_key, pk, record.doc_id];
}

/** The key range holding every record of one probe within a scope (arrays sort after strings). */
export function probeRange(scope: RunScope, pk: string): [lower: IDBValidKey[], upper: IDBValidKey[]] {
  const prefix = [scope.model_fingerprint, scope.task_id, scope.task_version, scope.condition_key, pk];
  return [[...prefix, ''], [...prefix, []]];
}

/**
 * Identity of "the same audit": model, task + version + question count, condition key and probe
 * specs. Starting a run with the same manifest key resumes it; the Web Lock is named after it.
 */
export async function manifestKey(manifest: RunManifest): Promise<string> {
  return sha256Hex(
    canonicalJson({
      model: manifest.model.fingerprint,
      task: manifest.task,
      condition_key: manifest.condition_key,
      probes: manifest.probes,
    }),
  );
}

/** A string form of (doc_id, probe) for skip sets within one run. */
export function unitKey(docId: string, probe: ProbeName): string {
  return `${probe}\u0000${docId}`;
}

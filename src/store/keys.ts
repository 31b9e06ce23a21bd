// Keys that decide what is "the same work": a question record's key, a probe's key and a run's
// manifest key. Records computed under one key are reused by every run that asks for that key;
// both keys are content addresses (the question's content and prompt hashes, never a task or
// file name).

import { probeKey, runKey, type QuestionIdentity } from '../audit/condition.ts';
import type { ProbeName, QuestionRecord, RunManifest } from '../audit/types.ts';
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import { StoreError } from './errors.ts';

/**
 * IndexedDB key of a question record: the audit core's record key (condition.ts recordKeyOf) as
 * an array. The scope comes first so all records of one (model, condition, probe) are one
 * contiguous key range; then the question: its id, its content hash and its prompt hash. The
 * probe component is a probe key (name + hash of the full ProbeSpec), so a random-routes record
 * with budget 16 is never reused for a run asking budget 64, and a question of another file that
 * happens to share an id is another key.
 */
export type RecordKey = [model_fingerprint: string, condition_key: string, probe_key: string, doc_id: string, doc_hash: string, prompt_hash: string];

/** The audit core's probe key: `${name}:${first 16 hex of sha256(canonical spec)}`. */
export { probeKey };

/** What a run's records share (everything in the record key but the question), and the run's
 *  questions when known. */
export interface RunScope {
  model_fingerprint: string;
  condition_key: string;
  /** probe name → probe key, one per spec of the manifest. */
  probeKeys: Map<ProbeName, string>;
  /** doc_id → the identity the run asks for; null when unknown (legacy runs), then any content
   *  under the run's model, condition and probes belongs to it. */
  questions: Map<string, QuestionIdentity> | null;
}

export async function runScope(manifest: RunManifest, questions: readonly QuestionIdentity[] | null): Promise<RunScope> {
  const probeKeys = new Map<ProbeName, string>();
  for (const spec of manifest.probes) {
    if (probeKeys.has(spec.probe)) {
      throw new StoreError('bad-input', `run ${manifest.id} lists probe "${spec.probe}" twice; records name probes, so a run holds one spec per probe`);
    }
    probeKeys.set(spec.probe, await probeKey(spec));
  }
  let byId: Map<string, QuestionIdentity> | null = null;
  if (questions) {
    byId = new Map();
    for (const q of questions) {
      if (byId.has(q.doc_id)) throw new StoreError('bad-input', `run ${manifest.id}: question id ${q.doc_id} repeats`);
      byId.set(q.doc_id, q);
    }
  }
  return { model_fingerprint: manifest.model.fingerprint, condition_key: manifest.condition_key, probeKeys, questions: byId };
}

/** A record's key from its own fields. */
export function recordKeyOfRecord(record: QuestionRecord): RecordKey {
  return [record.model_fingerprint, record.condition_key, record.probe_key, record.doc_id, record.doc_hash, record.prompt_hash];
}

/** The key of a record of the run `scope` describes; refused when the record is not the run's
 *  (another model, condition, probe, or another content under one of its question ids). */
export function recordKeyIn(scope: RunScope, record: QuestionRecord): RecordKey {
  const pk = scope.probeKeys.get(record.probe);
  if (pk === undefined) {
    throw new StoreError('bad-input', `record ${record.doc_id} is for probe "${record.probe}", which the run does not list`);
  }
  if (record.model_fingerprint !== scope.model_fingerprint || record.condition_key !== scope.condition_key) {
    throw new StoreError('bad-input', `record ${record.doc_id}/${record.probe} does not belong to this run: model or condition key differ from the manifest`);
  }
  if (record.probe_key !== pk) {
    throw new StoreError('bad-input', `record ${record.doc_id}/${record.probe} has probe key ${record.probe_key}; the run's ${record.probe} spec has ${pk}`);
  }
  if (scope.questions) {
    const q = scope.questions.get(record.doc_id);
    if (!q) throw new StoreError('bad-input', `record ${record.doc_id}/${record.probe} does not belong to this run: the run has no question ${record.doc_id}`);
    if (q.doc_hash !== record.doc_hash || q.prompt_hash !== record.prompt_hash) {
      throw new StoreError(
        'bad-input',
        `record ${record.doc_id}/${record.probe} does not belong to this run: its question content or prompt (doc_hash, prompt_hash) differs from the run's question ${record.doc_id}`,
      );
    }
  }
  return recordKeyOfRecord(record);
}

/** The key range holding every record of one probe within a scope (arrays sort after strings). */
export function probeRange(scope: RunScope, pk: string): [lower: IDBValidKey[], upper: IDBValidKey[]] {
  const prefix = [scope.model_fingerprint, scope.condition_key, pk];
  return [[...prefix, ''], [...prefix, []]];
}

/** The key of one question of a run: its id and both hashes. */
export function identityKey(q: QuestionIdentity): string {
  return JSON.stringify([q.doc_id, q.doc_hash, q.prompt_hash]);
}

/**
 * A run's manifest key: the audit core's run key (condition.ts runKey) over the manifest's model
 * fingerprint, condition key, probe keys in the manifest's order and the run's ordered question
 * identities — the same key runAudit returns and the CLI prints as run_key. Starting a run with
 * the same key resumes it; the Web Lock is named after it.
 */
export async function manifestKey(manifest: RunManifest, questions: readonly QuestionIdentity[]): Promise<string> {
  const probe_keys: string[] = [];
  for (const spec of manifest.probes) probe_keys.push(await probeKey(spec));
  return runKey({ model_fingerprint: manifest.model.fingerprint, condition_key: manifest.condition_key, probe_keys, questions });
}

/** The manifest key schema v1/v2 (and version-1 run files) used: model, task name + version +
 *  question count, condition key and probe specs; blind to the questions' content. Only legacy
 *  runs are keyed with it (behind LEGACY_KEY_PREFIX). */
export async function legacyManifestKey(manifest: RunManifest): Promise<string> {
  return sha256Hex(canonicalJson({ model: manifest.model.fingerprint, task: manifest.task, condition_key: manifest.condition_key, probes: manifest.probes }));
}

/** A string form of (doc_id, probe) for skip sets within one run. */
export function unitKey(docId: string, probe: ProbeName): string {
  return `${probe}\u0000${docId}`;
}

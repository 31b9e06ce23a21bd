// Question records of a run: what a (re)started run already has, what it can reuse from other
// runs computed under the same keys, and the records in a stable order for export.

import type { QuestionIdentity } from '../audit/condition.ts';
import type { ProbeName, QuestionRecord } from '../audit/types.ts';
import { identityKey, probeRange, type RecordKey, type RunScope } from './keys.ts';
import type { StoredRecord, StoredRun } from './schema.ts';
import type { RunStore } from './store.ts';

export interface ResumePlan {
  /** The run's records after linking, each marked reused (computed by another run) or not. */
  records: { stored: StoredRecord; reused: boolean }[];
  /** How many records were newly linked from other runs in this call. */
  newlyReused: number;
}

/**
 * Links to `runId` every record other runs computed under this run's keys (its model, condition,
 * probes and questions: id, content hash and prompt hash all equal), in one transaction, and
 * returns all of the run's records for the questions asked. A record of another question that
 * shares an id (another file, another prompt) never matches. Everything returned is finished
 * work: the audit skips those units. Records read from a file are reused only with
 * `includeImported`, and only those regraded on import (schema.ts RecordProvenance).
 */
export async function prepareResume(store: RunStore, runId: string, scope: RunScope, questions: readonly QuestionIdentity[], includeImported = false): Promise<ResumePlan> {
  const wanted = new Set(questions.map(identityKey));
  const asked = (key: RecordKey) => wanted.has(identityKey({ doc_id: key[3], doc_hash: key[4], prompt_hash: key[5] }));
  const linked = new Set((await store.keysForRun(runId)).map(keyId));
  const reusable: RecordKey[] = [];
  for (const pk of scope.probeKeys.values()) {
    const [lower, upper] = probeRange(scope, pk);
    for (const { key, imported } of await store.recordsInRange(lower, upper)) {
      if (imported && !(includeImported && imported.regraded)) continue;
      if (asked(key) && !linked.has(keyId(key))) reusable.push(key);
    }
  }
  const newlyReused = reusable.length > 0 ? await store.linkRecords(runId, reusable) : 0;
  const inScope = new Set<string>(scope.probeKeys.values());
  const records = (await store.recordsForRun(runId))
    .filter((s) => inScope.has(s.key[2]) && asked(s.key) && s.key[0] === scope.model_fingerprint && s.key[1] === scope.condition_key)
    .map((stored) => ({ stored, reused: stored.computedBy !== runId }));
  return { records, newlyReused };
}

export function keyId(key: RecordKey): string {
  return JSON.stringify(key);
}

const collator = new Intl.Collator('en', { numeric: true });

/** A run's records ordered by question id (numeric-aware: q2 before q10), then by probe order. */
export function orderRecords(records: QuestionRecord[], probeOrder: ProbeName[]): QuestionRecord[] {
  const rank = new Map(probeOrder.map((p, i) => [p, i]));
  return [...records].sort((a, b) => collator.compare(a.doc_id, b.doc_id) || (rank.get(a.probe) ?? 99) - (rank.get(b.probe) ?? 99));
}

/** A run after deleting an import took `n` of its reused records: its counts drop, and a finished
 *  run becomes interrupted (starting it again computes them here). */
export function withoutImported(run: StoredRun, n: number, file: string): StoredRun {
  const status = run.manifest.status === 'finished' ? 'interrupted' : run.manifest.status;
  return {
    ...run,
    manifest: { ...run.manifest, status },
    counters: {
      ...run.counters,
      recordsDone: Math.max(0, run.counters.recordsDone - n),
      reused: Math.max(0, run.counters.reused - n),
      lastError: `${n} record${n === 1 ? '' : 's'} read from ${file} were removed with that import; start the audit again to compute them here`,
    },
    updatedAt: new Date().toISOString(),
  };
}

/** A file some of a run's records were read from, and how many. */
export interface ImportedSource {
  file: string;
  records: number;
}

/** The files a run's records were read from (schema.ts RecordProvenance), in first-seen order. */
export function importedSources(stored: readonly StoredRecord[]): ImportedSource[] {
  const counts = new Map<string, number>();
  for (const s of stored) if (s.imported) counts.set(s.imported.file, (counts.get(s.imported.file) ?? 0) + 1);
  return [...counts].map(([file, records]) => ({ file, records }));
}

/** The run a new start of an audit resumes among the runs with its key: the latest started. */
export function latestRun(runs: StoredRun[]): StoredRun | undefined {
  return [...runs].sort((a, b) => a.manifest.startedAt.localeCompare(b.manifest.startedAt)).at(-1);
}

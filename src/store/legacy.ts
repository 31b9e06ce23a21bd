// Runs and records written by the previous version (schema v1/v2, run files of version 1): what
// the migration (db.ts) and the import of an old file (import.ts) do to them, in one place.
//
// A legacy record keeps every value it was written with. The fields this version added are filled
// only where they follow from the record itself:
// - stop_reason: null on deployment records; 'budget' when the probe made its whole budget of
//   attempts; otherwise null (unknown: the previous MCTS also stopped at a simulation cap, which
//   is neither "budget" nor "space exhausted").
// - selector picks' `blind`: majority and max-logprob are answer-blind exactly when the attempts
//   were not chosen with the gold answer (!selection_saw_gold); fixed-route was chosen on
//   calibration questions, so it is blind.
// - a non-finite meanLogprob (NaN, written by the previous lm-evaluation-harness import) is null,
//   this version's "unknown".
// - the decoy fields are null: its answers were extracted by grader version 1, whose canonical
//   forms this grader's decoys need not match (audit/decoy.ts decoyControl).
// A legacy run is re-keyed from its records' own fields and marked `legacy`; its manifest key is
// LEGACY_KEY_PREFIX + the key its version computed, so no new run key ever equals it.

import { NO_DECOY } from '../audit/decoy.ts';
import { recordOutcome } from '../audit/record.ts';
import type { Attempt, QuestionRecord, SelectorPick } from '../audit/types.ts';
import { LEGACY_KEY_PREFIX, type StoredRun, type StoredRunV2 } from './schema.ts';

/** The record rule's stop reason, where a legacy record can know it: a short probe record is
 *  unknown (null), not 'space-exhausted'. */
function legacyStop(r: QuestionRecord, attempts: Attempt[]): QuestionRecord['stop_reason'] {
  const stop = recordOutcome(r.probe_spec, attempts, r.budget).stop_reason;
  return stop === 'space-exhausted' || r.budget === 0 ? null : stop;
}

export function upgradeLegacyRecord(r: QuestionRecord): QuestionRecord {
  const attempts: Attempt[] = r.attempts.map((a) => ({ ...a, meanLogprob: typeof a.meanLogprob === 'number' && Number.isFinite(a.meanLogprob) ? a.meanLogprob : null }));
  const out: QuestionRecord = {
    ...r,
    attempts,
    stop_reason: legacyStop(r, attempts),
    ...NO_DECOY,
  };
  if (r.selectors) {
    const selectors: Record<string, SelectorPick> = {};
    for (const [name, pick] of Object.entries(r.selectors)) selectors[name] = { ...pick, blind: name === 'fixed-route' ? true : !r.selection_saw_gold };
    out.selectors = selectors;
  }
  return out;
}

/** A run of schema v1/v2 as a legacy run (its manifest key was the v1/v2 one). */
export function legacyRun(run: StoredRunV2 | StoredRun): StoredRun {
  const key = run.manifestKey.startsWith(LEGACY_KEY_PREFIX) ? run.manifestKey : LEGACY_KEY_PREFIX + run.manifestKey;
  return { ...run, manifestKey: key, legacy: true };
}

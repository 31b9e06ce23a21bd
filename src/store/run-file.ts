// The schema of a run export: checks for every audit type a file carries (types.ts), so an
// imported file becomes typed data or is refused with its first problem named.

import type { QuestionIdentity } from '../audit/condition.ts';
import { checkCondition, checkConditionV1 } from '../audit/condition-schema.ts';
import { checkProbeSpec, checkProbeSpecV1, PROBE_NAMES } from '../audit/probes/registry.ts';
import { MAX_BUDGET } from '../audit/probes/route-draws.ts';
import { SELECTOR_NAMES } from '../audit/selectors.ts';
import type { Attempt, Doc, QuestionRecord, RunManifest, SelectorPick } from '../audit/types.ts';
import { decoyControl, decoyFields, NO_DECOY, type DecoyFields } from '../audit/decoy.ts';
import type { Definition } from '../audit/definitions.ts';
import { CHAT_TEMPLATE_FILES, ENGINE_DTYPES } from '../engine/types.ts';
import { arr, bool, CheckError, describe, dict, nullable, num, obj, oneOf, opt, str, type Check } from '../util/check.ts';
import { clip } from '../util/clip.ts';

export const RUN_FILE_FORMAT = 'reachlab-run';
/**
 * Version 2 (this version): content-addressed. The file carries the run key and the run's ordered
 * question identities (what the key is made of), records with stop_reason, selector picks with
 * `blind`, the new MCTS fields, attempts whose route may be null (unknown), manifests whose
 * condition and engine may be null (imported, condition unknown) and that may say where they
 * were imported from and which question seed chose the questions. Records written since the
 * decoy-answer control carry its fields (decoy, decoy_first_success, realized_decoy,
 * reachable_decoy); earlier version-2 files lack them and get them on reading (recordsOf).
 *
 * Files written since definitions were exported carry `definitions` (audit/definitions.ts, the
 * definitions of the numbers a run shows); import ignores them, and files without them import alike.
 *
 * Version 1 (the previous version): no run key or question list; records without stop_reason,
 * picks without `blind`, MCTS specs with `simulations` and `randomChildProb`, grader version 1.
 * Its keys ignored question content, so such a file is accepted as a legacy run (import.ts):
 * viewable, exportable (again as version 1) and deletable, never resumed nor reused. A legacy run
 * is also exported as version 1.
 */
export const RUN_FILE_VERSION = 2;
export const LEGACY_RUN_FILE_VERSION = 1;

const int = num({ int: true });
const nat = num({ int: true, min: 0 });
const text = str();
const id = str({ nonEmpty: true });
const dtype = oneOf(...ENGINE_DTYPES);

const probeName = oneOf(...PROBE_NAMES);
const status = oneOf('queued', 'running', 'paused', 'interrupted', 'cancelled', 'finished', 'failed');
const model = obj({ fingerprint: id, name: text, source: text, revision: opt(text), commit: opt(text), chatTemplate: opt(oneOf(...CHAT_TEMPLATE_FILES)), numLayers: opt(num({ int: true, min: 1 })) });

const checkManifest: Check<RunManifest> = obj({
  id,
  appVersion: text,
  model,
  task: obj({ id, version: int, questions: nat, question_seed: opt(int) }),
  condition: nullable(checkCondition),
  condition_key: id,
  probes: arr(checkProbeSpec),
  engine: nullable(obj({ ep: oneOf('webgpu', 'wasm', 'cpu', 'cuda'), dtype, adapter: opt(text), runtime: opt(obj({ name: oneOf('onnxruntime-web', 'onnxruntime-node'), version: text })) })),
  imported: opt(obj({ format: oneOf('reachlab-run', 'lm-eval-samples'), file: text })),
  startedAt: text,
  finishedAt: opt(text),
  status,
});

const checkManifestV1: Check<RunManifest> = obj({
  id,
  appVersion: text,
  model,
  task: obj({ id, version: int, questions: nat }),
  condition: checkConditionV1,
  condition_key: id,
  probes: arr(checkProbeSpecV1),
  engine: obj({ ep: oneOf('webgpu', 'wasm'), dtype }),
  // not written by the previous version; a legacy run exported here keeps where it came from
  imported: opt(obj({ format: oneOf('reachlab-run', 'lm-eval-samples'), file: text })),
  startedAt: text,
  finishedAt: opt(text),
  status,
});

// A record's doc as a file gives it: its dataset row (raw) is covered by no hash (doc_hash is of
// id, text, target and choices), so it is dropped rather than stored unverified.
const checkDoc: Check<Doc> = obj({
  id,
  text,
  target: text,
  choices: opt(arr(text)),
  rationale: opt(text),
});

/** JSON writes NaN and ±Infinity as null: null is "no log-prob" (an empty response, an import). */
const logprob = nullable(num());

const checkAttempt: Check<Attempt> = obj({
  index: nat,
  route: nullable(arr(nat)),
  depth: opt(nat),
  silence: arr(nat),
  sample: opt(nat),
  response: text,
  extracted: text,
  correct: bool,
  meanLogprob: logprob,
});

const checkAttemptV1: Check<Attempt> = obj({
  index: nat,
  route: arr(nat),
  silence: arr(nat),
  sample: opt(nat),
  response: text,
  extracted: text,
  correct: bool,
  meanLogprob: logprob,
});

const checkPick: Check<SelectorPick> = obj({ extracted: text, correct: bool, blind: bool, attempt: nullable(nat), route: opt(arr(nat)), response: opt(text) });
const checkPickV1 = obj({ extracted: text, correct: bool, attempt: nullable(nat), route: opt(arr(nat)) }) as unknown as Check<SelectorPick>;

const recordFields = {
  doc_id: id,
  doc: checkDoc,
  target: text,
  arguments: obj({ prompt: text }),
  resps: arr(text),
  filtered_resps: arr(text),
  probe: probeName,
  probe_key: id,
  condition_key: id,
  model_fingerprint: id,
  task_id: id,
  task_version: int,
  budget: num({ int: true, min: 0, max: MAX_BUDGET }),
  first_success: nullable(nat),
  realized: nullable(bool),
  reachable: nullable(bool),
  invalid: nat,
  selection_saw_gold: bool,
  route_draw: opt(oneOf('per-question', 'shared')),
  depth_profile: opt(arr(nat)),
};

/** A record as a version-2 file holds it: files written before the decoy control lack its fields. */
export type FileRecord = Omit<QuestionRecord, keyof DecoyFields> & Partial<DecoyFields>;
const DECOY_KEYS = Object.keys(NO_DECOY) as (keyof DecoyFields)[];

const checkRecord: Check<FileRecord> = obj({
  ...recordFields,
  doc_hash: id,
  prompt_hash: id,
  probe_spec: checkProbeSpec,
  attempts: arr(checkAttempt),
  stop_reason: nullable(oneOf('budget', 'space-exhausted')),
  decoy: opt(nullable(text)),
  decoy_first_success: opt(nullable(nat)),
  realized_decoy: opt(nullable(bool)),
  reachable_decoy: opt(nullable(bool)),
  selectors: opt(dict(checkPick, SELECTOR_NAMES)),
});

/** A run file's records, each with its decoy fields: as the file states them, or (a file written
 *  before the decoy control) computed from the record's own question and attempts under the run's
 *  condition (audit/decoy.ts), null where that condition is unknown. */
export function recordsOf(file: RunFile): QuestionRecord[] {
  const control = decoyControl(file.manifest.condition);
  return file.records.map((r) => (DECOY_KEYS.every((k) => r[k] !== undefined) ? (r as QuestionRecord) : { ...r, ...decoyFields(r, control) }));
}

/** A version-1 record; import.ts fills what this version added (legacy.ts upgradeLegacyRecord). */
const checkRecordV1 = obj({
  ...recordFields,
  doc_hash: text,
  prompt_hash: text,
  probe_spec: checkProbeSpecV1,
  attempts: arr(checkAttemptV1),
  selectors: opt(dict(checkPickV1, SELECTOR_NAMES)),
}) as unknown as Check<QuestionRecord>;

const checkDefinition: Check<Definition> = obj({ term: text, definition: text });

const identityFields = obj({ doc_id: id, doc_hash: id, prompt_hash: id });
/** A question's identity, and nothing else: a key of its own is refused by name, never stored. */
const checkIdentity: Check<QuestionIdentity> = (v, p) => {
  const out = identityFields(v, p);
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (!Object.hasOwn(out, k)) throw new CheckError(`${p}.${clip(k, 40)}`, 'no such field (a question is doc_id, doc_hash and prompt_hash)', describe(x));
  }
  return out;
};

/** What wrote a run file: the app's version and the commit it was built from. */
export interface Producer {
  app: string;
  commit: string;
}

export interface RunFile {
  format: typeof RUN_FILE_FORMAT;
  version: typeof RUN_FILE_VERSION;
  exportedAt: string;
  /** Files written since producers were recorded say what wrote them. */
  producer?: Producer;
  /** Files written since definitions were exported define the numbers the run shows. */
  definitions?: readonly Definition[];
  /** The run's content address (condition.ts runKey), as the CLI prints it. */
  run_key: string;
  /** The run's questions in order: what run_key is made of. */
  questions: QuestionIdentity[];
  manifest: RunManifest;
  records: FileRecord[];
}

/** A run file of the previous version (also how a legacy run is exported). */
export interface LegacyRunFile {
  format: typeof RUN_FILE_FORMAT;
  version: typeof LEGACY_RUN_FILE_VERSION;
  exportedAt: string;
  definitions?: readonly Definition[];
  manifest: RunManifest;
  records: QuestionRecord[];
}

export const checkRunFile: Check<RunFile> = obj({
  format: oneOf(RUN_FILE_FORMAT),
  version: oneOf(RUN_FILE_VERSION),
  exportedAt: text,
  producer: opt(obj({ app: text, commit: text })),
  definitions: opt(arr(checkDefinition)),
  run_key: id,
  questions: arr(checkIdentity),
  manifest: checkManifest,
  records: arr(checkRecord),
});

const checkLegacyRunFile: Check<LegacyRunFile> = obj({
  format: oneOf(RUN_FILE_FORMAT),
  version: oneOf(LEGACY_RUN_FILE_VERSION),
  exportedAt: text,
  definitions: opt(arr(checkDefinition)),
  manifest: checkManifestV1,
  records: arr(checkRecordV1),
});

/** Either version, by its `version` field (a file of neither is refused naming both). */
export const checkAnyRunFile: Check<RunFile | LegacyRunFile> = (v, p) => {
  const version = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as { version?: unknown }).version : undefined;
  if (version === LEGACY_RUN_FILE_VERSION) return checkLegacyRunFile(v, p);
  if (version === RUN_FILE_VERSION) return checkRunFile(v, p);
  const fmt = obj({ format: oneOf(RUN_FILE_FORMAT) });
  fmt(v, p);
  throw new CheckError(
    p ? `${p}.version` : 'version',
    `one of ${LEGACY_RUN_FILE_VERSION} (an earlier version's run, imported as legacy), ${RUN_FILE_VERSION}`,
    version === undefined ? 'nothing' : describe(version),
  );
};

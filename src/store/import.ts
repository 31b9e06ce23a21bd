// Runs into the store from files: a ReachLab JSON export (checked against run-file.ts), or an
// lm-evaluation-harness samples_*.jsonl file as the realized (deployment) records of a run.
// A file is checked whole before anything is written, then written in one transaction; a file
// that does not check is refused with its first problem named. A run keeps only the provenance
// its file carries: a harness file states no condition, engine or route, so those are null and
// its condition key is "unknown:" + the file's SHA-256 (never a measured condition key), and its
// records have no decoy answer. A version-2 file written before the decoy control gets its
// records' decoy fields from its own condition (run-file.ts recordsOf). A
// ReachLab file of the previous version (run-file.ts version 1) becomes a legacy run. A run
// already in the library (same id, or same run key) is refused saying so. Every record of a
// current file whose condition this version can grade is recomputed from its attempts and checked
// (verify.ts); a run the file calls finished but that lacks records is stored as interrupted.

import { conditionKey, type QuestionIdentity } from '../audit/condition.ts';
import { gradedNow } from '../audit/formats/registry.ts';
import { grade } from '../audit/graders.ts';
import { DEPLOYMENT } from '../audit/probes/registry.ts';
import { makeRecord } from '../audit/record.ts';
import type { AnswerFormat, ProbeSpec, QuestionRecord, RunManifest } from '../audit/types.ts';
import { sha256Hex } from '../util/hash.ts';
import { CheckError, describe as describeValue, json, type Check } from '../util/check.ts';
import { StoreError, isStoreError } from './errors.ts';
import { legacyManifestKey, manifestKey, probeKey, recordKeyIn, runScope, type RunScope } from './keys.ts';
import { upgradeLegacyRecord } from './legacy.ts';
import { keyId } from './records.ts';
import { canRegrade, unverifiablePicksDropped, verifyRecords } from './verify.ts';
import { checkAnyRunFile, LEGACY_RUN_FILE_VERSION, recordsOf, type LegacyRunFile, type RunFile } from './run-file.ts';
import { LEGACY_KEY_PREFIX, type RunCounters, type StoredRun } from './schema.ts';
import type { RecordItem, RunStore } from './store.ts';
import { JsonInputError, parseJsonInput } from '../util/json-input.ts';
import { clip } from '../util/clip.ts';
import { ImportTracker, type ImportControl } from './import-progress.ts';

export interface ImportResult {
  runId: string;
  records: number;
  /** Records new to this profile / already stored under the same key (linked). */
  stored: number;
  linked: number;
  /** The file was written by an earlier version: the run is kept as a legacy run. */
  legacy: boolean;
}

/** Condition keys of runs whose file states no condition start with this. */
export const UNKNOWN_CONDITION_PREFIX = 'unknown:';

const invalid = (where: string, message: string) => new StoreError('invalid-import', `${where}: ${message}`);

/** `text` parsed as JSON, or an invalid-import error that names `where` and what is wrong. */
function parseOrName(text: string, where: string): unknown {
  try {
    return parseJsonInput(text);
  } catch (e) {
    if (e instanceof JsonInputError) throw invalid(where, e.message);
    throw invalid(where, `not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** Imports a JSON export. The run keeps its id; a run already in the library is refused. */
export function importRunJson(store: RunStore, text: string, fileName = 'the file', control: ImportControl = {}): Promise<ImportResult> {
  return importRunText(store, text, fileName, new ImportTracker(fileName, text.length, control));
}

/** importRunJson with the caller's tracker (import-file.ts has counted the bytes it read). */
export async function importRunText(store: RunStore, text: string, fileName: string, t: ImportTracker): Promise<ImportResult> {
  t.check();
  const file = check(checkAnyRunFile, parseOrName(text, fileName), fileName);
  return file.version === LEGACY_RUN_FILE_VERSION ? importLegacyFile(store, file, fileName, t) : importCurrentFile(store, file, fileName, t);
}

async function importCurrentFile(store: RunStore, file: RunFile, fileName: string, t: ImportTracker): Promise<ImportResult> {
  const { manifest, items, regraded } = await verifyRunFile(file, fileName, (n) => t.verified(n));
  const run = incompleteAsInterrupted(storedRun(manifest, file.run_key, items));
  return write(store, run, withProvenance(items, fileName, run.id, regraded), file.questions, fileName, t);
}

/** A current run file as the library would hold it, after every check an import makes. */
export interface VerifiedRunFile {
  manifest: RunManifest;
  /** Its records with their keys: each belongs to the run, none repeats. */
  items: RecordItem[];
  /** Every record was recomputed from its attempts (verify.ts); false when its condition is
   *  unknown or graded by another grader version. */
  regraded: boolean;
}

/**
 * Checks a current run file whole, as importing it does (and the study CLI does before reusing a
 * stored run file): the condition key is its condition's, the question list is the manifest's
 * length and makes the run key, every record belongs to the run (model, condition, probe spec,
 * question content and prompt) and appears once, and each regradable record equals what this
 * version computes from its attempts. Throws StoreError 'invalid-import' naming the first problem.
 */
export async function verifyRunFile(file: RunFile, fileName: string, onVerified?: (records: number) => void): Promise<VerifiedRunFile> {
  const manifest = imported(file.manifest, fileName);
  if (manifest.condition) {
    if (manifest.condition_key !== (await conditionKey(manifest.condition))) {
      throw invalid(fileName, "manifest.condition_key: not the key of the manifest's condition (the file was altered, or written with fields this version does not know)");
    }
  } else if (!manifest.condition_key.startsWith(UNKNOWN_CONDITION_PREFIX)) {
    throw invalid(fileName, `manifest.condition_key: a run whose condition is unknown (null) needs a key starting with "${UNKNOWN_CONDITION_PREFIX}", got ${describeValue(manifest.condition_key)}`);
  }
  if (file.questions.length !== manifest.task.questions) {
    throw invalid(fileName, `questions: expected ${manifest.task.questions} (manifest.task.questions), got ${file.questions.length}`);
  }
  const scope = await scopeOf(manifest, file.questions, fileName);
  if (file.run_key !== (await manifestKey(manifest, file.questions))) {
    throw invalid(fileName, "run_key: not the key of the run's model, condition, probes and questions (the file was altered)");
  }
  const regraded = canRegrade(manifest);
  const records = regraded ? unverifiablePicksDropped(recordsOf(file)) : recordsOf(file);
  const items = itemsOf(scope, manifest, records, fileName, (i) => `records[${i}]`);
  if (regraded) await verifyRecords(manifest, records, fileName, (i) => `records[${i}]`, onVerified);
  return { manifest, items, regraded };
}

/** A file of the previous version: a legacy run (schema.ts), its records completed where the
 *  record itself says how (legacy.ts), re-keyed from their own fields. */
async function importLegacyFile(store: RunStore, file: LegacyRunFile, fileName: string, t: ImportTracker): Promise<ImportResult> {
  const manifest = imported(file.manifest, fileName);
  const condition = manifest.condition!;
  // Its records are never reused because their condition key is a grader-v1 key: hold it to that.
  if (gradedNow(condition) || manifest.condition_key !== (await conditionKey(condition))) {
    throw invalid(fileName, `manifest.condition_key: a version ${LEGACY_RUN_FILE_VERSION} file must carry the key of its own grader-version-1 condition; this one does not (the file was altered)`);
  }
  const scope = await scopeOf(manifest, null, fileName);
  const items = itemsOf(scope, manifest, file.records.map(upgradeLegacyRecord), fileName, (i) => `records[${i}]`);
  const run: StoredRun = { ...storedRun(manifest, LEGACY_KEY_PREFIX + (await legacyManifestKey(file.manifest)), items), legacy: true };
  return write(store, run, withProvenance(items, fileName, run.id, false), undefined, fileName, t);
}

/** The manifest as stored here: a run left running elsewhere is interrupted; its provenance says
 *  it was read from a file (an earlier import's provenance is kept). */
function imported(m: RunManifest, fileName: string): RunManifest {
  const status = m.status === 'running' || m.status === 'queued' ? 'interrupted' : m.status;
  return { ...m, status, imported: m.imported ?? { format: 'reachlab-run', file: fileName } };
}

export interface LmEvalImportOptions {
  /** Id of the run to create. */
  runId: string;
  appVersion: string;
  model: RunManifest['model'];
  task: { id: string; version: number };
  /** Metric giving correctness (default: the first of exact_match, acc, acc_norm, pass@1, em). */
  metric?: string;
  /** Regrade each sample's first response against its target with this answer format instead of
   *  reading a metric (a math task's samples: lmEvalFormatOf). */
  answerFormat?: AnswerFormat;
  fileName?: string;
}

const DEFAULT_METRICS = ['exact_match', 'acc', 'acc_norm', 'pass@1', 'em'];

/**
 * Imports lm-evaluation-harness samples (one JSON object per line) as deployment records. The
 * file states no condition, engine, route or log-probs: the manifest's condition and engine are
 * null, its condition key is "unknown:" + SHA-256 of the file's text, attempts have route and
 * meanLogprob null, records stop_reason null; doc_hash and prompt_hash are the file's.
 */
export async function importLmEvalSamples(store: RunStore, text: string, o: LmEvalImportOptions, control: ImportControl = {}): Promise<ImportResult> {
  const t = new ImportTracker(o.fileName ?? 'the samples file', text.length, control);
  const samples = new LmEvalSamples(o, t);
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) samples.line(lines[n], n + 1);
  return samples.importInto(store, await sha256Hex(text));
}

/** An lm-eval samples file read line by line (import-file.ts streams it), each line checked as it
 *  comes; then the run is made and written whole. */
export class LmEvalSamples {
  private readonly fileName: string;
  private readonly spec: ProbeSpec = { probe: DEPLOYMENT };
  private readonly records: QuestionRecord[] = [];
  private readonly lineOf = new Map<string, number>();

  constructor(
    private readonly o: LmEvalImportOptions,
    private readonly t: ImportTracker,
  ) {
    this.fileName = o.fileName ?? 'the samples file';
  }

  /** Line `n` (from 1) of the file. */
  line(text: string, n: number): void {
    const line = text.trim();
    if (line === '') return;
    const { fileName, o, spec } = this;
    const where = `${fileName} line ${n}`;
    const s = check(lmEvalSample, parseOrName(line, where), where);
    const docId = String(s.doc_id);
    const seen = this.lineOf.get(docId);
    if (seen !== undefined) throw invalid(where, `doc_id ${clip(docId)} repeats line ${seen}`);
    this.lineOf.set(docId, n);
    const response = s.resps[0] ?? '';
    const { extracted, correct } = o.answerFormat ? regraded(o.answerFormat, s.target, response, where) : fileGrade(s, o.metric, where);
    const doc = s.doc as Record<string, unknown>;
    const question = ['question', 'query', 'problem', 'text', 'input'].map((k) => doc[k]).find((v) => typeof v === 'string') as string | undefined;
    const record = makeRecord({
      question: { doc: { id: docId, text: question ?? s.prompt, target: s.target, raw: doc }, prompt: s.prompt, doc_hash: s.doc_hash, prompt_hash: s.prompt_hash },
      spec,
      probe_key: '', // set with the condition key once the whole file is read (importInto)
      condition_key: '',
      model_fingerprint: o.model.fingerprint,
      task_id: o.task.id,
      task_version: o.task.version,
      attempts: [{ index: 0, route: null, silence: [], response, extracted, correct, meanLogprob: null }],
      // the file states no condition: neither the answer format nor the question seed (no decoy)
      condition: null,
    });
    // the file's own responses (lm-eval may keep several per question)
    this.records.push({ ...record, resps: s.resps, filtered_resps: s.filtered_resps });
    this.t.verified(this.records.length);
  }

  /** Writes the run of the lines read; `textHash` is the SHA-256 of the file's whole text. */
  async importInto(store: RunStore, textHash: string): Promise<ImportResult> {
    const { fileName, o, spec, records } = this;
    if (records.length === 0) throw invalid(fileName, 'no samples (expected one JSON object per line)');
    const condition_key = UNKNOWN_CONDITION_PREFIX + textHash;
    const probe_key = await probeKey(spec);
    for (const r of records) Object.assign(r, { condition_key, probe_key });
    const now = new Date().toISOString();
    const manifest: RunManifest = {
      id: o.runId,
      appVersion: o.appVersion,
      model: o.model,
      task: { ...o.task, questions: records.length },
      condition: null,
      condition_key,
      probes: [spec],
      engine: null,
      imported: { format: 'lm-eval-samples', file: fileName },
      startedAt: now,
      finishedAt: now,
      status: 'finished',
    };
    const questions: QuestionIdentity[] = records.map((r) => ({ doc_id: r.doc_id, doc_hash: r.doc_hash, prompt_hash: r.prompt_hash }));
    const scope = await scopeOf(manifest, questions, fileName);
    const items = itemsOf(scope, manifest, records, fileName, (i) => `line ${this.lineOf.get(records[i].doc_id)}`);
    return write(store, storedRun(manifest, await manifestKey(manifest, questions), items), withProvenance(items, fileName, o.runId, false), questions, fileName, this.t);
  }
}

/** A sample's grade as its file states it: its filtered response and the metric's verdict. */
function fileGrade(s: LmEvalSample, wanted: string | undefined, where: string): { extracted: string; correct: boolean } {
  const metric = wanted ?? DEFAULT_METRICS.find((m) => m in s.metrics);
  if (metric === undefined || !(metric in s.metrics)) {
    throw invalid(where, `expected a metric (${wanted ?? DEFAULT_METRICS.join(', ')}) with a number or true/false, found ${clip(Object.keys(s.metrics).join(', ')) || 'none'}`);
  }
  return { extracted: s.filtered_resps[0] ?? '', correct: s.metrics[metric] === true || s.metrics[metric] === 1 };
}

/** A sample regraded here: its first response against its target, with the answer format's rules. */
function regraded(format: AnswerFormat, target: string, response: string, where: string): { extracted: string; correct: boolean } {
  try {
    return grade(format, target, response);
  } catch (e) {
    throw invalid(where, `target: ${(e as Error).message}`);
  }
}

/** The answer format an lm-eval task's samples are regraded with, by the task's name: its math
 *  tasks (minerva_math*, hendrycks_math*, leaderboard_math*) under `math`; null: the file's metric. */
export function lmEvalFormatOf(task: string): AnswerFormat | null {
  return /^(?:minerva_math|hendrycks_math|leaderboard_math)/.test(task) ? 'math' : null;
}

interface LmEvalSample {
  doc_id: number | string;
  doc: unknown;
  target: string;
  prompt: string;
  resps: string[];
  filtered_resps: string[];
  doc_hash: string;
  prompt_hash: string;
  metrics: Record<string, number | boolean>;
}

/** A harness sample: doc_id, doc, target, arguments, resps, filtered_resps, hashes, metrics. */
const lmEvalSample: Check<LmEvalSample> = (v, p) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new CheckError(p, 'a JSON object', describeValue(v));
  const o = v as Record<string, unknown>;
  const at = (k: string) => (p ? `${p}.${k}` : k);
  const need = (k: string) => {
    if (!(k in o)) throw new CheckError(at(k), 'a value (the field is missing)', 'nothing');
    return o[k];
  };
  const docId = need('doc_id');
  if (!(typeof docId === 'string' && docId.length > 0) && !(typeof docId === 'number' && Number.isInteger(docId) && docId >= 0)) {
    throw new CheckError(at('doc_id'), 'a non-negative integer or a non-empty string', describeValue(docId));
  }
  const doc = json(need('doc'), at('doc'));
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new CheckError(at('doc'), 'an object', describeValue(doc));
  const target = need('target');
  const targetText = typeof target === 'string' ? target : typeof target === 'number' ? String(target) : JSON.stringify(json(target, at('target')));
  const resps = need('resps');
  if (!Array.isArray(resps)) throw new CheckError(at('resps'), 'an array', describeValue(resps));
  const filtered = need('filtered_resps');
  if (!Array.isArray(filtered)) throw new CheckError(at('filtered_resps'), 'an array', describeValue(filtered));
  const hash = (k: string) => {
    const h = need(k);
    if (typeof h !== 'string' || h === '') throw new CheckError(at(k), 'a non-empty string', describeValue(h));
    return h;
  };
  const metrics: Record<string, number | boolean> = Object.create(null);
  for (const [k, x] of Object.entries(o)) {
    if (!KNOWN_FIELDS.has(k) && (typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)))) metrics[k] = x;
  }
  return {
    doc_id: docId as number | string,
    doc,
    target: targetText,
    prompt: firstString(json(need('arguments'), at('arguments'))) ?? '',
    // generate_until: [["text"]]; loglikelihood: [[["-1.2", "False"]], …] → one string per request
    resps: resps.map((r, i) => flatText(json(r, at(`resps[${i}]`)))),
    filtered_resps: filtered.map((r, i) => flatText(json(r, at(`filtered_resps[${i}]`)))),
    doc_hash: hash('doc_hash'),
    prompt_hash: hash('prompt_hash'),
    metrics,
  };
};

const KNOWN_FIELDS = new Set(['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'doc_hash', 'prompt_hash', 'target_hash', 'filter', 'metrics']);

/** The first string in a harness `arguments` value: {gen_args_0: {arg_0: prompt}} or [[prompt, …]]. */
function firstString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    for (const x of v) {
      const s = firstString(x);
      if (s !== undefined) return s;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v).sort()) {
      const s = firstString((v as Record<string, unknown>)[k]);
      if (s !== undefined) return s;
    }
  }
  return undefined;
}

function flatText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length === 1) return flatText(v[0]);
  return JSON.stringify(v);
}

function check<T>(c: Check<T>, v: unknown, where: string): T {
  try {
    return c(v, '');
  } catch (e) {
    if (e instanceof CheckError) throw invalid(where, e.message);
    throw e;
  }
}

async function scopeOf(manifest: RunManifest, questions: readonly QuestionIdentity[] | null, where: string): Promise<RunScope> {
  try {
    return await runScope(manifest, questions);
  } catch (e) {
    if (!isStoreError(e)) throw e;
    throw invalid(where, e.message);
  }
}

/** Record keys for a run's records: each belongs to the run, none repeats. */
function itemsOf(scope: RunScope, manifest: RunManifest, records: QuestionRecord[], where: string, label: (i: number) => string): RecordItem[] {
  const seen = new Map<string, number>();
  const docs = new Set<string>();
  const items: RecordItem[] = [];
  for (const [i, record] of records.entries()) {
    let key;
    try {
      key = recordKeyIn(scope, record);
    } catch (e) {
      if (!isStoreError(e)) throw e;
      throw invalid(where, `${label(i)}: ${e.message}`);
    }
    const k = keyId(key);
    const j = seen.get(k);
    if (j !== undefined) throw invalid(where, `${label(i)}: the same question and probe as ${label(j)}`);
    seen.set(k, i);
    docs.add(record.doc_id);
    items.push({ key, record });
  }
  if (docs.size > manifest.task.questions) {
    throw invalid(where, `manifest.task.questions: expected at least ${docs.size} (the records cover that many questions), got ${manifest.task.questions}`);
  }
  return items;
}

function storedRun(manifest: RunManifest, key: string, items: RecordItem[]): StoredRun {
  const counters: RunCounters = {
    recordsTotal: manifest.task.questions * manifest.probes.length,
    recordsDone: items.length,
    reused: 0,
    attemptsComputed: items.reduce((n, it) => n + it.record.attempts.length, 0),
    computeMs: 0,
    interruptions: 0,
  };
  return { id: manifest.id, manifest, manifestKey: key, counters, updatedAt: new Date().toISOString() };
}

/** Records as read from `file` into run `runId`; `regraded` when verify.ts checked them. */
function withProvenance(items: RecordItem[], file: string, runId: string, regraded: boolean): RecordItem[] {
  const at = new Date().toISOString();
  return items.map((it) => ({ ...it, imported: { file, runId, at, regraded } }));
}

/** A run its file calls finished but that lacks some of the records its key implies is stored as
 *  interrupted, so starting it again computes the rest. (Legacy runs are never resumed.) */
function incompleteAsInterrupted(run: StoredRun): StoredRun {
  const { recordsDone, recordsTotal } = run.counters;
  if (run.manifest.status !== 'finished' || recordsDone >= recordsTotal) return run;
  return {
    ...run,
    manifest: { ...run.manifest, status: 'interrupted' },
    counters: { ...run.counters, lastError: `the imported file holds ${recordsDone} of the ${recordsTotal} records this run asks for` },
  };
}

/** Writes the run unless the library has it already (same id or same run key): that is said
 *  plainly, not as an invalid file. An imported run of the same run key that holds fewer records
 *  than the file (a deletion took some) takes the file's records back instead. */
async function write(store: RunStore, run: StoredRun, items: RecordItem[], questions: QuestionIdentity[] | undefined, where: string, t: ImportTracker): Promise<ImportResult> {
  t.check();
  const again = 'delete it there first to import this file again';
  const byId = await store.getRun(run.id);
  const same = byId ?? (await store.runsByManifestKey(run.manifestKey))[0];
  if (same && same.manifestKey === run.manifestKey && same.manifest.imported && !same.legacy && same.counters.recordsDone < items.length) {
    return refill(store, same, run, items, questions, t);
  }
  if (byId) {
    throw new StoreError('duplicate', `${where}: this run is already in your library (run ${run.id}); ${again}`);
  }
  if (same) {
    throw new StoreError('duplicate', `${where}: this run is already in your library as run ${same.id} (same model, condition, probes and questions); ${again}`);
  }
  t.storing(items.length);
  const { stored, linked } = await store.importRun(run, items, questions, { onStored: (n) => t.stored(n), signal: t.signal });
  return { runId: run.id, records: items.length, stored, linked, legacy: run.legacy === true };
}

/** The file's records back into the imported run `held` of the same run key, which lacks some. */
async function refill(store: RunStore, held: StoredRun, run: StoredRun, items: RecordItem[], questions: QuestionIdentity[] | undefined, t: ImportTracker): Promise<ImportResult> {
  const have = new Set((await store.keysForRun(held.id)).map(keyId));
  const done = have.size + items.filter((it) => !have.has(keyId(it.key))).length;
  const { lastError: _e, ...counters } = held.counters;
  const back = incompleteAsInterrupted({
    ...held,
    manifest: { ...held.manifest, status: run.manifest.status },
    counters: { ...counters, recordsDone: done },
    updatedAt: new Date().toISOString(),
  });
  const mine = items.map((it) => (it.imported ? { ...it, imported: { ...it.imported, runId: held.id } } : it));
  t.storing(mine.length);
  const { stored, linked } = await store.importRun(back, mine, questions, { onStored: (n) => t.stored(n), signal: t.signal });
  return { runId: held.id, records: items.length, stored, linked, legacy: false };
}

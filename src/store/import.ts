// Runs into the store from files: a ReachLab JSON export (checked against run-file.ts), or an
// lm-evaluation-harness samples_*.jsonl file as the realized (deployment) records of a run.
// A file is checked whole before anything is written, then written in one transaction; a file
// that does not check is refused with its first problem named.

import { conditionKey } from '../audit/condition.ts';
import type { Condition, ProbeSpec, QuestionRecord, RunManifest } from '../audit/types.ts';
import { CheckError, describe as describeValue, json, type Check } from './check.ts';
import { StoreError, isStoreError } from './errors.ts';
import { manifestKey, probeKey, recordKeyIn, runScope } from './keys.ts';
import { keyId } from './records.ts';
import { checkCondition, checkRunFile } from './run-file.ts';
import type { RunCounters, StoredRun } from './schema.ts';
import type { RecordItem, RunStore } from './store.ts';

export interface ImportResult {
  runId: string;
  records: number;
  /** Records new to this profile / already stored under the same key (linked). */
  stored: number;
  linked: number;
}

const invalid = (where: string, message: string) => new StoreError('invalid-import', `${where}: ${message}`);

/** Imports a JSON export. The run keeps its id; a run of that id already stored is refused. */
export async function importRunJson(store: RunStore, text: string, fileName = 'the file'): Promise<ImportResult> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalid(fileName, `not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const file = check(checkRunFile, parsed, fileName);
  const manifest = file.manifest;
  if (manifest.status === 'running' || manifest.status === 'queued') manifest.status = 'interrupted';
  const items = await itemsOf(manifest, file.records, fileName, (i) => `records[${i}]`);
  return write(store, manifest, items, fileName);
}

export interface LmEvalImportOptions {
  /** Id of the run to create. */
  runId: string;
  appVersion: string;
  model: RunManifest['model'];
  task: { id: string; version: number };
  /** The condition the harness ran under, as well as it is known (its key joins the records). */
  condition: Condition;
  engine?: RunManifest['engine'];
  /** Metric giving correctness (default: the first of exact_match, acc, acc_norm, pass@1, em). */
  metric?: string;
  /** Layers of the model: the deployment route 0..L-1 is written on each attempt ([] if unknown). */
  numLayers?: number;
  fileName?: string;
}

const DEFAULT_METRICS = ['exact_match', 'acc', 'acc_norm', 'pass@1', 'em'];

/** Imports lm-evaluation-harness samples (one JSON object per line) as deployment records. */
export async function importLmEvalSamples(store: RunStore, text: string, o: LmEvalImportOptions): Promise<ImportResult> {
  const fileName = o.fileName ?? 'the samples file';
  const condition = check(checkCondition, o.condition, 'condition');
  const spec: ProbeSpec = { probe: 'deployment' };
  const condition_key = await conditionKey(condition);
  const probe_key = await probeKey(spec);
  const route = Array.from({ length: o.numLayers ?? 0 }, (_, i) => i);
  const records: QuestionRecord[] = [];
  const lineOf = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim();
    if (line === '') continue;
    const where = `${fileName} line ${n + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw invalid(where, `not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    const s = check(lmEvalSample, row, where);
    const docId = String(s.doc_id);
    const seen = lineOf.get(docId);
    if (seen !== undefined) throw invalid(where, `doc_id ${docId} repeats line ${seen}`);
    lineOf.set(docId, n + 1);
    const metric = o.metric ?? DEFAULT_METRICS.find((m) => m in s.metrics);
    if (metric === undefined || !(metric in s.metrics)) {
      throw invalid(where, `expected a metric (${o.metric ?? DEFAULT_METRICS.join(', ')}) with a number or true/false, found ${Object.keys(s.metrics).join(', ') || 'none'}`);
    }
    const correct = s.metrics[metric] === true || s.metrics[metric] === 1;
    const response = s.resps[0] ?? '';
    const extracted = s.filtered_resps[0] ?? '';
    const doc = s.doc as Record<string, unknown>;
    const question = ['question', 'query', 'problem', 'text', 'input'].map((k) => doc[k]).find((v) => typeof v === 'string') as string | undefined;
    records.push({
      doc_id: docId,
      doc: { id: docId, text: question ?? s.prompt, target: s.target, raw: doc },
      target: s.target,
      arguments: { prompt: s.prompt },
      resps: s.resps,
      filtered_resps: s.filtered_resps,
      doc_hash: s.doc_hash,
      prompt_hash: s.prompt_hash,
      probe: 'deployment',
      probe_key,
      probe_spec: spec,
      condition_key,
      model_fingerprint: o.model.fingerprint,
      task_id: o.task.id,
      task_version: o.task.version,
      attempts: [{ index: 0, route, silence: [], response, extracted, correct, meanLogprob: NaN }],
      budget: 0,
      first_success: correct ? 0 : null,
      realized: correct,
      reachable: null,
      invalid: extracted === '[invalid]' ? 1 : 0,
      selection_saw_gold: false,
    });
  }
  if (records.length === 0) throw invalid(fileName, 'no samples (expected one JSON object per line)');
  const now = new Date().toISOString();
  const manifest: RunManifest = {
    id: o.runId,
    appVersion: o.appVersion,
    model: o.model,
    task: { ...o.task, questions: records.length },
    condition,
    condition_key,
    probes: [spec],
    engine: o.engine ?? { ep: 'wasm', dtype: condition.engineDtype },
    startedAt: now,
    finishedAt: now,
    status: 'finished',
  };
  const items = await itemsOf(manifest, records, fileName, (i) => `line ${lineOf.get(records[i].doc_id)}`);
  return write(store, manifest, items, fileName);
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
    if (typeof h !== 'string') throw new CheckError(at(k), 'a string', describeValue(h));
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

/** Record keys for a manifest's records: each belongs to the run, none repeats. */
async function itemsOf(manifest: RunManifest, records: QuestionRecord[], where: string, label: (i: number) => string): Promise<RecordItem[]> {
  let scope;
  try {
    scope = await runScope(manifest);
  } catch (e) {
    throw invalid(where, `manifest.probes: ${e instanceof Error ? e.message : String(e)}`);
  }
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

async function write(store: RunStore, manifest: RunManifest, items: RecordItem[], where: string): Promise<ImportResult> {
  if (await store.getRun(manifest.id)) {
    throw invalid(where, `a run with id ${manifest.id} is already stored; delete it first to import this file again`);
  }
  const counters: RunCounters = {
    recordsTotal: manifest.task.questions * manifest.probes.length,
    recordsDone: items.length,
    reused: 0,
    attemptsComputed: items.reduce((n, it) => n + it.record.attempts.length, 0),
    computeMs: 0,
    interruptions: 0,
  };
  const run: StoredRun = { id: manifest.id, manifest, manifestKey: await manifestKey(manifest), counters, updatedAt: new Date().toISOString() };
  const { stored, linked } = await store.importRun(run, items);
  return { runId: manifest.id, records: items.length, stored, linked };
}

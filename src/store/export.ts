// A run out of the store: JSON (manifest + records, the file import.ts reads back) and CSV (one
// row per question and probe). Every CSV the app writes (these and the screens' tables) goes through
// toCsv: PapaParse, RFC 4180, cells that a spreadsheet would run as a formula defused. A table's CSV
// holds its rows only; its definitions and the run's provenance go in a sidecar CSV of their own
// (definitionsCsv), since comment lines are not CSV and a spreadsheet would read them as rows.
// Records count attempts from 0 (`index`, `first_success`); the screens count them from 1.

import Papa from 'papaparse';
import type { QuestionIdentity } from '../audit/condition.ts';
import { DEFINITIONS } from '../audit/definitions.ts';
import type { RunProvenance } from '../audit/provenance.ts';
import type { QuestionRecord, RunManifest } from '../audit/types.ts';
import { StoreError } from './errors.ts';
import { importedSources, orderRecords, type ImportedSource } from './records.ts';
import { LEGACY_RUN_FILE_VERSION, RUN_FILE_FORMAT, RUN_FILE_VERSION, type LegacyRunFile, type Producer, type RunFile } from './run-file.ts';
import type { RunStore } from './store.ts';

export interface LoadedRun {
  manifest: RunManifest;
  records: QuestionRecord[];
  /** The run key (the store's manifest key); null for a legacy run. */
  run_key: string | null;
  /** The run's ordered question identities; null for a legacy run. */
  questions: QuestionIdentity[] | null;
  /** Made by an earlier version: viewable, exportable, deletable, never resumed nor reused. */
  legacy: boolean;
  /** The files some of its records were read from, with how many (none: all computed here). */
  importedFrom: ImportedSource[];
}

export async function loadRun(store: RunStore, runId: string): Promise<LoadedRun> {
  const run = await store.getRun(runId);
  if (!run) throw new StoreError('not-found', `no run ${runId} to export`);
  const stored = await store.recordsForRun(runId);
  const importedFrom = importedSources(stored);
  const ordered = orderRecords(stored.map((s) => s.record), run.manifest.probes.map((p) => p.probe));
  if (run.legacy) return { manifest: run.manifest, records: ordered, run_key: null, questions: null, legacy: true, importedFrom };
  const questions = await store.getQuestions(runId);
  if (!questions) throw new StoreError('internal', `run ${runId} has no stored question list (its run key cannot be shown)`);
  return { manifest: run.manifest, records: ordered, run_key: run.manifestKey, questions, legacy: false, importedFrom };
}

/** The file of a loaded run: version 2, or version 1 for a legacy run (the format it was made in).
 *  Either carries the definitions of the numbers; the manifest is its provenance (model and
 *  fingerprint, condition and key, question seed, probe specs with their seeds, engine and dtype,
 *  the app version that ran it). */
export function runFile(run: LoadedRun, producer?: Producer): RunFile | LegacyRunFile {
  const exportedAt = new Date().toISOString();
  const definitions = DEFINITIONS;
  if (run.legacy || run.run_key === null || run.questions === null) {
    return { format: RUN_FILE_FORMAT, version: LEGACY_RUN_FILE_VERSION, exportedAt, definitions, manifest: run.manifest, records: run.records };
  }
  return { format: RUN_FILE_FORMAT, version: RUN_FILE_VERSION, exportedAt, ...(producer ? { producer } : {}), definitions, run_key: run.run_key, questions: run.questions, manifest: run.manifest, records: run.records };
}

/** A run's JSON file; `producer` (app version and commit) is written into a current-version file. */
export async function exportRunJson(store: RunStore, runId: string, producer?: Producer): Promise<string> {
  return JSON.stringify(runFile(await loadRun(store, runId), producer), null, 1);
}

export async function exportRunCsv(store: RunStore, runId: string): Promise<string> {
  const { manifest, records } = await loadRun(store, runId);
  return recordsToCsv(manifest, records);
}

export const CSV_COLUMNS = [
  'run_id',
  'model',
  'task_id',
  'task_version',
  'condition_key',
  'doc_id',
  'probe',
  'probe_key',
  'target',
  'budget',
  'stop_reason',
  'attempts',
  'correct_attempts',
  'first_success',
  'realized',
  'reachable',
  'decoy',
  'decoy_first_success',
  'realized_decoy',
  'reachable_decoy',
  'invalid',
  'selection_saw_gold',
  'route_draw',
  'extracted_answers',
  'selectors',
  'doc_hash',
  'prompt_hash',
] as const;

export type CsvCell = string | number | boolean | null | undefined;

export function recordsToCsv(manifest: RunManifest, records: QuestionRecord[]): string {
  const rows: CsvCell[][] = [];
  for (const r of records) {
    const selectors = r.selectors
      ? Object.entries(r.selectors)
          .map(([name, pick]) => `${name}:${pick.extracted}:${pick.correct ? 1 : 0}`)
          .join(';')
      : '';
    rows.push([
      manifest.id,
      manifest.model.name,
      r.task_id,
      r.task_version,
      r.condition_key,
      r.doc_id,
      r.probe,
      r.probe_key,
      r.target,
      r.budget,
      r.stop_reason,
      r.attempts.length,
      r.attempts.filter((a) => a.correct).length,
      r.first_success,
      r.realized,
      r.reachable,
      r.decoy,
      r.decoy_first_success,
      r.realized_decoy,
      r.reachable_decoy,
      r.invalid,
      r.selection_saw_gold,
      r.route_draw,
      r.attempts.map((a) => a.extracted).join(' | '),
      selectors,
      r.doc_hash,
      r.prompt_hash,
    ]);
  }
  return toCsv([...CSV_COLUMNS], rows);
}

/** Text a spreadsheet would run as a formula: = + - @ tab or CR first, after any leading whitespace
 *  (" =cmd", "\n=cmd": spreadsheets drop it), unless it is a plain number such as "-3" or " 4"
 *  (a tab or CR before it is never plain). */
const FORMULA = /^(?![ \n]*[-+]?\d+(\.\d+)?([eE][-+]?\d+)?\s*$)\s*[=+\-@\t\r]/;

/** CSV with a header row: CRLF line ends (the last line too), quotes where needed, formulas defused
 *  with a leading apostrophe, empty cells for null, undefined and non-finite numbers. */
export function toCsv(header: string[], rows: CsvCell[][]): string {
  for (const [i, r] of rows.entries()) {
    if (r.length !== header.length) throw new Error(`toCsv: row ${i} has ${r.length} cells, header has ${header.length}`);
  }
  const data = rows.map((r) => r.map((v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)));
  const csv = Papa.unparse({ fields: header, data }, { newline: '\r\n', escapeFormulae: FORMULA });
  return rows.length ? `${csv}\r\n` : csv; // PapaParse ends a header-only table with its newline already
}

/** A value as one CSV cell: text, numbers and booleans as they are, null as "not recorded",
 *  anything else as JSON. */
const cell = (v: unknown): CsvCell => (v === null ? 'not recorded' : ['string', 'number', 'boolean'].includes(typeof v) ? (v as CsvCell) : JSON.stringify(v));

/** The sidecar of a run's CSV tables: what wrote it, what the run was (audit/provenance.ts: model,
 *  fingerprint, task and question seed, condition and key, probe specs with their seeds, engine and
 *  dtype, the app version that ran it) and the definitions of the numbers (audit/definitions.ts),
 *  one row each under section, name, value. */
export function definitionsCsv(p: RunProvenance, producer: Producer): string {
  const rows: CsvCell[][] = [
    ['exported by', 'app version', producer.app],
    ['exported by', 'commit', producer.commit],
    ['run', 'run key', p.run_key],
    ['run', 'app version', p.app_version],
    ['run', 'status', p.status],
    ...Object.entries(p.model).map(([k, v]): CsvCell[] => ['model', k, cell(v)]),
    ...Object.entries(p.task).map(([k, v]): CsvCell[] => ['task', k, cell(v)]),
    ['condition', 'condition key', p.condition_key],
    ...(p.condition ? Object.entries(p.condition).map(([k, v]): CsvCell[] => ['condition', k, cell(v)]) : [['condition', 'condition', 'unknown (imported)']]),
    ['engine', 'execution provider', p.engine?.ep ?? 'unknown (imported)'],
    ['engine', 'dtype', p.engine?.dtype ?? 'unknown (imported)'],
    ...p.probes.map((spec): CsvCell[] => ['probe', spec.probe, JSON.stringify(spec)]),
    ...DEFINITIONS.map((d): CsvCell[] => ['definition', d.term, d.definition]),
  ];
  return toCsv(['section', 'name', 'value'], rows);
}

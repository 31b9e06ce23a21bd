// A task file the user supplies (JSONL, JSON array or CSV, read with PapaParse) with a field mapping.

import Papa from 'papaparse';
import { AuditError } from '../errors';
import { JsonInputError, parseJsonInput } from '../../util/json-input';
import { normalizeGold } from '../graders';
import { formatOf, scoresByLoglik, scoringFields } from '../formats/registry';
import { indexLetter, letterIndex } from '../formats/mc-letter';
import { normalizeText } from '../formats/text';
import type { AnswerFormat, Doc, LoadedTask } from '../types';
import { clip, quote } from '../../util/clip';

const FILE_TASK_VERSION = 1;

export type Row = Record<string, unknown>;

/** Which fields hold what. `choices` names one field holding a list (an array, a JSON array
 *  string, or {text: [...]} as ARC has it) or several fields, one option each. */
export interface TaskFileMapping {
  question: string;
  answer: string;
  choices?: string | string[];
  id?: string;
  /** A field whose value "train" puts the row in the train split (few-shot, calibration). */
  split?: string;
}

/** Column names that say which field a column holds, each list in order of preference (matched
 *  without regard to case): a file whose columns are named so needs no mapping by hand. */
export const FIELD_NAMES = {
  question: ['question', 'problem', 'text', 'input', 'prompt', 'query'],
  answer: ['answer', 'gold', 'target', 'label', 'answerKey', 'output', 'solution'],
  choices: ['choices', 'options'],
  id: ['id', 'doc_id', 'question_id', 'problem_id', 'unique_id', 'uid', 'qid', 'idx'],
} as const;

/** The mapping a file's column names suggest; '' for a question or answer no column is named like. */
export function guessMapping(columns: readonly string[]): { question: string; answer: string; choices?: string; id?: string } {
  const find = (names: readonly string[]) => names.map((n) => columns.find((c) => c.toLowerCase() === n.toLowerCase())).find((c) => c !== undefined) ?? '';
  const choices = find(FIELD_NAMES.choices);
  const id = find(FIELD_NAMES.id);
  return { question: find(FIELD_NAMES.question), answer: find(FIELD_NAMES.answer), ...(choices ? { choices } : {}), ...(id ? { id } : {}) };
}

export type TaskFileFormat = 'jsonl' | 'json' | 'csv';

const badTask = (msg: string) => new AuditError('bad-task', msg);

function parseJsonl(text: string): Row[] {
  const rows: Row[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = parseJsonInput(line);
    } catch (e) {
      throw badTask(`JSONL line ${i + 1} ${e instanceof JsonInputError ? 'is refused' : 'is not valid JSON'}: ${(e as Error).message}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw badTask(`JSONL line ${i + 1} is not a JSON object`);
    rows.push(v as Row);
  });
  return rows;
}

/** RFC 4180 records (quoted fields, "" escapes, CRLF or LF), blank lines dropped; a broken quote
 *  is an error naming its row. */
export function parseCsvRecords(text: string): string[][] {
  const out = Papa.parse<string[]>(withoutBom(text), { delimiter: ',', skipEmptyLines: true });
  const broken = out.errors.find((e) => e.type === 'Quotes');
  if (broken) {
    const what = broken.code === 'MissingQuotes' ? 'a quoted field is never closed (a " is missing)' : 'a quoted field has text after its closing "';
    throw badTask(`CSV row ${(broken.row ?? 0) + 1}: ${what}`);
  }
  return out.data;
}

export function parseCsv(text: string): Row[] {
  const nonEmpty = parseCsvRecords(text);
  if (nonEmpty.length === 0) throw badTask('the CSV file is empty');
  const [header, ...body] = nonEmpty;
  const repeated = header.find((h, k) => header.indexOf(h) !== k);
  if (repeated !== undefined) throw badTask(`the CSV header names the column "${repeated}" twice`);
  return body.map((r, n) => {
    if (r.length !== header.length) throw badTask(`CSV row ${n + 2} has ${r.length} fields; the header has ${header.length}`);
    return Object.fromEntries(header.map((h, k) => [h, r[k]]));
  });
}

/** A file that decodes with NUL or replacement characters early on is not UTF-8 text. */
function checkText(text: string): void {
  const head = text.slice(0, 8192);
  if (head.includes('\u0000') || head.includes('\uFFFD')) throw badTask('the file is not UTF-8 text (it holds binary data): choose a .jsonl, .json or .csv file');
}

/** A leading byte-order mark dropped (the browser's File.text() drops it; Node's readFile keeps it). */
const withoutBom = (text: string) => text.replace(/^\uFEFF/, '');

/** The rows of a task file; a file without a single row is an error. */
export function parseTaskFile(text: string, format: TaskFileFormat): Row[] {
  checkText(text);
  const rows = parseRows(withoutBom(text), format);
  if (rows.length === 0) throw badTask(format === 'csv' ? 'the CSV file has a header but no rows' : `the ${format.toUpperCase()} file holds no rows`);
  return rows;
}

function parseRows(text: string, format: TaskFileFormat): Row[] {
  if (format === 'jsonl') return parseJsonl(text);
  if (format === 'csv') return parseCsv(text);
  if (format === 'json') {
    let v: unknown;
    try {
      v = parseJsonInput(text);
    } catch (e) {
      throw badTask(`JSON file ${e instanceof JsonInputError ? 'is refused' : 'is not valid JSON'}: ${(e as Error).message}`);
    }
    if (!Array.isArray(v) || v.some((r) => !r || typeof r !== 'object' || Array.isArray(r))) throw badTask('JSON task file must be an array of objects');
    return v as Row[];
  }
  throw badTask(`unknown task file format "${format as string}" (known: jsonl, json, csv)`);
}

/** jsonl / json / csv from the file name's extension. */
export function formatFromName(name: string): TaskFileFormat {
  const ext = name.toLowerCase().split('.').pop();
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  if (ext === 'json') return 'json';
  if (ext === 'csv') return 'csv';
  throw badTask(`cannot tell the format of "${name}" (expected .jsonl, .json or .csv)`);
}

function fieldText(row: Row, field: string, where: string): string {
  if (!Object.hasOwn(row, field)) throw badTask(`${where} has no field "${field}" (fields: ${clip(Object.keys(row).join(', '))})`);
  const v = row[field];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw badTask(`${where} field "${field}" is not text`);
}

function choicesOf(row: Row, spec: string | string[], where: string): string[] {
  if (Array.isArray(spec)) return spec.map((f) => fieldText(row, f, where));
  if (!Object.hasOwn(row, spec)) throw badTask(`${where} has no field "${spec}" (fields: ${clip(Object.keys(row).join(', '))})`);
  let v = row[spec];
  if (typeof v === 'string') {
    try {
      v = parseJsonInput(v);
    } catch {
      throw badTask(`${where} field "${spec}" is text but not a JSON list of options`);
    }
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && Array.isArray((v as { text?: unknown }).text)) v = (v as { text: unknown[] }).text;
  if (!Array.isArray(v) || v.length < 2 || v.some((c) => typeof c !== 'string' && typeof c !== 'number')) {
    throw badTask(`${where} field "${spec}" must hold a list of at least 2 options`);
  }
  return v.map(String);
}

/** The gold letter from a letter, a 0-based index, an option label or an option's text. */
export function goldLetter(answer: string, choices: string[], labels: string[] | undefined, where: string): string {
  const a = answer.trim();
  if (labels) {
    const i = labels.indexOf(a);
    if (i >= 0) return indexLetter(i);
  }
  if (/^[A-Za-z]$/.test(a) && letterIndex(a) < choices.length) return a.toUpperCase();
  if (/^\d+$/.test(a) && Number(a) < choices.length) return indexLetter(Number(a));
  const byText = choices.findIndex((c) => normalizeText(c) === normalizeText(a));
  if (byText >= 0) return indexLetter(byText);
  throw badTask(`${where} answer ${quote(answer)} is not a letter, an index or the text of one of its ${choices.length} options`);
}

/** One row → one Doc; every problem is named with the row. */
function rowToDoc(row: Row, m: TaskFileMapping, format: AnswerFormat, id: string, where: string): Doc {
  const text = fieldText(row, m.question, where);
  const answer = fieldText(row, m.answer, where);
  // a format scored over options (mc-letter) reads them and its gold names one
  if (scoresByLoglik(format)) {
    if (!m.choices) throw badTask('a multiple-choice task file needs a choices mapping');
    const choices = choicesOf(row, m.choices, where);
    const rawLabels = typeof m.choices === 'string' ? (row[m.choices] as { label?: unknown })?.label : undefined;
    const labels = Array.isArray(rawLabels) ? rawLabels.map(String) : undefined;
    return { id, text, target: goldLetter(answer, choices, labels, where), choices, raw: row };
  }
  let target: string;
  try {
    target = normalizeGold(format, answer);
  } catch (e) {
    throw badTask(`${where}: ${(e as Error).message}`);
  }
  return { id, text, target, ...(target !== answer.trim() ? { rationale: answer } : {}), raw: row };
}

export interface FileTaskOptions {
  name: string;
  text: string;
  format?: TaskFileFormat;
  mapping: TaskFileMapping;
  answerFormat: AnswerFormat;
  /** Cap on test questions (in file order). */
  questions?: number;
}

export function fileTask(o: FileTaskOptions): LoadedTask {
  const rows = parseTaskFile(o.text, o.format ?? formatFromName(o.name));
  const test: Doc[] = [];
  const train: Doc[] = [];
  const seen = new Set<string>();
  const at = new Map<string, number>();
  rows.forEach((row, i) => {
    const where = `row ${i + 1} of "${o.name}"`;
    const id = o.mapping.id ? fieldText(row, o.mapping.id, where) : `row-${i}`;
    if (id.trim() === '') throw badTask(`${where} has an empty id (field "${o.mapping.id}"): every question needs one`);
    if (seen.has(id)) throw badTask(`${where} repeats id "${id}"`);
    seen.add(id);
    at.set(id, i + 1);
    const doc = rowToDoc(row, o.mapping, o.answerFormat, id, where);
    const isTrain = o.mapping.split !== undefined && fieldText(row, o.mapping.split, where).trim().toLowerCase() === 'train';
    (isTrain ? train : test).push(doc);
  });
  const capped = o.questions === undefined ? test : test.slice(0, o.questions);
  return {
    spec: {
      id: `file:${o.name}`,
      name: o.name,
      answerFormat: o.answerFormat,
      ...scoringFields(o.answerFormat),
      promptTemplate: formatOf(o.answerFormat).promptTemplate,
      metadata: { version: FILE_TASK_VERSION },
      numTest: capped.length,
      numTrain: train.length,
    },
    test: capped,
    train,
    rows: at,
  };
}

// Tasks read through the Hub dataset rows API:
// {endpoint}?dataset=&config=&split=&offset=&length=  (length ≤ 100 per page), requested and its
// HTTP status read by the app's one Hub client (src/engine/sources/hub.ts).

import { hubFetch, hubStatusMeaning, hubText, type HubFetchOptions } from '../../engine/sources/hub';
import type { HubTimeouts } from '../../engine/sources/timeouts';
import { isEngineError } from '../../engine/types';
import { AuditError } from '../errors';
import { normalizeGold } from '../graders';
import { formatOf, scoringFields } from '../formats/registry';
import { COLA_EVAL_RANGE, DART_LEVELS, DART_SAMPLE_SIZE, dartMathDocs, type PageReader } from './dart-math';
import { indexLetter, MC_TEMPLATE } from '../formats/mc-letter';
import type { AnswerFormat, Doc, LoadedTask, TaskSpec } from '../types';
import { goldLetter, type Row } from './file';
import { quote } from '../../util/clip';

export const HUB_ROWS_ENDPOINT = 'https://datasets-server.huggingface.co/rows';
const HUB_TASK_VERSION = 1;
const ROWS_PAGE_MAX = 100;

export type FetchLike = NonNullable<HubFetchOptions['fetch']>;

export interface HubRowsOptions {
  endpoint?: string;
  fetch?: FetchLike;
  signal?: AbortSignal;
  /** Headers and stall limits (default HUB_HEADERS_TIMEOUT_MS, HUB_STALL_TIMEOUT_MS). */
  timeouts?: HubTimeouts;
}

export interface RowsPage {
  rows: { row_idx: number; row: Row }[];
  num_rows_total: number;
}

function describe(dataset: string, config: string, split: string) {
  return `${dataset} (config ${config}, split ${split})`;
}

/** One page of rows; errors name the dataset and say whether it was the network or HTTP. */
export async function fetchRowsPage(dataset: string, config: string, split: string, offset: number, length: number, o: HubRowsOptions = {}): Promise<RowsPage> {
  if (!Number.isInteger(length) || length < 1 || length > ROWS_PAGE_MAX) throw new AuditError('bad-input', `rows page length must be 1..${ROWS_PAGE_MAX}, got ${length}`);
  const q = new URLSearchParams({ dataset, config, split, offset: String(offset), length: String(length) });
  const url = `${o.endpoint ?? HUB_ROWS_ENDPOINT}?${q}`;
  let res: Response;
  try {
    res = await hubFetch(url, { fetch: o.fetch, signal: o.signal, timeouts: o.timeouts });
  } catch (e) {
    if (isEngineError(e) && e.code === 'cancelled') throw new AuditError('cancelled', `loading ${describe(dataset, config, split)} was cancelled`);
    throw new AuditError('offline', `the Hub dataset server cannot be reached for ${describe(dataset, config, split)}: ${(e as Error).message}`);
  }
  const failed = hubStatusMeaning(res.status, false);
  if (failed) {
    let detail = '';
    try {
      const body = (await res.json()) as { error?: unknown };
      if (typeof body?.error === 'string') detail = ` The server says: ${body.error}`;
    } catch {
      // body is not JSON; the status says enough
    }
    throw new AuditError('http', `${describe(dataset, config, split)}: ${failed.reason} (HTTP ${res.status}).${detail}`);
  }
  const where = `the Hub dataset rows API page at offset ${offset} of ${describe(dataset, config, split)}`;
  let raw: string;
  try {
    raw = await hubText(res, where, o);
  } catch (e) {
    if (isEngineError(e) && e.code === 'cancelled') throw new AuditError('cancelled', `loading ${describe(dataset, config, split)} was cancelled`);
    throw new AuditError('offline', isEngineError(e) && e.code === 'timeout' ? e.message : `${where} broke off: ${(e as Error).message}`);
  }
  let body: Partial<RowsPage> | null;
  try {
    body = JSON.parse(raw) as Partial<RowsPage> | null;
  } catch {
    throw new AuditError('bad-task', `${where} is not JSON`);
  }
  if (!body || !Array.isArray(body.rows) || !Number.isInteger(body.num_rows_total) || body.num_rows_total! < 0) {
    throw new AuditError('bad-task', `${where} lacks rows or num_rows_total`);
  }
  if (body.rows.length > length) throw new AuditError('bad-task', `${where} holds ${body.rows.length} rows; ${length} were asked for`);
  // rows in order from the offset asked for: a server that ignores offset, or repeats or skips a
  // row, would otherwise give duplicate or missing questions
  body.rows.forEach((r, i) => {
    if (!r || typeof r !== 'object' || !r.row || typeof r.row !== 'object') throw new AuditError('bad-task', `${where}: row ${i} is not an object with a row`);
    if (r.row_idx !== offset + i) throw new AuditError('bad-task', `${where}: row ${i} has row_idx ${quote(r.row_idx)}, expected ${offset + i} (the server did not honour the offset, or repeated or skipped a row)`);
  });
  return body as RowsPage;
}

/** Up to `limit` rows from offset 0, page by page (fewer only when the split holds fewer), and the
 *  split's num_rows_total. */
async function fetchRows(dataset: string, config: string, split: string, limit: number, o: HubRowsOptions = {}): Promise<{ rows: RowsPage['rows']; total: number }> {
  const out: RowsPage['rows'] = [];
  let total = Infinity;
  while (out.length < Math.min(limit, total)) {
    const page = await fetchRowsPage(dataset, config, split, out.length, Math.min(ROWS_PAGE_MAX, limit - out.length), o);
    total = page.num_rows_total;
    if (page.rows.length === 0 && out.length < Math.min(limit, total)) {
      throw new AuditError('bad-task', `the Hub dataset rows API returned no rows at offset ${out.length} of ${describe(dataset, config, split)}, which it says holds ${total}`);
    }
    out.push(...page.rows);
  }
  return { rows: out.slice(0, limit), total };
}

/** A Hub task preset: one entry for the loader, the task registry (tasks/registry.ts) and so
 *  Setup, the Study form and permalinks. */
export interface HubPreset {
  /** The name after "hub:": "gsm8k", "mmlu:all". */
  id: string;
  dataset: string;
  config: string;
  testSplit: string;
  /** Where few-shot examples and calibration questions come from; none for a test-only dataset. */
  trainSplit?: string;
  answerFormat: AnswerFormat;
  promptTemplate: string;
  /** The task's condition reads the answer only from the last \boxed{} (a boxed condition). */
  requireBoxed?: boolean;
  name: string;
  /** The test questions the preset offers as declared when it was written (the datasets server's
   *  num_rows_total, or a selection's size); a load reads the live count (LoadedTask.sourceRows). */
  declaredRows?: number;
  toDoc(row: Row, id: string): Doc;
  /** Test questions chosen otherwise than the split's first rows (DART-Math's levels). */
  select?(read: PageReader, questions: number): Promise<Doc[]>;
}

const text = (row: Row, f: string, where: string): string => {
  const v = row[f];
  if (typeof v !== 'string') throw new AuditError('bad-task', `${where}: field "${f}" is missing or not text`);
  return v;
};

function arcLike(row: Row, id: string): Doc {
  const c = row.choices as { text?: unknown; label?: unknown } | undefined;
  if (!c || !Array.isArray(c.text) || !Array.isArray(c.label)) throw new AuditError('bad-task', `${id}: field "choices" lacks text/label lists`);
  const choices = c.text.map(String);
  return { id, text: text(row, 'question', id), choices, target: goldLetter(text(row, 'answerKey', id), choices, c.label.map(String), id), raw: row };
}

/** A math row: its problem and its answer (a LaTeX expression, checked readable); the row (MATH's
 *  subject and level with it) kept as raw. */
const mathRow = (problem: string, answer: string) => (row: Row, id: string): Doc => {
  const target = text(row, answer, id).trim();
  try {
    normalizeGold('math', target);
  } catch (e) {
    throw new AuditError('bad-task', `${id}: ${(e as Error).message}`);
  }
  return { id, text: text(row, problem, id), target, raw: row };
};

/** The math format's own prompt: a chain of thought, the answer in \boxed{}. */
const MATH_TEMPLATE = formatOf('math').promptTemplate;

const gsm8kDoc = (row: Row, id: string): Doc => {
  const answer = text(row, 'answer', id);
  return { id, text: text(row, 'question', id), target: normalizeGold('numeric', answer), rationale: answer, raw: row };
};

function mmluPreset(subject: string): HubPreset {
  if (!/^[a-z_]+$/.test(subject)) throw new AuditError('bad-input', `MMLU subject "${subject}" must be lower-case words joined by _ (e.g. abstract_algebra)`);
  return {
    id: `mmlu:${subject}`,
    dataset: 'cais/mmlu',
    config: subject,
    testSplit: 'test',
    trainSplit: 'dev',
    answerFormat: 'mc-letter',
    promptTemplate: MC_TEMPLATE,
    name: `MMLU ${subject.replace(/_/g, ' ')} (test)`,
    toDoc: (row, id) => {
      const choices = row.choices;
      if (!Array.isArray(choices)) throw new AuditError('bad-task', `${id}: field "choices" is not a list`);
      const a = row.answer;
      if (typeof a !== 'number' || !Number.isInteger(a) || a < 0 || a >= choices.length) throw new AuditError('bad-task', `${id}: answer ${String(a)} is not an option index`);
      return { id, text: text(row, 'question', id), choices: choices.map(String), target: indexLetter(a), raw: row };
    },
  };
}

/** dart-math:level<L>[:cola-eval]: DART-Math questions of one level as CoLa chose them
 *  (dart-math.ts), the first ones or those of CoLa's evaluation range. */
function dartMathPreset(rest: string): OfferedPreset {
  const m = /^level([1-5])(:cola-eval)?$/.exec(rest);
  if (!m) throw new AuditError('bad-input', `DART-Math preset "dart-math:${rest}" must be dart-math:level1 … level5, optionally followed by :cola-eval (CoLa's questions ${COLA_EVAL_RANGE[0]}–${COLA_EVAL_RANGE[1]})`);
  const level = Number(m[1]);
  const colaEval = m[2] !== undefined;
  return {
    id: `dart-math:${rest}`,
    dataset: 'hkust-nlp/dart-math-pool-math',
    config: 'default',
    testSplit: 'train',
    answerFormat: 'math',
    promptTemplate: MATH_TEMPLATE,
    name: `DART-Math level ${level}${colaEval ? `, CoLa's evaluation questions ${COLA_EVAL_RANGE[0]}–${COLA_EVAL_RANGE[1]}` : ''}`,
    declaredRows: colaEval ? COLA_EVAL_RANGE[1] - COLA_EVAL_RANGE[0] : DART_SAMPLE_SIZE,
    toDoc: mathRow('query', 'gt_ans'),
    select: (read, questions) => dartMathDocs(read, { level, questions, colaEval }),
  };
}

export type OfferedPreset = HubPreset & { declaredRows: number };

/** The presets offered by name, in the order Setup lists them; declared rows are the datasets
 *  server's num_rows_total of each test split, read 2026-12-07 (DART-Math's: its selection's sizes). */
export const HUB_PRESETS: Readonly<Record<string, OfferedPreset>> = Object.fromEntries(
  ([
    { id: 'gsm8k', dataset: 'openai/gsm8k', config: 'main', testSplit: 'test', trainSplit: 'train', answerFormat: 'numeric', promptTemplate: 'Question: {{question}}\nAnswer:', name: 'GSM8K (main, test)', declaredRows: 1319, toDoc: gsm8kDoc },
    { id: 'arc-easy', dataset: 'allenai/ai2_arc', config: 'ARC-Easy', testSplit: 'test', trainSplit: 'train', answerFormat: 'mc-letter', promptTemplate: MC_TEMPLATE, name: 'ARC-Easy (test)', declaredRows: 2376, toDoc: arcLike },
    { id: 'arc-challenge', dataset: 'allenai/ai2_arc', config: 'ARC-Challenge', testSplit: 'test', trainSplit: 'train', answerFormat: 'mc-letter', promptTemplate: MC_TEMPLATE, name: 'ARC-Challenge (test)', declaredRows: 1172, toDoc: arcLike },
    { ...mmluPreset('all'), declaredRows: 14042 },
    { id: 'commonsense_qa', dataset: 'tau/commonsense_qa', config: 'default', testSplit: 'validation', trainSplit: 'train', answerFormat: 'mc-letter', promptTemplate: MC_TEMPLATE, name: 'CommonsenseQA (validation)', declaredRows: 1221, toDoc: arcLike },
    // GSM8K under a boxed condition: the reasoning asked for, the answer read from its last \boxed{}
    // and graded by equivalence (a gold "1,234" is 1234)
    { id: 'gsm8k-boxed', dataset: 'openai/gsm8k', config: 'main', testSplit: 'test', trainSplit: 'train', answerFormat: 'math', promptTemplate: MATH_TEMPLATE, requireBoxed: true, name: 'GSM8K, boxed answers (main, test)', declaredRows: 1319, toDoc: gsm8kDoc },
    { id: 'math-500', dataset: 'HuggingFaceH4/MATH-500', config: 'default', testSplit: 'test', answerFormat: 'math', promptTemplate: MATH_TEMPLATE, name: 'MATH-500 (test)', declaredRows: 500, toDoc: mathRow('problem', 'answer') },
    { id: 'aime-2024', dataset: 'HuggingFaceH4/aime_2024', config: 'default', testSplit: 'train', answerFormat: 'math', promptTemplate: MATH_TEMPLATE, name: 'AIME 2024', declaredRows: 30, toDoc: mathRow('problem', 'answer') },
    ...DART_LEVELS.flatMap((l) => [dartMathPreset(`level${l}`), dartMathPreset(`level${l}:cola-eval`)]),
  ] satisfies OfferedPreset[]).map((p) => [p.id, p]),
);

/** Adds a preset of a test's own to HUB_PRESETS; returns its removal. The task registry derives its
 *  entries when loaded, so it sees one registered before it loads. Tests only. */
export function registerHubPreset(preset: OfferedPreset): () => void {
  if (Object.hasOwn(HUB_PRESETS, preset.id)) throw new AuditError('bad-input', `a Hub preset "${preset.id}" is registered already`);
  const presets = HUB_PRESETS as Record<string, OfferedPreset>;
  presets[preset.id] = preset;
  return () => void delete presets[preset.id];
}

export function hubPreset(name: string): HubPreset {
  if (Object.hasOwn(HUB_PRESETS, name)) return HUB_PRESETS[name];
  if (name.startsWith('mmlu:')) return mmluPreset(name.slice(5));
  if (name.startsWith('dart-math:')) return dartMathPreset(name.slice(10));
  const known = Object.keys(HUB_PRESETS).filter((id) => !/^(mmlu|dart-math):/.test(id));
  throw new AuditError('bad-input', `unknown Hub task preset "${name}" (known: ${[...known, 'mmlu:<subject>', 'dart-math:level<1-5>[:cola-eval]'].join(', ')})`);
}

/** The task spec of a Hub preset before its rows are read (Setup's default condition reads it). */
export function hubTaskSpec(presetName: string, numTest = 0, numTrain = 0): TaskSpec {
  const p = hubPreset(presetName);
  return {
    id: `hub:${presetName}`,
    name: p.name,
    answerFormat: p.answerFormat,
    ...scoringFields(p.answerFormat),
    ...(p.requireBoxed ? { requireBoxed: true } : {}),
    promptTemplate: p.promptTemplate,
    metadata: { version: HUB_TASK_VERSION },
    numTest,
    numTrain,
  };
}

export interface HubTaskOptions extends HubRowsOptions {
  questions: number;
  /** Train rows to load for few-shot prompts and calibration (0: none). */
  trainQuestions?: number;
}

export async function hubTask(presetName: string, o: HubTaskOptions): Promise<LoadedTask> {
  const p = hubPreset(presetName);
  const docs = async (split: string, n: number) => {
    if (n <= 0) return { docs: [], total: undefined };
    const { rows, total } = await fetchRows(p.dataset, p.config, split, n, o);
    return { docs: rows.map((r) => p.toDoc(r.row, `${split}-${r.row_idx}`)), total };
  };
  // a selection's size is its own (declared), not the split's
  const { docs: test, total: sourceRows } = p.select ? { docs: await p.select((offset, length) => fetchRowsPage(p.dataset, p.config, p.testSplit, offset, length, o), o.questions), total: undefined } : await docs(p.testSplit, o.questions);
  const trainWanted = o.trainQuestions ?? 0;
  if (trainWanted > 0 && p.trainSplit === undefined) {
    throw new AuditError('bad-input', `${p.name} has no train split to draw ${trainWanted} few-shot or calibration questions from; ask for none (0-shot, no fixed-route selector)`);
  }
  const train = p.trainSplit === undefined ? [] : (await docs(p.trainSplit, trainWanted)).docs;
  return { spec: hubTaskSpec(presetName, test.length, train.length), test, train, ...(sourceRows === undefined ? {} : { sourceRows }) };
}

// DART-Math questions by level, chosen as CoLa's released code chooses them (tianyi-lab/PoLar,
// mcts_discovery/run_mcts.py at c86d76e, `sample_dataset`): the first SAMPLE_SIZE rows of
// hkust-nlp/dart-math-pool-math whose query_metadata.level is the level, in the split's order, then
// de-duplicated by query_id keeping the first row of each query. CoLa searched and evaluated on the
// questions at positions COLA_EVAL_RANGE of that list; `colaEval` takes those.

import { AuditError } from '../errors';
import { normalizeGold } from '../graders';
import type { Doc } from '../types';
import type { Row } from './file';

/** Rows of one level CoLa takes before de-duplicating (its --sample_size default). */
export const DART_SAMPLE_SIZE = 2000;
/** CoLa's evaluation range: positions [1500, 2000) of the de-duplicated sample. */
export const COLA_EVAL_RANGE: readonly [number, number] = [1500, 2000];
export const DART_LEVELS = [1, 2, 3, 4, 5] as const;

/** One page of the split from `offset`: its rows (each with row_idx) and the split's size. */
export type PageReader = (offset: number, length: number) => Promise<{ rows: { row_idx: number; row: Row }[]; num_rows_total: number }>;

export interface DartSelection {
  level: number;
  /** Questions wanted (the first ones of the list, or of CoLa's range). */
  questions: number;
  colaEval: boolean;
  /** Defaults DART_SAMPLE_SIZE and COLA_EVAL_RANGE; tests set smaller ones. */
  sampleSize?: number;
  range?: readonly [number, number];
}

const PAGE = 100;

/** The selected questions: read page by page, stopping once the wanted questions are known. */
export async function dartMathDocs(read: PageReader, s: DartSelection): Promise<Doc[]> {
  const sampleSize = s.sampleSize ?? DART_SAMPLE_SIZE;
  const [from, to] = s.range ?? COLA_EVAL_RANGE;
  const end = s.colaEval ? Math.min(to, from + s.questions) : s.questions;
  const docs: Doc[] = [];
  const seen = new Set<string>();
  let levelRows = 0;
  let total = Infinity;
  for (let offset = 0; offset < total && levelRows < sampleSize && docs.length < end; ) {
    const page = await read(offset, PAGE);
    total = page.num_rows_total;
    if (page.rows.length === 0) break;
    for (const { row_idx, row } of page.rows) {
      const where = `hkust-nlp/dart-math-pool-math row ${row_idx}`;
      const meta = row.query_metadata as { level?: unknown } | undefined;
      if ((meta?.level ?? 0) !== s.level) continue;
      if (++levelRows > sampleSize) break;
      const id = row.query_id;
      if (typeof id !== 'string' && typeof id !== 'number') throw new AuditError('bad-task', `${where}: field "query_id" is missing`);
      if (seen.has(String(id))) continue;
      seen.add(String(id));
      if (typeof row.query !== 'string' || typeof row.gt_ans !== 'string') throw new AuditError('bad-task', `${where}: field "query" or "gt_ans" is missing or not text`);
      try {
        normalizeGold('math', row.gt_ans);
      } catch (e) {
        throw new AuditError('bad-task', `${where}: ${(e as Error).message}`);
      }
      docs.push({ id: `train-${row_idx}`, text: row.query, target: row.gt_ans.trim(), raw: row });
      if (docs.length >= end) break;
    }
    offset += page.rows.length;
  }
  if (!s.colaEval) return docs;
  if (docs.length <= from) {
    throw new AuditError('bad-task', `CoLa's evaluation range ${from}–${to} of level ${s.level} is empty: the first ${sampleSize} level-${s.level} rows hold ${docs.length} distinct queries`);
  }
  return docs.slice(from, end);
}

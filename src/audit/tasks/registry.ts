// The tasks Setup, the Study form and permalinks offer, one entry each: its spec string, label,
// dataset and split, answer format and row count. Built-in entries come from the generators'
// levels (arith.ts) and count their test problems from the generator; Hub entries come from the
// presets (hub.ts) with the one declared row count of each (below).

import type { AnswerFormat } from '../types';
import { ARITH_LEVELS, splitOf, type ArithLevel } from './arith';
import { COLA_EVAL_RANGE, DART_LEVELS, DART_SAMPLE_SIZE } from './dart-math';
import { hubPreset } from './hub';

export interface TaskEntry {
  /** The spec string loadTask takes: "builtin:arith-2d", "hub:gsm8k". */
  ref: string;
  kind: 'builtin' | 'hub';
  /** The name after the kind: "arith-2d", "gsm8k". */
  id: string;
  label: string;
  /** Where its questions come from: a Hub dataset "owner/name config/split", or "generated". */
  source: string;
  answerFormat: AnswerFormat;
  /** The test questions it holds (at most, for DART-Math: before de-duplication). */
  rows: number;
}

/** Test problems of a level: every operand pair and operation whose split (splitOf) is test. */
function testProblems(l: ArithLevel): number {
  let n = 0;
  for (let a = l.min; a <= l.max; a++) for (let b = l.min; b <= l.max; b++) for (const op of l.ops) if (splitOf({ a, b, op }) === 'test') n++;
  return n;
}

const builtinEntry = (l: ArithLevel): TaskEntry => {
  let rows: number | undefined;
  return {
    ref: `builtin:${l.id}`,
    kind: 'builtin',
    id: l.id,
    label: l.description[0].toUpperCase() + l.description.slice(1),
    source: 'generated',
    answerFormat: 'numeric',
    // counted on first read: the three-digit level has 1.6 million operand pairs
    get rows() {
      return (rows ??= testProblems(l));
    },
  };
};

/** Each Hub preset's test split size as the datasets server reports it (num_rows_total, read
 *  2026-12-07; no network at build time, so declared here once). DART-Math's are its selection's
 *  sizes (dart-math.ts). */
const HUB_ROWS: Record<string, number> = {
  gsm8k: 1319,
  'arc-easy': 2376,
  'arc-challenge': 1172,
  'mmlu:all': 14042,
  commonsense_qa: 1221,
  'gsm8k-boxed': 1319,
  'math-500': 500,
  'aime-2024': 30,
  ...Object.fromEntries(DART_LEVELS.flatMap((l) => [[`dart-math:level${l}`, DART_SAMPLE_SIZE], [`dart-math:level${l}:cola-eval`, COLA_EVAL_RANGE[1] - COLA_EVAL_RANGE[0]]])),
};

const hubEntry = (id: string, rows: number): TaskEntry => {
  const p = hubPreset(id);
  const source = `${p.dataset} ${p.config}/${p.testSplit}`;
  return { ref: `hub:${id}`, kind: 'hub', id, label: `${p.name} — ${source}, ${rows} rows`, source, answerFormat: p.answerFormat, rows };
};

export const BUILTIN_TASKS: readonly TaskEntry[] = Object.values(ARITH_LEVELS).map(builtinEntry);
export const HUB_TASKS: readonly TaskEntry[] = Object.entries(HUB_ROWS).map(([id, rows]) => hubEntry(id, rows));
export const TASKS: readonly TaskEntry[] = [...BUILTIN_TASKS, ...HUB_TASKS];

/** The entry of a spec string, or undefined when no entry offers it. */
export function taskEntry(ref: string): TaskEntry | undefined {
  return TASKS.find((t) => t.ref === ref);
}

// The tasks Setup, the Study form and permalinks offer, one entry each: its spec string, label,
// dataset and split, answer format and row count. Built-in entries come from the generators'
// levels (arith.ts) and count their test problems from the generator; Hub entries are the offered
// presets (hub.ts HUB_PRESETS), each with its declared row count until a load reads the live one.

import type { AnswerFormat } from '../types';
import { ARITH_LEVELS, splitOf, type ArithLevel } from './arith';
import { HUB_PRESETS, type OfferedPreset } from './hub';

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
  /** The test questions it holds: counted from the generator (built in), or as the preset declares
   *  them (Hub; at most, for DART-Math: before de-duplication). */
  rows: number;
  /** `rows` is the preset's declaration, not read from the source. */
  rowsDeclared: boolean;
}

/** The test questions an entry offers: `read` (the count a load read from the source) when known. */
export function taskRows(t: TaskEntry, read?: number): number {
  return read ?? t.rows;
}

/** "1319 rows", "1319 rows (declared)" while only the preset's declaration is known. */
export function rowsText(t: TaskEntry, read?: number): string {
  return read !== undefined ? `${read} rows` : `${t.rows} rows${t.rowsDeclared ? ' (declared)' : ''}`;
}

/** The entry as a choice: a Hub entry with its source and rows, a built-in one by its label. */
export function taskChoiceLabel(t: TaskEntry, read?: number): string {
  return t.kind === 'hub' ? `${t.label}, ${rowsText(t, read)}` : t.label;
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
    rowsDeclared: false,
    // counted on first read: the three-digit level has 1.6 million operand pairs
    get rows() {
      return (rows ??= testProblems(l));
    },
  };
};

const hubEntry = (p: OfferedPreset): TaskEntry => {
  const source = `${p.dataset} ${p.config}/${p.testSplit}`;
  return { ref: `hub:${p.id}`, kind: 'hub', id: p.id, label: `${p.name} — ${source}`, source, answerFormat: p.answerFormat, rows: p.declaredRows, rowsDeclared: true };
};

export const BUILTIN_TASKS: readonly TaskEntry[] = Object.values(ARITH_LEVELS).map(builtinEntry);
export const HUB_TASKS: readonly TaskEntry[] = Object.values(HUB_PRESETS).map(hubEntry);
export const TASKS: readonly TaskEntry[] = [...BUILTIN_TASKS, ...HUB_TASKS];

/** The entry of a spec string, or undefined when no entry offers it. */
export function taskEntry(ref: string): TaskEntry | undefined {
  return TASKS.find((t) => t.ref === ref);
}

// Batch grading (the audit CLI's `grade --cases FILE.jsonl`): each line a case {gold, response[,
// choices]}, graded with one answer format; a line that cannot be graded is named by its number and
// the rest are still graded.

import { clip, quote } from '../util/clip';
import { JsonInputError, parseJsonInput } from '../util/json-input';
import { grade, type Grade } from './graders';
import type { AnswerFormat } from './types';

/** One case's outcome: its grade, or what is wrong with its line. */
export type CaseResult = { line: number } & ({ grade: Grade } | { error: string });

/** The case on one line: gold (text or a number), response (text), choices (a list of texts). */
function parseCase(text: string): { gold: string; response: string; choices?: string[] } {
  let v: unknown;
  try {
    v = parseJsonInput(text);
  } catch (e) {
    throw new Error(e instanceof JsonInputError ? e.message : `not JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('expected a JSON object {"gold": …, "response": …}');
  const o = v as Record<string, unknown>;
  const gold = typeof o.gold === 'number' && Number.isFinite(o.gold) ? String(o.gold) : o.gold;
  if (typeof gold !== 'string') throw new Error(`"gold" must be text or a number, got ${o.gold === undefined ? 'nothing' : quote(o.gold)}`);
  if (typeof o.response !== 'string') throw new Error(`"response" must be text, got ${o.response === undefined ? 'nothing' : quote(o.response)}`);
  if (o.choices !== undefined && !(Array.isArray(o.choices) && o.choices.every((c) => typeof c === 'string'))) throw new Error('"choices" must be a list of texts');
  return { gold, response: o.response, ...(o.choices !== undefined ? { choices: o.choices as string[] } : {}) };
}

/** Every non-blank line of `text` graded under `format`, in order, each with its line number (from 1). */
export function gradeCases(format: AnswerFormat, text: string): CaseResult[] {
  const out: CaseResult[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = i + 1;
    try {
      const c = parseCase(raw);
      out.push({ line, grade: grade(format, c.gold, c.response, c.choices ? { choices: c.choices } : {}) });
    } catch (e) {
      out.push({ line, error: clip((e as Error).message, 300) });
    }
  });
  return out;
}

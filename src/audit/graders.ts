// Grading an attempt: extract an answer from a response with the condition's answer format
// (formats/registry.ts) and compare it with the gold answer. Every extractor returns INVALID when
// nothing can be extracted; that counts as wrong. Each format has its own version, recorded by the
// conditions of that format (graderVersion).

import { formatOf, type AnswerFormat } from './formats/registry';
import { INVALID } from './formats/format';
import type { Condition, Doc } from './types';

export { INVALID };

export interface Grade {
  extracted: string;
  correct: boolean;
}

export interface GradeOptions {
  /** Option texts for multiple choice; their count bounds the valid letters. */
  choices?: string[];
  /** Read the answer only from the last \boxed{...}; a response without one is invalid. */
  requireBoxed?: boolean;
  /** Read the answer only from the text after the last occurrence of this marker, up to the end of
   *  its line (DAPO's "Answer:" line); a response without it is invalid. */
  answerLine?: string;
}

/** The grade options of a condition for one question: every grader call site takes them from here. */
export function gradeOptions(cond: Pick<Condition, 'requireBoxed' | 'answerLine'>, doc: Pick<Doc, 'choices'>): GradeOptions {
  return { choices: doc.choices, requireBoxed: cond.requireBoxed === true, ...(cond.answerLine !== undefined ? { answerLine: cond.answerLine } : {}) };
}

export function grade(format: AnswerFormat, gold: string, response: string, opts: GradeOptions = {}): Grade {
  const f = formatOf(format);
  const q = { gold: f.normalizeGold(gold), choices: opts.choices };
  const text = opts.answerLine === undefined ? response : answerLineText(response, opts.answerLine);
  const extracted = text === null ? INVALID : opts.requireBoxed ? f.extractBoxed(text, q) : f.extract(text, q);
  return { extracted, correct: extracted !== INVALID && f.equal(q.gold, extracted) };
}

/** Whether an extracted answer is `answer` (a gold or a decoy answer) under the format's equality. */
export function isAnswer(format: AnswerFormat, answer: string, extracted: string): boolean {
  const f = formatOf(format);
  return extracted !== INVALID && f.equal(f.normalizeGold(answer), extracted);
}

/** The canonical form of a gold answer; throws when the gold answer itself cannot be read. */
export function normalizeGold(format: AnswerFormat, gold: string): string {
  return formatOf(format).normalizeGold(gold);
}

/** The text after the last `marker` (case-insensitive, spaces allowed before its colon) up to the
 *  end of that line, trimmed; null when the response has no such marker. */
export function answerLineText(response: string, marker: string): string | null {
  const escaped = marker.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s*:$/, '\\s*:');
  let last: string | null = null;
  for (const m of response.matchAll(new RegExp(`${escaped}[ \\t]*([^\\n]*)`, 'gi'))) last = m[1].trim();
  return last;
}

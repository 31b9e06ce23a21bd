// The `math` answer grader: competition-math answers graded by equivalence, following
// huggingface/Math-Verify's rules (parse → verify, LaTeX and expression extraction, strict,
// floats rounded to 6 decimal places). Its labelled tests are our conformance oracle
// (test/fixtures/math-verify); the code is our own.
//
// v1: first version.

import { quote } from '../../../util/clip';
import { clearAnswerCache, readAnswer } from './answer';
import { decoyOf } from './decoy';
import { clearLeafCache } from './engine';
import { nodesEqual } from './equivalence';
import { candidates } from './extract';
import { nodeKey } from './key';
import { MAX_ANSWER_CHARS, MAX_READ_CHARS } from './limits';

export { MAX_ANSWER_CHARS, MAX_READ_CHARS, MAX_RESPONSE_CHARS, MAX_NESTING, MAX_POWER_DEPTH, MAX_NUMBER_DIGITS, MAX_FACTORIAL } from './limits';
export { FLOAT_DECIMALS } from './equivalence';

/** The math grader's version: part of the condition key of math conditions only. Bump when a rule changes. */
export const MATH_VERSION = 1;

/** The answer a response gives, in math-verify's extraction order (last \boxed{}/\fbox{}, "final
 *  answer is …", last inline/display LaTeX, then a plain expression); null when none. boxedOnly:
 *  only the last \boxed{}/\fbox{} counts (null when absent). Returns a normalised LaTeX text. */
export function extractMathAnswer(response: string, opts: { boxedOnly?: boolean } = {}): string | null {
  let read = 0;
  for (const group of candidates(response, opts.boxedOnly ?? false)) {
    for (const c of group) {
      if (c.text.length > MAX_ANSWER_CHARS) continue;
      read += c.text.length;
      if (read > MAX_READ_CHARS) return null;
      const a = readAnswer(c.text);
      if (a) return a.text;
    }
  }
  return null;
}

/** Whether a gold is written as bare LaTeX (no $, \boxed, \[ or \( to extract from). */
const isBare = (gold: string) => !/\$|\\boxed|\\fbox|\\\[|\\\(/.test(gold);

/** A gold answer's normalised text (a bare answer, or a solution with \boxed{}); throws an Error
 *  naming the gold when it holds nothing readable. */
export function normalizeMathGold(gold: string): string {
  const bare = isBare(gold) ? readAnswer(gold) : null;
  const text = bare?.text ?? extractMathAnswer(gold);
  if (text === null) throw new Error(`math gold answer ${quote(gold)} holds no readable answer`);
  return text;
}

const verdicts = new Map<string, boolean>();
/** (gold, answer) verdicts kept; the cache is dropped when it grows past this. */
const VERDICT_CACHE_SIZE = 100_000;

/** Whether `answer` is equivalent to `gold` by math-verify's rules; bounded time on any input;
 *  never throws. Cached by (gold, answer). */
export function mathEquivalent(gold: string, answer: string): boolean {
  const key = `${gold}\u0000${answer}`;
  const hit = verdicts.get(key);
  if (hit !== undefined) return hit;
  let v = false;
  try {
    const g = readAnswer(gold);
    const a = readAnswer(answer);
    v = g !== null && a !== null && (g.text === a.text || nodesEqual(g.node, a.node));
  } catch {
    v = false;
  }
  if (verdicts.size >= VERDICT_CACHE_SIZE) verdicts.clear();
  verdicts.set(key, v);
  return v;
}

/** A canonical key of an answer: equal keys imply equivalent answers ("\frac12" and "0.5" share
 *  one). For majority votes and caches. An unreadable answer keys by its own text. */
export function mathKey(answer: string): string {
  const a = readAnswer(answer);
  return a ? nodeKey(a.node) : `?${answer}`;
}

/** A wrong answer of the gold's kind (a number in it perturbed), never equivalent to the gold;
 *  null when none can be made. `int(n)` returns a seeded integer in [0, n). */
export function mathDecoy(gold: string, int: (n: number) => number): string | null {
  let g: string;
  try {
    g = normalizeMathGold(gold);
  } catch {
    return null;
  }
  const d = decoyOf(g, int);
  return d !== null && !mathEquivalent(g, d) ? d : null;
}

/** grade = extract + equivalence, for the CLI batch and the benchmark. Throws normalizeMathGold's
 *  Error when the gold holds nothing readable: a bad gold is the task's fault, not a wrong answer. */
export function gradeMath(gold: string, response: string, opts: { boxedOnly?: boolean } = {}): { extracted: string | null; correct: boolean } {
  const g = normalizeMathGold(gold);
  const extracted = extractMathAnswer(response, opts);
  return { extracted, correct: extracted !== null && mathEquivalent(g, extracted) };
}

/** Forget every cached answer, leaf and verdict (for cold-cache benchmarks). */
export function clearMathCaches(): void {
  verdicts.clear();
  clearAnswerCache();
  clearLeafCache();
}

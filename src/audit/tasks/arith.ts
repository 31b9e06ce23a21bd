// Built-in arithmetic problems, generated from a seed so they work offline.
// Train and test are disjoint by construction: a problem's split is a pure function of its
// operands (see splitOf), so no seed or count can leak a test problem into training.

import { createPrng } from '../../util/prng';

export type ArithOp = '+' | '-' | '*';
export interface ArithLevel {
  id: string;
  /** Operands are drawn uniformly from [min, max]. */
  min: number;
  max: number;
  ops: ArithOp[];
  description: string;
}

export const ARITH_LEVELS: Record<string, ArithLevel> = {
  'arith-1d': { id: 'arith-1d', min: 0, max: 9, ops: ['+', '-'], description: 'one-digit addition and subtraction' },
  'arith-2d': { id: 'arith-2d', min: 10, max: 99, ops: ['+', '-'], description: 'two-digit addition and subtraction' },
  'arith-3d': { id: 'arith-3d', min: 100, max: 999, ops: ['+', '-'], description: 'three-digit addition and subtraction' },
  'arith-mul': { id: 'arith-mul', min: 2, max: 30, ops: ['*'], description: 'multiplication up to 30×30' },
};

export interface ArithProblem {
  a: number;
  b: number;
  op: ArithOp;
  answer: number;
}

export type Split = 'train' | 'test';

/** One problem in five goes to test, by a hash of (a, op, b). */
export function splitOf(p: Pick<ArithProblem, 'a' | 'b' | 'op'>): Split {
  let h = 2166136261;
  for (const ch of `${p.a}${p.op}${p.b}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h % 5 === 0 ? 'test' : 'train';
}

function evaluate(a: number, op: ArithOp, b: number): number {
  return op === '+' ? a + b : op === '-' ? a - b : a * b;
}

/** The problems of one split, distinct, in a seeded order; at most `count` of them. */
export function generateArith(levelId: string, split: Split, count: number, seed: number): ArithProblem[] {
  const level = Object.hasOwn(ARITH_LEVELS, levelId) ? ARITH_LEVELS[levelId] : undefined;
  if (!level) throw new Error(`unknown arithmetic level "${levelId}" (known: ${Object.keys(ARITH_LEVELS).join(', ')})`);
  const rng = createPrng(seed, split === 'train' ? 1 : 2);
  const span = level.max - level.min + 1;
  const universe = span * span * level.ops.length;
  const seen = new Set<string>();
  const out: ArithProblem[] = [];
  // Rejection sampling is fine while count is well below the split's size; cap the tries.
  for (let tries = 0; out.length < count && tries < universe * 20; tries++) {
    const a = level.min + rng.int(span);
    const b = level.min + rng.int(span);
    const op = level.ops[rng.int(level.ops.length)];
    const key = `${a}${op}${b}`;
    if (seen.has(key) || splitOf({ a, b, op }) !== split) continue;
    seen.add(key);
    out.push({ a, b, op, answer: evaluate(a, op, b) });
  }
  return out;
}

/** The question as the model sees it (before any prompt template): "12+34=". */
export function arithText(p: ArithProblem): string {
  return `${p.a}${p.op}${p.b}=`;
}

/** The arithmetic level whose problems `text` is written as ("12-42=", spaces allowed: "12 - 42 ="),
 *  or null when it is no such problem. */
export function arithLevelOf(text: string): string | null {
  const m = /^\s*(\d+)\s*([-+*])\s*(\d+)\s*=\s*$/.exec(text);
  if (!m) return null;
  const [a, b] = [Number(m[1]), Number(m[3])];
  const level = Object.values(ARITH_LEVELS).find((l) => l.ops.includes(m[2] as ArithOp) && [a, b].every((x) => x >= l.min && x <= l.max));
  return level?.id ?? null;
}

/** The gold answer as text: "46", "-7". */
export function arithTarget(p: ArithProblem): string {
  return String(p.answer);
}

// The Setup screen's field checks, in the words of the form: each names the field as labelled,
// what it accepts, and what it holds now. null when the value is fine.

import { MAX_BUDGET } from '../../audit';

const show = (v: number) => (Number.isInteger(v) ? v.toLocaleString('en') : String(v));

/** A whole number from lo to hi (a blank field holds NaN). */
export function wholeNumberProblem(label: string, v: number, lo: number, hi: number): string | null {
  if (!Number.isFinite(v)) return `${label}: enter a whole number from ${show(lo)} to ${show(hi)}.`;
  if (!Number.isInteger(v)) return `${label} must be a whole number (it is ${show(v)}).`;
  if (v < lo || v > hi) return `${label} must be from ${show(lo)} to ${show(hi)} (it is ${show(v)}).`;
  return null;
}

/** A number in [lo, hi] (decimals allowed). */
export function numberProblem(label: string, v: number, lo: number, hi: number): string | null {
  if (!Number.isFinite(v)) return `${label}: enter a number from ${lo} to ${hi}.`;
  if (v < lo || v > hi) return `${label} must be from ${lo} to ${hi} (it is ${v}).`;
  return null;
}

/** A budget of distinct attempts: at least 1, and no more than a route space holds. */
export function budgetProblem(label: string, budget: number, space: { size: bigint; numLayers: number; words: string } | null): string | null {
  if (!Number.isFinite(budget)) return `${label}: enter a budget, a whole number of attempts (1 or more).`;
  if (!Number.isInteger(budget) || budget < 1) return `${label}: the budget must be a whole number of attempts, 1 or more (it is ${show(budget)}).`;
  if (space && BigInt(budget) > space.size) {
    return `${label}: the budget can be at most ${show(Number(space.size))}, the number of distinct routes a ${space.numLayers}-layer model has here (${space.words}); it is ${show(budget)}.`;
  }
  if (budget > MAX_BUDGET) return `${label}: the budget can be at most ${show(MAX_BUDGET)} attempts per question (past that one question alone takes hours); it is ${show(budget)}.`;
  return null;
}

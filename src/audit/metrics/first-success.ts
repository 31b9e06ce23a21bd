// The median attempt of first success among reachable questions: how far into its budget a probe
// finds the gold answer, on the questions where it finds it.
//
// Interval: the distribution-free interval of a median from order statistics (Conover, Practical
// Nonparametric Statistics, the binomial test's confidence interval for a quantile). With the n
// values sorted x(1) ≤ … ≤ x(n), how many fall below the true median is Bin(n, 1/2), so
// [x(j), x(n+1−j)] covers it with probability at least 1 − 2·P(Bin(n, 1/2) ≤ j − 1); j is the
// largest giving 95%. Exact, without resampling or a seed, and its ends are attempts that happened
// (attempt numbers are few and tied, where a normal approximation misleads). Under 6 questions no
// order statistic reaches 95% (2·2⁻⁵ > 5%): no interval.

import { binomialLowerTailHalf } from '../stats';
import type { Estimate, Metric } from './metric';

/** The interval's coverage. */
export const MEDIAN_LEVEL = 0.95;

/** The median of sorted values (the mean of the middle two for an even count); null for none. */
export function median(sorted: readonly number[]): number | null {
  const n = sorted.length;
  return n === 0 ? null : (sorted[Math.floor((n - 1) / 2)] + sorted[Math.floor(n / 2)]) / 2;
}

/** The order-statistic interval [x(j), x(n+1−j)] of the median of sorted values; null under 6. */
export function medianInterval(sorted: readonly number[]): { lo: number; hi: number } | null {
  const n = sorted.length;
  const tail = (1 - MEDIAN_LEVEL) / 2;
  let j = 0;
  while (j + 1 <= n / 2 && binomialLowerTailHalf(n, j) <= tail) j++;
  return j === 0 ? null : { lo: sorted[j - 1], hi: sorted[n - j] };
}

export const FIRST_SUCCESS_MEDIAN: Metric = {
  id: 'first_success_median',
  term: 'first success (median)',
  label: () => 'first success (median attempt)',
  definition: `Among the questions a probe reaches, the median attempt number (from 1) of its first correct attempt, with a distribution-free ${MEDIAN_LEVEL * 100}% interval from order statistics, none under 6 reached questions (metrics/first-success.ts).`,
  compute: (x) => {
    const attempts = x.records.flatMap((r) => (r.reachable && r.first_success !== null ? [r.first_success + 1] : [])).sort((a, b) => a - b);
    const value: Estimate = { value: median(attempts), ci: medianInterval(attempts), n: attempts.length };
    return { value };
  },
  // not a column of the study's settings table: one more column per probe overflows it at 1280 px (the report JSON, Results, the CLI and the CSVs carry it)
  show: 'estimate',
};

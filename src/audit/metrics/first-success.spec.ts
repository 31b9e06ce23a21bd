// The median attempt of first success: reached questions only, attempts counted from 1, and an
// order-statistic interval whose coverage is checked against the binomial it stands on.

import { describe, expect, it } from 'vitest';
import { summarize } from '../summary';
import { gradedRecord } from '../testing/graded-records';
import { FIRST_SUCCESS_MEDIAN, median, MEDIAN_LEVEL, medianInterval } from './first-success';
import { metricValue } from './registry';

/** P(Bin(n, 1/2) ≤ m) by summing binomial coefficients in floating point (n ≤ 60 here). */
function lowerTail(n: number, m: number): number {
  let coef = 1;
  let sum = 0;
  for (let i = 0; i <= m; i++) {
    if (i > 0) coef = (coef * (n - i + 1)) / i;
    sum += coef;
  }
  return sum / 2 ** n;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('first success (median)', () => {
  it('takes the median of the middle value, or of the middle two', () => {
    expect(median([])).toBeNull();
    expect(median([4])).toBe(4);
    expect(median([1, 2, 7])).toBe(2);
    expect(median([1, 2, 7, 9])).toBe(4.5);
  });

  it('bounds it by the widest-inward order statistics that still cover 95%, none under 6 values', () => {
    for (const n of [1, 5]) expect(medianInterval(range(n))).toBeNull();
    expect(medianInterval(range(6))).toEqual({ lo: 1, hi: 6 }); // coverage 1 − 2/64
    expect(medianInterval(range(10))).toEqual({ lo: 2, hi: 9 }); // 1 − 2·11/1024; one further in is 1 − 2·56/1024 < 95%
    for (let n = 6; n <= 60; n++) {
      const j = medianInterval(range(n))!.lo; // the values are 1..n, so an end is its own index
      expect(medianInterval(range(n))!.hi, `n=${n}`).toBe(n + 1 - j);
      expect(1 - 2 * lowerTail(n, j - 1), `n=${n}`).toBeGreaterThanOrEqual(MEDIAN_LEVEL);
      if (j + 1 <= n / 2) expect(1 - 2 * lowerTail(n, j), `n=${n}`).toBeLessThan(MEDIAN_LEVEL);
    }
  });

  it('counts attempts from 1 over the reached questions only, in the probe summary', () => {
    const first = [1, 1, 2, 3, 3, 4, 8];
    const records = [
      ...first.map((k, i) => gradedRecord(`q${i}`, 'random-routes', range(8).map((a) => a === k))),
      gradedRecord('never', 'random-routes', range(8).map(() => false)),
      gradedRecord('late', 'random-routes', range(8).map((a) => a === 8), 4), // its success is past the budget
      ...[...first, 0, 0].map((_, i) => gradedRecord(i < 7 ? `q${i}` : i === 7 ? 'never' : 'late', 'deployment', [false])),
    ];
    const [p] = summarize(records).probes;
    expect(metricValue(p, FIRST_SUCCESS_MEDIAN)).toEqual({ value: 3, ci: { lo: 1, hi: 8 }, n: 7 });
  });
});

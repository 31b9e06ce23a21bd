import { describe, expect, it } from 'vitest';
import { bootstrapMean, formatP, holm, mcnemar, pairedDifference, passAtK, RETAINED_GAIN_BOOTSTRAP, retainedGain, retainedGainEstimate, retainedGainNote, wilson } from './stats';

describe('passAtK', () => {
  it('matches hand-computed values', () => {
    // n=4, c=1: k=1 → 1/4; k=2 → 1 − C(3,2)/C(4,2) = 1 − 3/6; k=4 → 1
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 12);
    expect(passAtK(4, 1, 4)).toBe(1);
    // n=5, c=2, k=2: 1 − C(3,2)/C(5,2) = 1 − 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 5, 1)).toBe(1);
  });
  it('stays finite for large n', () => {
    expect(passAtK(1000, 1, 500)).toBeCloseTo(0.5, 12);
  });
  it('names bad arguments', () => {
    expect(() => passAtK(3, 4, 1)).toThrow(/0 ≤ c ≤ n/);
    expect(() => passAtK(3, 1, 4)).toThrow(/1 ≤ k ≤ n/);
  });
});

describe('wilson', () => {
  it('matches the closed form', () => {
    // 8/10: center (0.8 + 1.9208/10)/(1.38415) = 0.71668..., half = 1.96*sqrt(0.016 + 0.0096)/1.38415
    const w = wilson(8, 10);
    expect(w.rate).toBe(0.8);
    expect(w.lo).toBeCloseTo(0.4901625, 6);
    expect(w.hi).toBeCloseTo(0.9433178, 6);
    expect(wilson(0, 0)).toEqual({ rate: 0, lo: 0, hi: 1 });
    expect(wilson(0, 5).lo).toBe(0);
    expect(wilson(5, 5).hi).toBe(1);
  });
});

describe('mcnemar', () => {
  it('matches hand-computed values', () => {
    // b=1, c=6: P(X ≤ 1 | n=7) = 8/128; two-sided 0.125; chi² = (5−1)²/7
    const t = mcnemar(1, 6);
    expect(t.exactP).toBeCloseTo(0.125, 12);
    expect(t.chiSquare).toBeCloseTo(16 / 7, 12);
    // P(chi²₁ > 2.2857) = 0.1306 (tables)
    expect(t.chiSquareP).toBeCloseTo(0.1306, 3);
    expect(mcnemar(3, 3).exactP).toBe(1);
    expect(mcnemar(0, 0)).toEqual({ b: 0, c: 0, exactP: 1, chiSquare: 0, chiSquareP: 1 });
    // chi² = (|10−30|−1)²/40 = 9.025 → p = 0.00266
    expect(mcnemar(10, 30).chiSquareP).toBeCloseTo(0.00266, 4);
  });
});

describe('pairedDifference (Newcombe 1998, method 10)', () => {
  const pairs = (both: number, beforeOnly: number, afterOnly: number, neither: number): [boolean[], boolean[]] => {
    const before: boolean[] = [];
    const after: boolean[] = [];
    const add = (b: boolean, a: boolean, k: number) => {
      for (let i = 0; i < k; i++) [before.push(b), after.push(a)];
    };
    add(true, true, both);
    add(true, false, beforeOnly);
    add(false, true, afterOnly);
    add(false, false, neither);
    return [before, after];
  };

  it("reproduces the paper's worked example and an independent implementation", () => {
    // Newcombe's example (a, b, c, d) = (36, 12, 2, 0): θ = 0.2, interval 0.0569 to 0.3404
    const [before, after] = pairs(36, 2, 12, 0);
    const r = pairedDifference(before, after);
    expect(r.diff).toBeCloseTo(0.2, 12);
    expect(r.ci.lo).toBeCloseTo(0.0569296, 6);
    expect(r.ci.hi).toBeCloseTo(0.3404276, 6);
    expect(r.mcnemar).toMatchObject({ b: 2, c: 12 });
    // swapping the sides mirrors the interval
    const m = pairedDifference(after, before);
    expect(m.diff).toBeCloseTo(-0.2, 12);
    expect(m.ci.lo).toBeCloseTo(-0.3404276, 6);
    expect(m.ci.hi).toBeCloseTo(-0.0569296, 6);
  });

  it('handles no discordant pairs and empty input', () => {
    // all five right on both sides: φ undefined → 0; interval from the Wilson margins alone
    const r = pairedDifference(...pairs(5, 0, 0, 0));
    expect(r.diff).toBe(0);
    expect(r.ci.lo).toBeCloseTo(-0.4344825, 6);
    expect(r.ci.hi).toBeCloseTo(0.4344825, 6);
    expect(pairedDifference([], [])).toMatchObject({ n: 0, diff: 0, ci: { lo: -1, hi: 1 } });
    expect(() => pairedDifference([true], [])).toThrow(/as many pairs/);
  });
});

describe('formatP', () => {
  it('prints "< 0.001" below 0.001, never "0.000", and three decimals above', () => {
    expect(formatP(0)).toBe('< 0.001');
    expect(formatP(0.0004)).toBe('< 0.001');
    expect(formatP(0.001)).toBe('0.001');
    expect(formatP(0.04321)).toBe('0.043');
    expect(formatP(1)).toBe('1.000');
    expect(() => formatP(Number.NaN)).toThrow(/p-value in \[0, 1\]/);
  });
});

describe('holm', () => {
  it('matches the step-down adjustment worked by hand, in the order given', () => {
    // sorted 0.01, 0.02, 0.03, 0.5 (m = 4): 0.04, max(0.04, 0.06) = 0.06, max(0.06, 0.06) = 0.06, max(0.06, 0.5) = 0.5
    expect(holm([0.03, 0.5, 0.01, 0.02]).map((x) => +x.toFixed(12))).toEqual([0.06, 0.5, 0.04, 0.06]);
    expect(holm([0.4, 0.9])).toEqual([0.8, 0.9]);
    expect(holm([0.7])).toEqual([0.7]);
    expect(holm([])).toEqual([]);
    expect(holm([0.6, 0.6])).toEqual([1, 1]);
  });
});

describe('retained gain', () => {
  const outcomes = (rows: [number, number, number, number][]) =>
    rows.flatMap(([realized, reachable, selector, n]) => Array.from({ length: n }, () => ({ realized: !!realized, reachable: !!reachable, selector: !!selector })));
  it('is (selector − realized) / (reachable − realized), negative when the selector answers fewer than deployment', () => {
    expect(retainedGain(0.6, 0.5, 0.9)).toBeCloseTo(0.25, 12);
    expect(retainedGain(0.475, 0.72, 0.77)).toBeCloseTo(-4.9, 12);
    expect(retainedGain(0.5, 0.5, 0.5)).toBeNull();
    expect(retainedGain(0.5, 0.6, 0.4)).toBeNull();
  });
  it('gives a seeded paired bootstrap interval around a negative value, and a reason when there is no gain', () => {
    // 40 questions: 20 realized and reached, 10 reached only, 10 neither; the selector is right on 12
    const o = outcomes([[1, 1, 1, 12], [1, 1, 0, 8], [0, 1, 0, 10], [0, 0, 0, 10]]);
    const e = retainedGainEstimate(o);
    expect(e.value).toBeCloseTo((0.3 - 0.5) / (0.75 - 0.5), 12); // ceiling 75%: 10 questions beyond deployment
    expect(e.ci!.lo).toBeLessThan(e.value!);
    expect(e.ci!.hi).toBeGreaterThan(e.value!);
    expect(e.ci!.hi).toBeLessThan(0);
    expect([e.resamples, e.seed]).toEqual([RETAINED_GAIN_BOOTSTRAP.resamples, RETAINED_GAIN_BOOTSTRAP.seed]);
    expect(retainedGainEstimate(o)).toEqual(e); // seeded
    // the same questions listed in another order (as the app's store and the CLI list them) give the same interval
    expect(retainedGainEstimate([...o].reverse())).toEqual(e);
    expect(retainedGainEstimate([...o.slice(17), ...o.slice(0, 17)])).toEqual(e);
    const none = retainedGainEstimate(outcomes([[1, 1, 1, 5], [0, 0, 0, 5]]));
    expect([none.value, none.ci]).toEqual([null, null]);
    expect(none.reason).toMatch(/reaches no question that deployment misses/);
    // the probe reaches fewer questions than deployment realizes but 5 it misses: its gain is those 5, not "none"
    // (10 realized, 8 of them reached; 5 reached only; 5 neither; the selector right on 7 of the 8 and 1 of the 5)
    const fewer = retainedGainEstimate(outcomes([[1, 1, 1, 7], [1, 1, 0, 1], [1, 0, 0, 2], [0, 1, 1, 1], [0, 1, 0, 4], [0, 0, 0, 5]]));
    expect(fewer.value).toBeCloseTo((8 / 20 - 10 / 20) / (15 / 20 - 10 / 20), 12);
    expect(retainedGainNote(fewer.value, fewer.reason, { selector: 8, realized: 10, gained: 5 })).toBe(
      "below 0: the selector answers 8 questions correctly, 2 fewer than deployment's 10 — choosing blindly among the probe's attempts loses more realized questions than it wins of the 5 the probe reaches beyond deployment",
    );
    // a gain of 1 question of 200, against 90 realized questions lost, would read −9000%: not defined, with the reason
    const tiny = retainedGainEstimate(outcomes([[1, 1, 1, 90], [1, 1, 0, 90], [0, 1, 0, 1], [0, 0, 0, 19]]));
    expect([tiny.value, tiny.ci]).toEqual([null, null]);
    expect(tiny.reason).toBe('not defined: the probe reaches only 1 of the 200 questions that deployment misses (under 5%), a denominator too near zero to divide by');
    expect(retainedGainNote(tiny.value, tiny.reason, { selector: 90, realized: 180, gained: 1 })).toBe(tiny.reason);
    expect(retainedGainNote(null, none.reason, { selector: 5, realized: 5, gained: 0 })).toBe(none.reason);
    expect(retainedGainEstimate([]).reason).toBe('no questions');
  });
});

describe('bootstrapMean', () => {
  it('gives the mean with a seeded percentile interval around it, the same on every call', () => {
    const values = [...Array(30).fill(1), ...Array(10).fill(0), ...Array(10).fill(-1)];
    const a = bootstrapMean(values);
    expect(a.mean).toBeCloseTo(0.4, 12);
    expect(a.ci.lo).toBeLessThan(0.4);
    expect(a.ci.hi).toBeGreaterThan(0.4);
    expect(a.ci.lo).toBeGreaterThan(0.1); // 30 of 50 up, 10 down: the interval stays above 0
    expect(bootstrapMean(values)).toEqual(a);
    expect(bootstrapMean([...values].reverse())).toEqual(a); // order-free
    expect(bootstrapMean(Array(8).fill(0))).toEqual({ mean: 0, ci: { lo: 0, hi: 0 } });
  });
});

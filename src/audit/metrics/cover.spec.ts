// cover@τ from a record's attempts: the share correct within the budget against τ.

import { describe, expect, it } from 'vitest';
import { AuditError } from '../errors';
import { COVER_TAU, covered } from './cover';
import type { Attempt } from '../types';

const attempts = (correct: boolean[]): Attempt[] =>
  correct.map((c, index) => ({ index, route: [0, 1], silence: [], response: '', extracted: c ? 'g' : 'x', correct: c, meanLogprob: null }));

describe('covered (cover@τ)', () => {
  it('counts a question when at least a share τ of its attempts within the budget are right', () => {
    expect(COVER_TAU).toBe(0.5);
    expect(covered({ attempts: attempts([true, false, true, false]), budget: 4 })).toBe(true); // 2 of 4
    expect(covered({ attempts: attempts([true, false, false, false]), budget: 4 })).toBe(false); // one lucky attempt is reach, not cover
    expect(covered({ attempts: attempts([true, false, false, false]), budget: 4 }, 0.25)).toBe(true);
    // attempts past the budget are not judged; a probe that stopped early is judged on what it made
    expect(covered({ attempts: attempts([false, true, true, true]), budget: 2 })).toBe(true);
    expect(covered({ attempts: attempts([true, false, false]), budget: 8 })).toBe(false);
    expect(covered({ attempts: [], budget: 4 })).toBe(false);
  });

  it('refuses a τ outside (0, 1]', () => {
    expect(() => covered({ attempts: attempts([true]), budget: 1 }, 0)).toThrow(AuditError);
    expect(() => covered({ attempts: attempts([true]), budget: 1 }, 1.5)).toThrow(/0 < τ ≤ 1, got 1\.5/);
  });
});

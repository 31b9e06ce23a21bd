import { describe, expect, it } from 'vitest';
import { reachAtK } from './evaluate';

describe('reachAtK', () => {
  it('is the chance that k distinct draws out of n include a correct one', () => {
    expect(reachAtK(4, 0, 2)).toBe(0);
    expect(reachAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    // 2 correct of 4, draw 2: miss only when both draws are the 2 wrong ones: 1/C(4,2) = 1/6.
    expect(reachAtK(4, 2, 2)).toBeCloseTo(5 / 6, 12);
    expect(reachAtK(36, 1, 32)).toBeCloseTo(32 / 36, 12);
    expect(reachAtK(36, 5, 32)).toBe(1);
  });

  it('rejects impossible counts', () => {
    expect(() => reachAtK(4, 5, 2)).toThrow(/reachAtK/);
    expect(() => reachAtK(4, 1, 5)).toThrow(/reachAtK/);
  });
});

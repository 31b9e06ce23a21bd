import { describe, expect, it } from 'vitest';
import { passAtK, wilson } from './stats';

describe('wilson', () => {
  it('matches the closed form for 8/10', () => {
    // p = 0.8, z = 1.96: center = (0.8 + 0.19208) / 1.38416, half = 1.96·√(0.016 + 0.009604) / 1.38416
    const { lo, hi } = wilson(8, 10);
    expect(lo).toBeCloseTo(0.4902, 4);
    expect(hi).toBeCloseTo(0.9433, 4);
  });
  it('stays inside [0, 1] at the edges', () => {
    expect(wilson(0, 5).lo).toBe(0);
    expect(wilson(5, 5).hi).toBe(1);
    expect(wilson(0, 5).hi).toBeGreaterThan(0);
  });
  it('rejects impossible counts', () => {
    expect(() => wilson(3, 0)).toThrow(/n must be a positive integer/);
    expect(() => wilson(6, 5)).toThrow(/k must be an integer/);
  });
});

describe('passAtK', () => {
  it('equals 1 − C(n−c,k)/C(n,k)', () => {
    // n = 5, c = 2, k = 2: 1 − C(3,2)/C(5,2) = 1 − 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(10, 1, 1)).toBeCloseTo(0.1, 12);
  });
  it('is 1 once every k-subset must hold a success, 0 with none', () => {
    expect(passAtK(4, 3, 2)).toBe(1);
    expect(passAtK(8, 0, 8)).toBe(0);
  });
  it('rejects k outside [1, n]', () => {
    expect(() => passAtK(4, 1, 5)).toThrow(/k must be in/);
  });
});

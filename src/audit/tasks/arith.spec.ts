import { describe, expect, it } from 'vitest';
import { arithTarget, arithText, generateArith, splitOf } from './arith';

describe('built-in arithmetic', () => {
  it('is deterministic for a seed', () => {
    expect(generateArith('arith-2d', 'test', 10, 1)).toEqual(generateArith('arith-2d', 'test', 10, 1));
    expect(generateArith('arith-2d', 'test', 10, 1)).not.toEqual(generateArith('arith-2d', 'test', 10, 2));
  });
  it('keeps train and test disjoint and correct', () => {
    const train = generateArith('arith-2d', 'train', 2000, 5);
    const test = generateArith('arith-2d', 'test', 500, 5);
    const keys = new Set(train.map(arithText));
    for (const p of test) {
      expect(keys.has(arithText(p))).toBe(false);
      expect(splitOf(p)).toBe('test');
      expect(p.a).toBeGreaterThanOrEqual(10);
      expect(p.a).toBeLessThanOrEqual(99);
      expect(Number(arithTarget(p))).toBe(p.op === '+' ? p.a + p.b : p.a - p.b);
    }
    expect(test).toHaveLength(500);
  });
  it('formats question and target', () => {
    expect(arithText({ a: 12, b: 34, op: '+', answer: 46 })).toBe('12+34=');
    expect(arithTarget({ a: 3, b: 10, op: '-', answer: -7 })).toBe('-7');
  });
  it('names an unknown level', () => {
    expect(() => generateArith('arith-9d', 'test', 1, 1)).toThrow(/unknown arithmetic level "arith-9d"/);
  });
});

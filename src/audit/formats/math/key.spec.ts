import { describe, expect, it } from 'vitest';
import { extractMathAnswer, mathEquivalent, mathKey, normalizeMathGold } from './index';
import { fixtureCases } from './testing';

describe('mathKey', () => {
  it('equal keys imply equivalent answers, over every answer of the fixture', () => {
    const answers = [
      ...new Set(
        fixtureCases().flatMap((c) => {
          const out = [extractMathAnswer(c.response)];
          try {
            out.push(normalizeMathGold(c.gold));
          } catch {
            // a gold that reads as nothing has no key to test
          }
          return out.filter((a): a is string => a !== null);
        }),
      ),
    ];
    const byKey = new Map<string, string[]>();
    for (const a of answers) byKey.set(mathKey(a), [...(byKey.get(mathKey(a)) ?? []), a]);
    let shared = 0;
    for (const group of byKey.values())
      for (const a of group)
        for (const b of group) {
          if (a !== b) shared++;
          expect(mathEquivalent(a, b), `${a} ≡ ${b}`).toBe(true);
        }
    expect(shared).toBeGreaterThan(0);
  });

  it('keys numbers by value, tuples in order, sets and unions in any order', () => {
    expect(mathKey('\\frac{1}{2}')).toBe(mathKey('0.5'));
    expect(mathKey('-\\frac{10}{9}')).toBe(mathKey('-10/9'));
    expect(mathKey('(1, 2)')).not.toBe(mathKey('(2, 1)'));
    expect(mathKey('\\{1, 2\\}')).toBe(mathKey('\\{2, 1\\}'));
    expect(mathKey('[0,1) \\cup (2,3]')).toBe(mathKey('(2,3] \\cup [0,1)'));
    expect(mathKey('\\frac{1}{3}')).not.toBe(mathKey('0.333333'));
  });

  it('keys an unreadable answer by its own text', () => {
    expect(mathKey('\\zzz')).toBe('?\\zzz');
  });
});

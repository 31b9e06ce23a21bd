import { describe, expect, it } from 'vitest';
import { createPrng } from '../../util/prng';
import { INVALID } from './format';
import { MATH_VERSION } from './math/index';
import { answerKeyOf, FORMAT_NAMES, FORMATS, formatOf, gradedNow, graderVersionOf, isAnswerFormat, scoringFields } from './registry';

describe('the answer-format registry', () => {
  it('lists each format once with everything a format declares', () => {
    expect(FORMAT_NAMES).toEqual(['numeric', 'mc-letter', 'exact', 'math']);
    for (const f of FORMATS) {
      expect(formatOf(f.name)).toBe(f);
      expect(f.label.length).toBeGreaterThan(0);
      expect(Number.isInteger(f.version) && f.version >= 1).toBe(true);
      expect(f.promptTemplate).toContain('{{question}}');
      expect(f.maxNewTokens).toBeGreaterThan(0);
      expect(['generate', 'loglik']).toContain(f.scoring);
      expect(f.extract('', { gold: f.normalizeGold(f.name === 'mc-letter' ? 'A' : f.name === 'exact' ? 'x' : '1') })).toBe(INVALID);
    }
  });

  it('keeps version 3 for the first three formats and the library\'s own for math', () => {
    expect(FORMAT_NAMES.map(graderVersionOf)).toEqual([3, 3, 3, MATH_VERSION]);
    expect(gradedNow({ answerFormat: 'math', graderVersion: MATH_VERSION })).toBe(true);
    expect(gradedNow({ answerFormat: 'numeric', graderVersion: 2 })).toBe(false);
    expect(gradedNow({ answerFormat: 'roman' as never, graderVersion: 3 })).toBe(false);
  });

  it('names an unknown format and the known ones', () => {
    expect(isAnswerFormat('math')).toBe(true);
    expect(isAnswerFormat('roman')).toBe(false);
    expect(() => formatOf('roman')).toThrow('unknown answer format "roman" (known: numeric, mc-letter, exact, math)');
  });

  it('keys votes by the format only for conditions graded now', () => {
    const math = answerKeyOf({ answerFormat: 'math', graderVersion: MATH_VERSION });
    expect(math('\\frac12')).toBe(math('0.5'));
    expect(answerKeyOf(null)('\\frac12')).toBe('\\frac12');
    expect(answerKeyOf({ answerFormat: 'math', graderVersion: MATH_VERSION + 1 })('0.5')).toBe('0.5');
  });

  it('gives the log-likelihood mode only to a format scored over options', () => {
    expect(scoringFields('mc-letter')).toEqual({ mcMode: 'loglik' });
    expect(scoringFields('mc-letter', 'generate')).toEqual({ mcMode: 'generate' });
    expect(scoringFields('math')).toEqual({});
  });

  it('makes decoys that are never the gold, for every format that has them', () => {
    const rng = createPrng(3);
    const golds: Record<string, string[]> = { numeric: ['42', '-7/3', '2.5'], 'mc-letter': ['A', 'C'], exact: ['Paris'], math: ['\\frac{3}{4}', '2\\sqrt{5}', '[0, 1)'] };
    for (const f of FORMATS) {
      for (const g of golds[f.name]) {
        const gold = f.normalizeGold(g);
        const d = f.decoy(gold, undefined, (n) => rng.int(n));
        if (f.name === 'exact') expect(d).toBeNull();
        else expect(d !== null && !f.equal(gold, d), `${f.name} ${g} → ${d}`).toBe(true);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { extractExact, extractLetter, extractNumeric, grade, INVALID, normalizeGold, parseNumber } from './graders';

describe('numeric extraction', () => {
  const cases: [string, string][] = [
    ['46', '46'],
    ['46\n', '46'],
    ['The answer is 72.', '72'],
    ['First 3 then 4, so the answer is 12 apples. Check: 3*4', '12'],
    ['#### 72', '72'],
    ['so she earns 9 * 2 = $18 a day\n#### 18', '18'],
    ['Total: 1,234 dollars', '1234'],
    ['It is 1,234,567.', '1234567'],
    ['list 1,2,3', '3'],
    ['$1,000.50', '1000.5'],
    ['-7', '-7'],
    ['\u22127', '-7'],
    ['+5', '5'],
    ['12-5=7', '7'],
    ['10-3', '3'],
    ['x = -3', '-3'],
    ['3.50', '3.5'],
    ['3.0', '3'],
    ['0.50', '0.5'],
    ['1/2', '0.5'],
    ['2/4 of it', '0.5'],
    ['1/3', '1/3'],
    ['-6/4', '-1.5'],
    ['\\boxed{42}', '42'],
    ['we get 5 and 6, \\boxed{11} and then 3', '11'],
    ['\\boxed{\\frac{1}{2}}', '0.5'],
    ['\\boxed{x}', INVALID],
    ['no digits here', INVALID],
    ['', INVALID],
    ['1/0', INVALID],
    ['The answer is: -0.0', '0'],
  ];
  it.each(cases)('%j → %s', (response, want) => {
    expect(extractNumeric(response)).toBe(want);
  });

  it('parses whole numbers only when the whole string is one', () => {
    expect(parseNumber(' 1,234 ')).toBe('1234');
    expect(parseNumber('12 apples')).toBeNull();
    expect(parseNumber('1,23')).toBeNull();
  });

  const gold: [string, string][] = [
    ['72', '72'],
    ['Janet sells 16 - 3 - 4 = 9 duck eggs.\n#### 18', '18'],
    ['#### 1,600', '1600'],
    ['#### -3', '-3'],
    ['3.50', '3.5'],
  ];
  it.each(gold)('gold %j → %s', (g, want) => {
    expect(normalizeGold('numeric', g)).toBe(want);
  });
  it('names a gold answer without a number', () => {
    expect(() => normalizeGold('numeric', 'none')).toThrow(/numeric gold answer "none" holds no number/);
  });

  it('grades: equal values in different spellings are correct, invalid is wrong', () => {
    expect(grade('numeric', '#### 1,234', 'so 1234')).toEqual({ extracted: '1234', correct: true });
    expect(grade('numeric', '0.5', 'It is 1/2')).toEqual({ extracted: '0.5', correct: true });
    expect(grade('numeric', '3.5', 'The answer is 3.50.')).toEqual({ extracted: '3.5', correct: true });
    expect(grade('numeric', '-7', '7')).toEqual({ extracted: '7', correct: false });
    expect(grade('numeric', '5', 'five')).toEqual({ extracted: INVALID, correct: false });
  });
});

describe('multiple-choice letter extraction', () => {
  const cases: [string, number, string][] = [
    ['The answer is (B)', 4, 'B'],
    ['The answer is B because', 4, 'B'],
    ['B.', 4, 'B'],
    ['B) forty', 4, 'B'],
    ['(C)', 4, 'C'],
    ['answer: c', 4, 'C'],
    ['Answer: d.', 4, 'D'],
    ['c', 4, 'C'],
    ['  D  ', 4, 'D'],
    ['\\boxed{A}', 4, 'A'],
    ['I think (A) is wrong, so the answer is (C).', 4, 'C'],
    ['I think it is (B)', 4, 'B'],
    ['the answer is a bit unclear', 4, INVALID],
    ['E.', 4, INVALID],
    ['E.', 5, 'E'],
    ['The answer is (E)', 3, INVALID],
    ['I do not know', 4, INVALID],
    ['', 4, INVALID],
  ];
  it.each(cases)('%j with %d options → %s', (response, n, want) => {
    expect(extractLetter(response, n)).toBe(want);
  });

  it('falls back to an option text equal to the response', () => {
    expect(extractLetter('Paris.', 3, ['London', 'Paris', 'Rome'])).toBe('B');
    expect(extractLetter('Berlin', 3, ['London', 'Paris', 'Rome'])).toBe(INVALID);
  });

  it('grades against the gold letter in any spelling', () => {
    expect(grade('mc-letter', 'b', 'The answer is (B)', { choices: ['x', 'y', 'z'] })).toEqual({ extracted: 'B', correct: true });
    expect(grade('mc-letter', '(A)', 'B.')).toEqual({ extracted: 'B', correct: false });
    expect(() => grade('mc-letter', 'AB', 'A')).toThrow(/not a single letter/);
  });
});

describe('normalized exact match', () => {
  const cases: [string, string][] = [
    ['Paris', 'paris'],
    ['  Paris!  ', 'paris'],
    ['The answer is: New   York.', 'new york'],
    ['\n\nRome\nmore text', 'rome'],
    ['ＡＢＣ', 'abc'],
    ['...', INVALID],
    ['', INVALID],
  ];
  it.each(cases)('%j → %s', (response, want) => {
    expect(extractExact(response)).toBe(want);
  });
  it('grades', () => {
    expect(grade('exact', 'New York', 'new york.')).toEqual({ extracted: 'new york', correct: true });
    expect(grade('exact', 'New York', 'York')).toEqual({ extracted: 'york', correct: false });
    expect(() => grade('exact', '?!', 'x')).toThrow(/empty after normalization/);
  });
});

describe('real GSM8K golds', () => {
  const file = path.resolve(__dirname, '../../../shared/datasets/gsm8k-test-first100.jsonl');
  it.skipIf(!existsSync(file))(`every gold of the first 100 test rows parses (${existsSync(file) ? 'present' : 'skipped: ../shared/datasets absent'})`, () => {
    const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { answer: string });
    expect(rows).toHaveLength(100);
    for (const r of rows) {
      const g = normalizeGold('numeric', r.answer);
      expect(g).toMatch(/^-?\d+(\.\d+)?$/);
      // the full worked answer graded against its own gold is correct (the "####" rule)
      expect(grade('numeric', r.answer, r.answer).correct).toBe(true);
    }
  });
});

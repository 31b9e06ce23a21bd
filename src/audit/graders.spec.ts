import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { grade, INVALID, normalizeGold } from './graders';
import { exactFormat, extractExact } from './formats/exact';
import { extractLetter } from './formats/mc-letter';
import { extractNumeric, MAX_DIGITS, MAX_EXPONENT, parseNumber } from './formats/numeric';

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
    ['\\boxed{1{,}234}', '1234'],
    ['\\boxed{x}', INVALID],
    ['no digits here', INVALID],
    ['', INVALID],
    ['1/0', INVALID],
    ['The answer is: -0.0', '0'],
    // leading-dot decimals; a sentence-final period is not a decimal point
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['x=-.5', '-0.5'],
    ['It costs $.50 each', '0.5'],
    ['It is 5.', '5'],
    ['version 1.2.3', '1.2'],
    // after the last answer marker: the last number of its clause (ends at a newline or . ! ? not in a number)
    ['The answer is 2 + 3 = 5', '5'],
    ['The answer is 72. Next we check 5', '72'],
    ['The answer is 3.5 apples. Then 2', '3.5'],
    ['The answer is .5. Then 2', '0.5'],
    ['The answer is 1/2. Then 3', '0.5'],
    ['answer = 6 * 7 = 42\nthen 3', '42'],
    ['The answer is 7! It took 2 steps', '7'],
    ['The answer is:\n42', '42'],
    ['The answer is below.\n\n42', '42'],
    ['The answer is 18.\n\nQuestion: Tom has 3 apples', '18'],
    // lm-evaluation-harness GSM8K: strict-match "#### (\-?[0-9\.\,]+)" after ignoring "," "$" and a final "."
    ['#### 1,234', '1234'],
    ['#### -3', '-3'],
    ['#### 18.', '18'],
    ['#### $18', '18'],
    // gsm8k-cot strict-match "The answer is (\-?[0-9\.\,]+)."
    ['Weng earns 0.2 per minute. The answer is $10.', '10'],
    // flexible-extract: the last number in the response
    ['She makes 9 * 2 = $<<9*2=18>>18 every day.', '18'],
    ['so she pays $1,800.', '1800'],
    ['He has 18.00 left', '18'],
  ];
  it.each(cases)('%j → %s', (response, want) => {
    expect(extractNumeric(response)).toBe(want);
  });

  it('parses whole numbers only when the whole string is one', () => {
    expect(parseNumber(' 1,234 ')).toBe('1234');
    expect(parseNumber('.5')).toBe('0.5');
    expect(parseNumber('-.5')).toBe('-0.5');
    expect(parseNumber('$.50')).toBe('0.5');
    expect(parseNumber('1/2')).toBe('0.5');
    expect(parseNumber('12 apples')).toBeNull();
    expect(parseNumber('1,23')).toBeNull();
    expect(parseNumber('5.')).toBeNull();
    expect(parseNumber('.')).toBeNull();
    expect(parseNumber('$')).toBeNull();
  });

  it('reads an exponent: gold 1e3 is 1000, and a response of 1000 or 1e3 is graded right', () => {
    expect(normalizeGold('numeric', '1e3')).toBe('1000');
    expect(parseNumber('2.5E-2')).toBe('0.025');
    expect(parseNumber('-1.5e+2')).toBe('-150');
    expect(grade('numeric', '1e3', 'The answer is 1000').correct).toBe(true);
    expect(grade('numeric', '1e3', 'The answer is 1e3.').correct).toBe(true);
    expect(grade('numeric', '1000', 'The answer is 1e3x').extracted).toBe('1');
  });

  it('refuses an exponent beyond MAX_EXPONENT without expanding it', () => {
    expect(parseNumber(`1e${MAX_EXPONENT + 1}`)).toBeNull();
    expect(parseNumber('1e999999999')).toBeNull();
    expect(parseNumber(`1e${MAX_EXPONENT}`)).toBe(`1${'0'.repeat(MAX_EXPONENT)}`);
    expect(() => normalizeGold('numeric', '1e999999999')).toThrow(/holds no number/);
  });

  it('reads no number longer than MAX_DIGITS, so a 50 MB numeric response grades in moments', () => {
    expect(parseNumber('9'.repeat(MAX_DIGITS))).toBe('9'.repeat(MAX_DIGITS));
    expect(parseNumber('9'.repeat(MAX_DIGITS + 1))).toBeNull();
    expect(parseNumber(`1/${'3'.repeat(MAX_DIGITS + 1)}`)).toBeNull();
    const huge = '1'.repeat(50_000_000);
    const t = performance.now();
    expect(extractNumeric(`The answer is 42. ${huge}`)).toBe('42');
    expect(extractNumeric(huge)).toBe(INVALID);
    expect(grade('numeric', '42', huge).correct).toBe(false);
    expect(performance.now() - t).toBeLessThan(10_000);
  });

  const gold: [string, string][] = [
    ['72', '72'],
    ['Janet sells 16 - 3 - 4 = 9 duck eggs.\n#### 18', '18'],
    ['#### 1,600', '1600'],
    ['#### -3', '-3'],
    ['#### 18.', '18'],
    ['3.50', '3.5'],
    ['.5', '0.5'],
    ['1/2', '0.5'],
  ];
  it.each(gold)('gold %j → %s', (g, want) => {
    expect(normalizeGold('numeric', g)).toBe(want);
  });
  it('names a gold answer without a number', () => {
    expect(() => normalizeGold('numeric', 'none')).toThrow(/numeric gold answer "none" holds no number/);
  });

  it('grades: equal values in different spellings are correct, invalid is wrong', () => {
    expect(grade('numeric', '#### 1,234', 'so 1234')).toEqual({ extracted: '1234', correct: true });
    expect(grade('numeric', '3.5', 'The answer is 3.50.')).toEqual({ extracted: '3.5', correct: true });
    expect(grade('numeric', '-7', '7')).toEqual({ extracted: '7', correct: false });
    expect(grade('numeric', '5', 'five')).toEqual({ extracted: INVALID, correct: false });
  });

  it('grades fractions and decimals of the same value alike, in both directions', () => {
    expect(grade('numeric', '0.5', '1/2')).toEqual({ extracted: '0.5', correct: true });
    expect(grade('numeric', '1/2', '0.5')).toEqual({ extracted: '0.5', correct: true });
    expect(grade('numeric', '0.5', '.5')).toEqual({ extracted: '0.5', correct: true });
    expect(grade('numeric', '0.5', '\\frac{1}{2}')).toEqual({ extracted: '0.5', correct: true });
    expect(grade('numeric', '-0.75', '-3/4')).toEqual({ extracted: '-0.75', correct: true });
    expect(grade('numeric', '1/3', '2/6')).toEqual({ extracted: '1/3', correct: true });
    expect(grade('numeric', '1/3', '0.333')).toEqual({ extracted: '0.333', correct: false });
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
    ['\\boxed{\\text{(B)}}', 4, 'B'],
    ['I think (A) is wrong, so the answer is (C).', 4, 'C'],
    ['I think it is (B)', 4, 'B'],
    ['the answer is a bit unclear', 4, INVALID],
    ['E.', 4, INVALID],
    ['E.', 5, 'E'],
    ['The answer is (E)', 3, INVALID],
    ['I do not know', 4, INVALID],
    ['', 4, INVALID],
    // marker with "is" and ":", "option", parentheses
    ['The answer is: C) Paris', 4, 'C'],
    ['The answer is option C', 4, 'C'],
    ['The answer is option c', 4, 'C'],
    ['answer: (C)', 4, 'C'],
    ['The correct option is B.', 4, 'B'],
    // "option X"
    ['Option B', 4, 'B'],
    ['option b is right', 4, 'B'],
    ['It is option B, not option A', 4, 'B'],
    // a letter stated as correct wins; "not (X)" is skipped
    ['(D) is correct, not (A)', 4, 'D'],
    ['B is the correct answer, (A) is a trap', 4, 'B'],
    ['I first picked (A). Actually C is the right answer', 4, 'C'],
    ['Answer: B. Wait, D is correct.', 4, 'D'],
    ['Either (A) or (B), not (C)', 4, 'B'],
    ['It is not (C)', 4, INVALID],
    ['angle C is right', 4, INVALID],
    // lm-evaluation-harness generative MMLU/ARC/MMLU-Pro filters
    ['Step by step... The best answer is C.', 4, 'C'], // "best answer is ([A-Z])"
    ["Let's think step by step. So the answer is (B).", 4, 'B'], // flan CoT "answer is (X)"
    ['(A) fails, (D) holds', 4, 'D'], // MultiChoiceRegexFilter "(\([A-Z]\))", last match
    ['C. Paris is the capital', 4, 'C'], // "X." at the start
    ['Final choice: B', 4, 'B'], // fallback ":\s*(A|B|C|D)"
    ['Result: (C).', 4, 'C'],
    ['Note: A careful reading helps', 4, INVALID],
  ];
  it.each(cases)('%j with %d options → %s', (response, n, want) => {
    expect(extractLetter(response, n)).toBe(want);
  });

  it('falls back to an option text equal to, else uniquely inside, the response', () => {
    const cities = ['London', 'Paris', 'Rome'];
    expect(extractLetter('Paris.', 3, cities)).toBe('B');
    expect(extractLetter('I am sure the capital is Paris.', 3, cities)).toBe('B');
    expect(extractLetter('Paris or Rome', 3, cities)).toBe(INVALID);
    expect(extractLetter('Berlin', 3, cities)).toBe(INVALID);
    expect(extractLetter('It is 12', 3, ['2', '12', '3'])).toBe('B');
  });

  it('grades against the gold letter in any spelling', () => {
    expect(grade('mc-letter', 'b', 'The answer is (B)', { choices: ['x', 'y', 'z'] })).toEqual({ extracted: 'B', correct: true });
    expect(grade('mc-letter', '(A)', 'B.')).toEqual({ extracted: 'B', correct: false });
    expect(grade('mc-letter', 'D', '(D) is correct, not (A)', { choices: ['w', 'x', 'y', 'z'] })).toEqual({ extracted: 'D', correct: true });
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

describe('requireBoxed: only the last \\boxed{} counts', () => {
  const boxed = { requireBoxed: true };
  it('numeric: the last number inside the last box; no box is invalid', () => {
    expect(grade('numeric', '5', '\\boxed{5}', boxed)).toEqual({ extracted: '5', correct: true });
    expect(grade('numeric', '5', 'so \\boxed{2+3=5}', boxed)).toEqual({ extracted: '5', correct: true });
    expect(grade('numeric', '5', '\\boxed{3} no, \\boxed{5}', boxed)).toEqual({ extracted: '5', correct: true });
    expect(grade('numeric', '0.5', '\\boxed{\\frac{1}{2}}', boxed)).toEqual({ extracted: '0.5', correct: true });
    expect(grade('numeric', '5', 'The answer is 5.', boxed)).toEqual({ extracted: INVALID, correct: false });
    expect(grade('numeric', '5', '#### 5', boxed)).toEqual({ extracted: INVALID, correct: false });
    expect(grade('numeric', '5', 'so \\boxed{5', boxed)).toEqual({ extracted: INVALID, correct: false });
    expect(grade('numeric', '5', '\\boxed{five}', boxed)).toEqual({ extracted: INVALID, correct: false });
    // without the option the same unboxed response is read as usual
    expect(grade('numeric', '5', 'The answer is 5.')).toEqual({ extracted: '5', correct: true });
  });
  it('mc-letter: the letter inside the box', () => {
    const choices = ['w', 'x', 'y', 'z'];
    expect(grade('mc-letter', 'C', '\\boxed{C}', { choices, requireBoxed: true })).toEqual({ extracted: 'C', correct: true });
    expect(grade('mc-letter', 'C', '\\boxed{\\text{(C)}}', { choices, requireBoxed: true })).toEqual({ extracted: 'C', correct: true });
    expect(grade('mc-letter', 'C', '(C) is correct, \\boxed{B}', { choices, requireBoxed: true })).toEqual({ extracted: 'B', correct: false });
    expect(grade('mc-letter', 'C', 'The answer is (C)', { choices, requireBoxed: true })).toEqual({ extracted: INVALID, correct: false });
    expect(grade('mc-letter', 'C', '\\boxed{E}', { choices, requireBoxed: true })).toEqual({ extracted: INVALID, correct: false });
    expect(grade('mc-letter', 'C', '\\boxed{y}', { choices, requireBoxed: true })).toEqual({ extracted: INVALID, correct: false });
  });
  it('exact: the box text normalized', () => {
    expect(grade('exact', 'New York', 'It is \\boxed{\\text{New York}}.', boxed)).toEqual({ extracted: 'new york', correct: true });
    expect(grade('exact', 'New York', 'New York', boxed)).toEqual({ extracted: INVALID, correct: false });
    expect(exactFormat.extractBoxed('\\boxed{}', { gold: '' })).toBe(INVALID);
  });
});

describe('real GSM8K golds', () => {
  const file = path.resolve(__dirname, '../../../shared/datasets/gsm8k-test-first100.jsonl');
  it.skipIf(!existsSync(file))(`the first 100 test rows (${existsSync(file) ? 'present' : 'skipped: ../shared/datasets absent'})`, () => {
    const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { answer: string });
    expect(rows).toHaveLength(100);
    for (const r of rows) {
      // independent reading of the gold: the text after "####", commas stripped, through Number()
      const [body, after] = r.answer.split('####');
      const n = Number(after.trim().replace(/,/g, ''));
      expect(Number.isFinite(n)).toBe(true);
      const want = String(n);
      expect(normalizeGold('numeric', r.answer)).toBe(want);

      const right = [
        `The answer is ${n}.`,
        `${body.trim()}\nSo the answer is ${n}.`,
        `First we add, so she has ${n} apples.\n#### ${n}`,
        `She pays $${n.toLocaleString('en-US')}.`,
        `\\boxed{${n}}`,
      ];
      for (const response of right) expect(grade('numeric', r.answer, response), response).toEqual({ extracted: want, correct: true });
      expect(grade('numeric', r.answer, `\\boxed{${n}}`, { requireBoxed: true })).toEqual({ extracted: want, correct: true });

      const wrong = String(n + 1);
      expect(grade('numeric', r.answer, `${body.trim()}\nSo the answer is ${n + 1}.`)).toEqual({ extracted: wrong, correct: false });
      expect(grade('numeric', r.answer, `The answer is ${n + 1}.`)).toEqual({ extracted: wrong, correct: false });
      expect(grade('numeric', r.answer, `The answer is ${n}.`, { requireBoxed: true })).toEqual({ extracted: INVALID, correct: false });
    }
  });
});

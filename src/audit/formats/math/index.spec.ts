import { describe, expect, it } from 'vitest';
import { createPrng } from '../../../util/prng';
import { extractMathAnswer, gradeMath, mathDecoy, mathEquivalent, mathKey, normalizeMathGold } from './index';

describe('gradeMath: the issue\'s cases', () => {
  it('grades equivalent forms correct and a wrong box wrong', () => {
    expect(gradeMath('2\\sqrt{5}', 'so \\boxed{\\sqrt{20}}')).toEqual({ extracted: '\\sqrt{20}', correct: true });
    expect(gradeMath('(3, \\frac{\\pi}{2})', 'so \\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}').correct).toBe(true);
    expect(gradeMath('4', '\\boxed{3}')).toEqual({ extracted: '3', correct: false });
  });
});

describe('extractMathAnswer', () => {
  it('takes the last box, joined boxes as one list, and balanced braces', () => {
    expect(extractMathAnswer('first \\boxed{1} then \\boxed{\\frac{2}{3}}')).toBe('\\frac{2}{3}');
    expect(extractMathAnswer('The integers are \\boxed{-2} and \\boxed{1}.')).toBe('-2, 1');
    expect(extractMathAnswer('\\fbox{7}')).toBe('7');
  });
  it('prefers a box to later LaTeX, and "final answer is" to plain numbers', () => {
    expect(extractMathAnswer('so \\boxed{5}. Check: $5 = 5$ and 6')).toBe('5');
    expect(extractMathAnswer('Final Answer: The final answer is $28 \\%$. I hope it is correct. Then 3.')).toBe('28');
  });
  it('falls back to the last LaTeX span or plain number, whichever ends last', () => {
    expect(extractMathAnswer('We get $x = 2$ and so 7 apples')).toBe('7');
    expect(extractMathAnswer('So \\[ \\frac{1}{3} \\] is it')).toBe('\\frac{1}{3}');
    expect(extractMathAnswer('no answer here')).toBeNull();
    expect(extractMathAnswer('so it is 1,000.99m² in all')).toBe('1000.99');
    expect(extractMathAnswer('we count 1 000 of them')).toBe('1000');
    expect(extractMathAnswer('AZYUK2A')).toBeNull();
  });
  it('boxedOnly reads only the last box', () => {
    expect(extractMathAnswer('The answer is $4$', { boxedOnly: true })).toBeNull();
    expect(extractMathAnswer('$\\boxed{4}$ and $5$', { boxedOnly: true })).toBe('4');
  });
});

describe('normalisation', () => {
  const same = (gold: string, response: string) => expect(gradeMath(gold, response).correct, `${gold} vs ${response}`).toBe(true);
  it('reads fraction variants, malformed \\frac13 and \\sqrt3, spacing commands', () => {
    same('\\frac{1}{3}', '$\\dfrac{1}{3}$');
    same('\\frac{1}{3}', '$\\tfrac13$');
    same('\\frac{1}{3}', '$\\cfrac{1}{3}$');
    same('\\sqrt{3}', '$\\sqrt3$');
    same('1000', '$1\\!000$'.replace('\\!', '{,}'));
    same('\\frac{1}{2}', '$\\displaystyle \\frac{1}{2}$');
  });
  it('drops units, percent, degrees, thousands separators, "x =" and trailing punctuation', () => {
    same('15', '$\\boxed{15\\text{ cm}^2}$');
    same('28\\%', '$\\boxed{28 \\text{ percent}}$');
    same('90^\\circ', '$\\boxed{90^{\\circ}}$');
    same('90', '$\\boxed{90^\\circ}$');
    same('14916', '$\\boxed{14{,}916}$');
    same('12000023', 'The final answer is 12,000,023. I hope it is correct.');
    same('\\frac{1}{3}', '$k = \\frac{1}{3}.$');
    same('\\frac{10}{9}', 'Answer $ \\frac{1}{2} \\$ = \\frac{10}{9} $');
  });
  it('does not read 90° as π/2', () => {
    expect(gradeMath('\\frac{\\pi}{2}', '$\\boxed{90^\\circ}$').correct).toBe(false);
  });
});

describe('mathEquivalent', () => {
  const eq = (a: string, b: string) => mathEquivalent(normalizeMathGold(a), b);
  it('numbers: exact, or rounded to 6 decimal places when one is a decimal', () => {
    expect(eq('\\frac{1}{12}', '0.0833333333333333')).toBe(true);
    expect(eq('\\frac{1}{3}', '0.3333')).toBe(false);
    expect(eq('\\frac{1}{2}', '0.5')).toBe(true);
    expect(eq('2', '\\frac{1+\\sqrt{5}}{2}')).toBe(false);
    expect(eq('2^{100}', '2^{100}+1')).toBe(false);
    expect(eq('1267650600228229401496703205377', '2^{100}+1')).toBe(true);
    expect(eq('\\frac{3}{2}', '\\frac{6}{4}')).toBe(true);
  });
  it('radicals, π and expressions in variables', () => {
    expect(eq('\\frac{\\sqrt3}{2}', '\\frac12\\sqrt3')).toBe(true);
    expect(eq('\\frac{9}{4}\\pi', '\\frac94\\pi')).toBe(true);
    expect(eq('x^2+1', '1+x^2')).toBe(true);
    expect(eq('\\tan^2(y)+1', '\\sec^2(y)')).toBe(true);
    expect(eq('x+2n+1', 'x+1')).toBe(false);
  });
  it('tuples in order, sets in any order, intervals and unions', () => {
    expect(eq('(1, 2)', '(2, 1)')).toBe(false);
    expect(eq('\\{1, 2\\}', '\\{2, 1\\}')).toBe(true);
    expect(eq('[0,1)', '[0, 1)')).toBe(true);
    expect(eq('[0,1)', '(0,1)')).toBe(false);
    expect(eq('(-\\infty, -3] \\cup [2, \\infty)', '[2,\\infty) \\cup (-\\infty,-3]')).toBe(true);
    expect(eq('1 \\pm \\sqrt{19}', '1-\\sqrt{19}, 1+\\sqrt{19}')).toBe(true);
  });
  it('matrices, equations and inequalities', () => {
    expect(eq('\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}', '\\begin{bmatrix}1 & 2 \\\\ 3 & 4\\end{bmatrix}')).toBe(true);
    expect(eq('\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}', '\\begin{pmatrix}1 & 2 \\\\ 3 & 5\\end{pmatrix}')).toBe(false);
    expect(eq('\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}', '\\left[\\begin{array}{cc}1 & 2 \\\\ 3 & 4\\end{array}\\right]')).toBe(true);
    const sum = '\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}5 & 6 \\\\ 7 & 8\\end{pmatrix}';
    expect(eq('\\begin{pmatrix}6 & 8 \\\\ 10 & 12\\end{pmatrix}', sum)).toBe(true);
    expect(eq('\\begin{pmatrix}6 & 8 \\\\ 10 & 13\\end{pmatrix}', sum)).toBe(false);
    const id = '\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix}';
    expect(gradeMath(id, `When multiplying by identity: $${id} ${id}$`).correct).toBe(true);
    expect(gradeMath('\\begin{bmatrix}0 & 0 \\\\0 & 0\\end{bmatrix}', 'Here is a zero matrix: $ \\begin{pmatrix}0 & 0 \\\\0 & 0\\end{pmatrix} $').correct).toBe(true);
    expect(eq('\\begin{pmatrix}\\frac{1}{2} & 0.5\\end{pmatrix}', '\\begin{pmatrix}0.5 & \\frac{1}{2}\\end{pmatrix}')).toBe(true);
    expect(eq('2x+4y-3=0', 'y=-\\frac{1}{2}x+\\frac{3}{4}')).toBe(true);
    expect(eq('x \\leq 5', '5 \\geq x')).toBe(true);
    expect(eq('x < 1', 'x > -1')).toBe(false);
  });
  it('text answers', () => {
    expect(eq('\\text{Evelyn}', '\\text{evelyn}')).toBe(true);
    expect(eq('\\text{(C)}', 'C')).toBe(true);
    expect(eq('\\text{Evelyn}', '\\text{Briana}')).toBe(false);
  });
  it('never throws', () => {
    for (const s of ['', '\\frac{', '}}}', '\\begin{pmatrix}', '((((', '\\zzz', '1/0', '0^0'])
      expect(() => mathEquivalent('1', s)).not.toThrow();
  });
});

describe('bounded time', () => {
  const within = (ms: number, f: () => unknown) => {
    const t = performance.now();
    f();
    return performance.now() - t < ms;
  };
  it('refuses or grades wrong pathological responses quickly', () => {
    const deep = `\\boxed{${'{'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    expect(gradeMath('1', deep).correct).toBe(false);
    expect(gradeMath('1', 'x'.repeat(1_000_000))).toEqual({ extracted: null, correct: false });
    expect(gradeMath('1', '\\boxed{10^{10^{10}}}').correct).toBe(false);
    expect(gradeMath('1', '\\boxed{2^{2^{2^{2^{10}}}}}').correct).toBe(false);
    expect(within(2000, () => gradeMath('120', '\\boxed{99999!}'))).toBe(true);
    expect(within(2000, () => gradeMath('1', '\\boxed{\\sum_{n=1}^{1000000} n}'))).toBe(true);
  });
  it('scans responses full of unclosed delimiters or long LaTeX spans in linear time', () => {
    const n = 190_000;
    for (const r of ['\\['.repeat(n / 2), '\\('.repeat(n / 2), '$$' + 'x'.repeat(n), '\\boxed{'.repeat(n / 7), ('$' + 'x+'.repeat(248) + '\\zzz$ ').repeat(300)])
      expect(within(1000, () => gradeMath('1', r))).toBe(true);
  });
  it('reads no answer from over-long text given to mathEquivalent', () => {
    expect(within(1000, () => expect(mathEquivalent('1' + ' '.repeat(200_000), '1')).toBe(false))).toBe(true);
  });
});

describe('mathKey', () => {
  it('shares a key between equal numbers and keys sets order-free', () => {
    expect(mathKey('\\frac12')).toBe(mathKey('0.5'));
    expect(mathKey('\\{1,2\\}')).toBe(mathKey('\\{2,1\\}'));
    expect(mathKey('(1,2)')).not.toBe(mathKey('(2,1)'));
  });
});

describe('normalizeMathGold', () => {
  it('reads bare golds and solutions, and names an unreadable gold', () => {
    expect(normalizeMathGold('\\frac{14}{3}')).toBe('\\frac{14}{3}');
    expect(normalizeMathGold('so the sum is $\\boxed{7}$.')).toBe('7');
    expect(() => normalizeMathGold('')).toThrow(/math gold answer "" holds no readable answer/);
    expect(() => gradeMath('\\zzz{', '\\boxed{1}')).toThrow(/math gold answer "\\\\zzz\{" holds no readable answer/);
  });
});

describe('mathDecoy', () => {
  it('is wrong, of the gold\'s kind, and fixed by the seed', () => {
    const rng = () => createPrng(7);
    const d = mathDecoy('(3, \\frac{\\pi}{2})', rng().int);
    expect(d).not.toBeNull();
    expect(mathEquivalent('(3, \\frac{\\pi}{2})', d as string)).toBe(false);
    expect(mathDecoy('(3, \\frac{\\pi}{2})', rng().int)).toBe(d);
    expect(mathDecoy('\\text{Evelyn}', rng().int)).toBeNull();
  });
});

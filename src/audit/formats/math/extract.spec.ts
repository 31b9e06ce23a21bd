import { describe, expect, it } from 'vitest';
import { boxGroups, candidates, latexSpans } from './extract';
import { MAX_CANDIDATES, MAX_RESPONSE_CHARS } from './limits';

describe('latexSpans', () => {
  it('finds inline and display spans; inline ones stay on one line', () => {
    const s = 'a $1$ b \\(2\\) c $$3$$ d \\[\n4\n\\] e $\n5\n$';
    expect(latexSpans(s).map((x) => x.text.trim())).toEqual(['1', '2', '3', '4']);
  });
  it('skips a dollar after a digit or backslash, and finds bare fractions outside spans', () => {
    expect(latexSpans('costs 5$ and \\$3 then \\frac{1}{2}').map((x) => x.text)).toEqual(['\\frac{1}{2}']);
    expect(latexSpans('$\\frac{1}{2}$').length).toBe(1);
  });
});

describe('boxGroups', () => {
  it('reads balanced braces and joins boxes separated by "and", commas or nothing', () => {
    expect(boxGroups('\\boxed{\\frac{1}{2}}').map((b) => b.text)).toEqual(['\\frac{1}{2}']);
    expect(boxGroups('\\boxed{-2} and \\boxed{1}').map((b) => b.text)).toEqual(['-2, 1']);
    expect(boxGroups('$\\boxed{1}\\boxed{2}$').map((b) => b.text)).toEqual(['1, 2']);
    expect(boxGroups('\\boxed{1} so then \\boxed{2}').map((b) => b.text)).toEqual(['1', '2']);
    expect(boxGroups('\\boxed{1')).toEqual([]);
  });
});

describe('candidates', () => {
  it('orders rules by priority and candidates by end, last first', () => {
    const s = '\\boxed{1} text \\boxed{2}. The answer is 3 and then $4$';
    const groups = candidates(s);
    expect(groups[0].map((c) => c.text)).toEqual(['2', '1']);
    // "answer … X": the LaTeX span and the number within 50 characters both count; $4$ ends last
    expect(groups[3].map((c) => c.text)).toEqual(['4', '3']);
    // the span $4$ ends after the number 4 inside it
    expect(groups[4].map((c) => [c.text, c.end])).toEqual([
      ['4', s.length],
      ['4', s.length - 1],
      ['3', s.indexOf('3') + 1],
      ['2', s.indexOf('2') + 1],
      ['1', s.indexOf('1') + 1],
    ]);
  });
  it('reads "final answer is X. I hope" at the first priority', () => {
    expect(candidates('Final Answer: The final answer is $7$. I hope it is correct.')[0].map((c) => c.text)).toEqual(['7']);
  });
  it('keeps at most MAX_CANDIDATES per rule and refuses over-long responses', () => {
    expect(candidates('1 '.repeat(100))[4].length).toBe(MAX_CANDIDATES);
    expect(candidates('1'.repeat(MAX_RESPONSE_CHARS + 1))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { normalizeLatex } from './normalize';

describe('normalizeLatex', () => {
  it.each([
    ['\\dfrac{1}{2}', '\\frac{1}{2}'],
    ['\\tfrac12', '\\frac{1}{2}'],
    ['\\frac3{4}', '\\frac{3}{4}'],
    ['\\sqrt3', '\\sqrt{3}'],
    ['\\left( 3, \\frac{\\pi}{2} \\right)', '( 3, \\frac{\\pi}{2} )'],
    ['\\displaystyle x', 'x'],
    ['1{,}000', '1000'],
    ['16,\\!386.20', '16386.20'],
    ['10\\!000', '10 000'],
    ['90^\\circ', '90'],
    ['90^{\\circ}', '90'],
    ['28\\%', '28'],
    ['\\$5', '5'],
    ['15\\text{ cm}^2', '15'],
    ['125\\textnormal{ miles}', '125'],
    ['28 percent', '28'],
    ['12\\text{ and }13', '12,13'],
    ['x \\ge 5', 'x \\geq 5'],
    ['x >= 5', 'x \\geq 5'],
    ['x != 5', 'x \\neq 5'],
    ['\\frac{1}{3}.', '\\frac{1}{3}'],
    ['1, 2, 3, ...', '1, 2, 3, ...'],
    ['5!', '5!'],
  ])('%s → %s', (input, out) => {
    expect(normalizeLatex(input)).toBe(out);
  });
  it('keeps a text answer standing alone', () => {
    expect(normalizeLatex('\\text{Evelyn}')).toBe('\\text{Evelyn}');
  });
  it('is idempotent', () => {
    for (const s of ['\\dfrac12 \\text{ cm}', '\\left[0, 1\\right)', '14{,}916.', 'x \\le 2'])
      expect(normalizeLatex(normalizeLatex(s))).toBe(normalizeLatex(s));
  });
});

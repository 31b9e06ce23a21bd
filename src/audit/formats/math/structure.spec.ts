import { describe, expect, it } from 'vitest';
import { MAX_NESTING, MAX_NUMBER_DIGITS } from './limits';
import { parseStructure, refusal } from './structure';

const kind = (s: string) => parseStructure(s)?.kind ?? null;

describe('parseStructure', () => {
  it('reads intervals before the library can (it reads "[0,1)" its own way)', () => {
    expect(parseStructure('[0,1)')).toEqual({ kind: 'interval', lo: { kind: 'expr', tex: '0' }, hi: { kind: 'expr', tex: '1' }, loClosed: true, hiClosed: false });
    expect(kind('(0,1]')).toBe('interval');
    expect(kind('(0,1)')).toBe('tuple');
  });
  it('reads sets, bare lists, unions, ± and ratios', () => {
    expect(kind('\\{1,2\\}')).toBe('set');
    expect(kind('1, 2')).toBe('set');
    expect(kind('\\{\\}')).toBe('set');
    expect(kind('[0,1) \\cup (2,3]')).toBe('union');
    expect(parseStructure('1 \\pm \\sqrt{2}')).toEqual({ kind: 'set', items: [{ kind: 'expr', tex: '1+\\sqrt{2}' }, { kind: 'expr', tex: '1-\\sqrt{2}' }] });
    expect(kind('12:00')).toBe('tuple');
  });
  it('reads a definition with a constant value as the value, other equations as relations', () => {
    expect(parseStructure('x = 11')).toEqual({ kind: 'expr', tex: '11' });
    expect(parseStructure('x = 5+5+1 = 7 = 11')).toEqual({ kind: 'expr', tex: '11' });
    expect(parseStructure('x = \\frac{1}{3} \\approx 0.33')).toEqual({ kind: 'expr', tex: '\\frac{1}{3}' });
    expect(kind('y = 2x+1')).toBe('relation');
    expect(kind('7 = 11a+c')).toBe('relation');
    expect(kind('x \\leq 5')).toBe('relation');
    expect(kind('x \\in [0,1)')).toBe('interval');
  });
  it('reads matrices cell by cell, and text', () => {
    const m = parseStructure('\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}');
    expect(m?.kind === 'matrix' && m.rows.length).toBe(2);
    expect(parseStructure('\\text{(C)}')).toEqual({ kind: 'text', text: 'c' });
  });
  it('refuses answers beyond the limits', () => {
    expect(refusal('('.repeat(MAX_NESTING + 1))).toMatch(/nested deeper/);
    expect(refusal('1'.repeat(MAX_NUMBER_DIGITS + 1))).toMatch(/digits/);
    expect(refusal('2^{2^{2^{2}}}')).toMatch(/exponents/);
    expect(refusal('5000!')).toMatch(/factorial/);
    expect(refusal('2^{10}')).toBeNull();
    expect(parseStructure('')).toBeNull();
  });
});

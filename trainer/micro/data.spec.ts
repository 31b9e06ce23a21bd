import { describe, expect, it } from 'vitest';
import { makeBatch, problemIds } from './data';
import { EOS_ID, decodeChars, encodeChars } from './vocab';

describe('makeBatch', () => {
  it('shifts targets by one, pads with eos and weights only the answer and its eos', () => {
    const p1 = { a: 12, b: 34, op: '+' as const, answer: 46 }; // "12+34=46" + eos: 9 tokens
    const p2 = { a: 99, b: 99, op: '+' as const, answer: 198 }; // "99+99=198" + eos: 10 tokens
    const b = makeBatch([p1, p2]);
    expect([b.B, b.T]).toEqual([2, 9]);
    const row = (xs: ArrayLike<number>, r: number) => Array.from(xs).slice(r * b.T, (r + 1) * b.T);
    expect(row(b.inputs, 0)).toEqual([...encodeChars('12+34=46'), EOS_ID]);
    expect(row(b.targets, 0)).toEqual([...encodeChars('2+34=46'), EOS_ID, EOS_ID]);
    expect(row(b.weights, 0)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 0]); // targets "4", "6", eos
    expect(row(b.inputs, 1)).toEqual(encodeChars('99+99=198'));
    expect(row(b.targets, 1)).toEqual([...encodeChars('9+99=198'), EOS_ID]);
    expect(row(b.weights, 1)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it('encodes negative answers with their sign', () => {
    const { prompt, answer } = problemIds({ a: 12, b: 34, op: '-', answer: -22 });
    expect(decodeChars(prompt)).toBe('12-34=');
    expect(answer).toEqual([...encodeChars('-22'), EOS_ID]);
  });

  it('rejects an empty batch and characters outside the vocabulary', () => {
    expect(() => makeBatch([])).toThrow(/no problems/);
    expect(() => encodeChars('1a')).toThrow(/"a" is not in the vocabulary/);
  });
});

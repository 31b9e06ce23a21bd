import { describe, expect, it } from 'vitest';
import { createPrng, shuffled } from './prng';

describe('prng', () => {
  it('is deterministic per seed and stream', () => {
    const a = createPrng(42), b = createPrng(42), c = createPrng(42, 1);
    const xa = Array.from({ length: 5 }, () => a.nextU32());
    const xb = Array.from({ length: 5 }, () => b.nextU32());
    const xc = Array.from({ length: 5 }, () => c.nextU32());
    expect(xa).toEqual(xb);
    expect(xa).not.toEqual(xc);
  });
  it('pins the first outputs of seed 1 (changing them breaks stored seeds)', () => {
    const r = createPrng(1);
    const first = Array.from({ length: 3 }, () => r.nextU32());
    // Recorded once from this implementation; any change to the algorithm must be deliberate.
    expect(first).toMatchInlineSnapshot(`
      [
        2442144158,
        3238099751,
        3819917871,
      ]
    `);
  });
  it('draws uniform-looking integers in range', () => {
    const r = createPrng(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40000; i++) counts[r.int(4)]++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(400);
    expect(() => r.int(0)).toThrow(/positive integer/);
  });
  it('shuffles a copy with every element kept', () => {
    const xs = [1, 2, 3, 4, 5, 6];
    const s = shuffled(xs, createPrng(3));
    expect(s.slice().sort()).toEqual(xs);
    expect(xs).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

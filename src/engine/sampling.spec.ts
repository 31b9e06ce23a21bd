import { describe, expect, it } from 'vitest';
import { argmax, checkFinite, createSampler, logSoftmaxAt, sampleTopP, validateSampling } from './sampling.ts';
import { createPrng } from '../util/prng.ts';

describe('sampling', () => {
  it('greedy takes the lowest id among tied maxima', () => {
    expect(argmax([1, 3, 3, 2])).toBe(1);
    expect(createSampler({ kind: 'greedy' })(Float32Array.of(0, 5, 5))).toBe(1);
  });

  it('log-softmax is normalized', () => {
    const l = Float32Array.of(1, 2, 3, -1);
    const total = [0, 1, 2, 3].reduce((s, i) => s + Math.exp(logSoftmaxAt(l, i)), 0);
    expect(total).toBeCloseTo(1, 12);
  });

  it('draws from softmax(logits / T) at the rates it gives', () => {
    const logits = Float32Array.of(0, Math.log(2), Math.log(3), Math.log(4)); // p = 0.1, 0.2, 0.3, 0.4
    const rng = createPrng(5);
    const counts = [0, 0, 0, 0];
    const n = 20000;
    for (let i = 0; i < n; i++) counts[sampleTopP(logits, 1, 1, rng)]++;
    [0.1, 0.2, 0.3, 0.4].forEach((p, i) => expect(Math.abs(counts[i] / n - p)).toBeLessThan(0.015));
  });

  it('keeps the smallest prefix reaching topP and never draws outside it', () => {
    const logits = Float32Array.of(0, Math.log(2), Math.log(3), Math.log(4)); // sorted: 3 (0.4), 2 (0.3), 1, 0
    const rng = createPrng(9);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(sampleTopP(logits, 1, 0.7, rng));
    expect([...seen].sort()).toEqual([2, 3]);
    expect(sampleTopP(logits, 1, 1e-6, rng)).toBe(3);
  });

  it('a low temperature concentrates on the argmax', () => {
    const rng = createPrng(1);
    for (let i = 0; i < 50; i++) expect(sampleTopP(Float32Array.of(1, 1.5, 0.5), 0.01, 0.95, rng)).toBe(1);
  });

  it('one seed gives one token stream', () => {
    const logits = Float32Array.from({ length: 50 }, (_, i) => Math.sin(i));
    const draw = (seed: number) => {
      const s = createSampler({ kind: 'sample', temperature: 0.8, topP: 0.9, seed });
      return Array.from({ length: 20 }, () => s(logits));
    };
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
  });

  it('refuses non-finite logits and bad sampling settings', () => {
    expect(() => checkFinite(Float32Array.of(0, NaN), 'row 2, step 1')).toThrow(/row 2, step 1: logit of token 1 is NaN/);
    expect(() => checkFinite(Float32Array.of(Infinity), 'x')).toThrow(expect.objectContaining({ code: 'nan-logits' }));
    expect(() => validateSampling({ kind: 'sample', temperature: 0, topP: 0.9, seed: 1 }, 'row 0')).toThrow(/temperature/);
    expect(() => validateSampling({ kind: 'sample', temperature: 1, topP: 1.5, seed: 1 }, 'row 0')).toThrow(/topP/);
  });
});

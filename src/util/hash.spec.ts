import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from './hash';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 0 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":0,"z":1}]},"b":1}');
  });
  it('refuses non-finite numbers', () => {
    expect(() => canonicalJson({ x: NaN })).toThrow(/non-finite/);
  });
});

describe('sha256Hex', () => {
  it('matches the known digest of "abc"', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

import { describe, expect, it } from 'vitest';
import { DEFINITIONS, definitionOf, plainDefinition } from './definitions';

describe('definitions', () => {
  it('names each term once', () => {
    expect(new Set(DEFINITIONS.map((d) => d.term)).size).toBe(DEFINITIONS.length);
  });

  it('drops the references to the code for screens, keeping the rest of the sentence', () => {
    expect(definitionOf('realized')).toBe("Share of questions whose deployment attempt (default route, no silencing, the condition's decoding) is correct.");
    expect(definitionOf('ceiling Δ beyond the decoy')).toMatch(/^Per question, .*\(\d+ resamples, seed \d+\)\. A distinguishable/);
    for (const d of DEFINITIONS) {
      const plain = plainDefinition(d);
      expect(plain, d.term).not.toMatch(/\.ts\b|\(\s*\)|\s[.,;]/);
      expect(plain.length, d.term).toBeGreaterThan(20);
    }
  });

  it('refuses a term it does not define', () => {
    expect(() => definitionOf('reach rate')).toThrow('no definition of "reach rate"');
  });
});

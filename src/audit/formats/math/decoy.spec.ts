import { describe, expect, it } from 'vitest';
import { createPrng } from '../../../util/prng';
import { readAnswer } from './answer';
import { mathDecoy, mathEquivalent, normalizeMathGold } from './index';
import { fixtureCases } from './testing';

const golds = [...new Set(fixtureCases().map((c) => c.gold))];

describe('mathDecoy over the conformance golds', () => {
  it('makes decoys that are never equivalent to their gold and keep its kind', () => {
    let made = 0;
    for (const [i, raw] of golds.entries()) {
      const gold = normalizeMathGold(raw);
      for (let seed = 1; seed <= 5; seed++) {
        const d = mathDecoy(raw, createPrng(seed, i).int);
        if (d === null) continue;
        made++;
        expect(mathEquivalent(gold, d), `${gold} vs decoy ${d}`).toBe(false);
        expect(readAnswer(d)?.node.kind, `${gold} vs decoy ${d}`).toBe(readAnswer(gold)?.node.kind);
      }
    }
    // most golds hold a number to move; the text golds (\text{C}, \text{E}) and a few others do not
    expect(made).toBeGreaterThan(golds.length * 5 * 0.8);
  });

  it('gives null for a gold with no number or no readable answer', () => {
    expect(mathDecoy('\\text{Evelyn}', createPrng(1).int)).toBeNull();
    expect(mathDecoy('', createPrng(1).int)).toBeNull();
  });

  it('moves a number by a whole offset and keeps it non-negative', () => {
    const d = mathDecoy('0', createPrng(3).int);
    expect(d).toMatch(/^[123]$/);
  });
});

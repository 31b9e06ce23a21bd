import { describe, expect, it } from 'vitest';
import { presetById, presetLabel } from './presets';

describe('a protocol label with the chosen budget', () => {
  it('says the budget set, not the protocol’s, once it is changed', () => {
    expect(presetLabel(presetById('uniform-routes'), 16)).toBe("Random routes (budget 16 distinct routes; the protocol's is 100)");
    expect(presetLabel(presetById('sampling-ceiling'), 16)).toBe("Sampling ceiling (pass@16, T = 0.6; the protocol's is 64)");
    expect(presetLabel(presetById('cola-mcts'), 40)).toBe("CoLa MCTS, as released (budget 40 distinct routes; the protocol's is 100)");
  });

  it('is the protocol’s own label at its own budget, or without one', () => {
    expect(presetLabel(presetById('uniform-routes'), 100)).toBe('Random routes (budget 100 distinct routes)');
    expect(presetLabel(presetById('silencing-scan'), null)).toBe('MLP-silencing scan (every layer)');
  });
});

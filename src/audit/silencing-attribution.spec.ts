import { describe, expect, it } from 'vitest';
import { meanMlpAttribution } from './silencing-attribution';

/** A read-out's attribution: one point per route position, only `mlp` read here. */
const readout = (route: number[], mlp: number[]) => ({ attribution: route.map((layer, position) => ({ position, layer, attn: 99, mlp: mlp[position] })) });

describe('mean MLP attribution over the failure set', () => {
  it('averages each layer over the questions that ran it, a repeated layer summed within its question', () => {
    const rows = meanMlpAttribution(
      [
        readout([0, 1, 2], [0.5, -2, 1]),
        readout([0, 1, 2], [1.5, -1, 0]),
        readout([0, 1, 1, 2], [1, -0.5, -0.5, 2]), // layer 1 twice: −1 for this question
      ],
      [0, 1, 2, 3],
    );
    expect(rows).toEqual([
      { layer: 0, mean: 1, n: 3 },
      { layer: 1, mean: -4 / 3, n: 3 },
      { layer: 2, mean: 1, n: 3 },
      { layer: 3, mean: null, n: 0 }, // never ran: no mean, never 0
    ]);
  });

  it('a layer skipped by one question is averaged over the others; no read-outs give no means', () => {
    expect(meanMlpAttribution([readout([0, 1], [2, 4]), readout([1], [-2])], [0, 1])).toEqual([
      { layer: 0, mean: 2, n: 1 },
      { layer: 1, mean: 1, n: 2 },
    ]);
    expect(meanMlpAttribution([], [0])).toEqual([{ layer: 0, mean: null, n: 0 }]);
  });
});

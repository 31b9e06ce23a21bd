import { describe, expect, it } from 'vitest';
import { blocksSpace, neighborhoodSpace } from '../routes';
import { colaSpace } from './cola-mcts';
import { DEFAULT_PROBE_CHOICE } from './choice';
import { routeSpaceInWords, routeSpaceOf, SPACE_NAMES } from './route-spaces';

describe('the route spaces a choice names', () => {
  it('builds each space from the choice as the CLI always has', () => {
    expect(SPACE_NAMES).toEqual(['blocks', 'neighborhood', 'cola']);
    expect(routeSpaceOf(DEFAULT_PROBE_CHOICE, 12)).toEqual(blocksSpace(12, { maxBlock: 4 }));
    expect(routeSpaceOf({ ...DEFAULT_PROBE_CHOICE, maxEdits: 3, minLen: 10, maxLen: 14 }, 12)).toEqual(blocksSpace(12, { maxBlock: 4, maxEdits: 3, minLen: 10, maxLen: 14 }));
    expect(routeSpaceOf({ ...DEFAULT_PROBE_CHOICE, space: 'neighborhood' }, 12)).toEqual(neighborhoodSpace(12, 2, 3));
    expect(routeSpaceOf({ ...DEFAULT_PROBE_CHOICE, space: 'neighborhood', radius: 1, maxEdits: 2 }, 12)).toEqual(neighborhoodSpace(12, 1, 2));
    expect(routeSpaceOf({ ...DEFAULT_PROBE_CHOICE, space: 'cola', radius: 1 }, 12)).toEqual(colaSpace(12));
  });

  it('says a space in words', () => {
    expect(routeSpaceInWords(blocksSpace(12))).toBe('blocks of 1–4 layers skipped or repeated, at most 2 edits, routes of 4–20 layers');
    expect(routeSpaceInWords(neighborhoodSpace(12))).toBe('each position runs a layer within ±2 of its own, at most 3 positions changed');
    expect(routeSpaceInWords(colaSpace(12))).toMatch(/^CoLa's routes: .* routes of \d+–\d+ layers$/);
  });
});

import { describe, expect, it } from 'vitest';
import { blockRoutes, defaultRoute } from './routes';

describe('blockRoutes', () => {
  it('lists every skip and repeat of a contiguous block, once each', () => {
    const routes = blockRoutes(3, 2);
    expect(routes).toEqual([
      [1, 2], [0, 2], [0, 1], // skip one layer
      [2], [0], // skip two layers
      [0, 0, 1, 2], [0, 1, 1, 2], [0, 1, 2, 2], // repeat one layer
      [0, 1, 0, 1, 2], [0, 1, 2, 1, 2], // repeat two layers
    ]);
  });

  it('never yields the default route, a reordering, or a layer three times', () => {
    const L = 6;
    const routes = blockRoutes(L, 4);
    expect(routes).toHaveLength(2 * (6 + 5 + 4 + 3));
    const keys = new Set(routes.map((r) => r.join(',')));
    expect(keys.size).toBe(routes.length);
    expect(keys.has(defaultRoute(L).join(','))).toBe(false);
    for (const r of routes) {
      const counts = new Map<number, number>();
      for (const l of r) counts.set(l, (counts.get(l) ?? 0) + 1);
      expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
    }
  });

  it('rejects bad sizes', () => {
    expect(() => blockRoutes(0, 2)).toThrow(/numLayers/);
    expect(() => blockRoutes(4, 0)).toThrow(/maxBlock/);
  });
});

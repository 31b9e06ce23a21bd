import { describe, expect, it } from 'vitest';
import { enumerateRoutes } from '../../src/audit/routes';
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

  it('is the audit\'s default blocks space (one edit, blocks of 1–4, length L ± 4) for the micro model', () => {
    const L = 6;
    const audit = enumerateRoutes({ kind: 'blocks', numLayers: L, minLen: L - 4, maxLen: L + 4, maxBlock: 4, maxEdits: 1 });
    expect(blockRoutes(L, 4).map((r) => r.join(',')).sort()).toEqual(audit.map((r) => r.join(',')).sort());
  });
});

import { describe, expect, it } from 'vitest';
import { describeRoute, routeCells } from './route-strip';

const kinds = (route: number[], L: number) => routeCells(route, L).map((c) => `${c.layer}${c.kind[0]}`).join(' ');

describe('routeCells', () => {
  it('shows the default route as plain runs', () => {
    expect(kinds([0, 1, 2, 3], 4)).toBe('0r 1r 2r 3r');
  });
  it('shows a skipped block where it would have run', () => {
    expect(kinds([0, 1, 4, 5], 6)).toBe('0r 1r 2s 3s 4r 5r');
    expect(kinds([0, 1, 2], 5)).toBe('0r 1r 2r 3s 4s');
  });
  it('marks a repeated block', () => {
    expect(routeCells([0, 1, 2, 1, 2, 3], 4).map((c) => c.kind)).toEqual(['run', 'run', 'run', 'repeat', 'repeat', 'run']);
  });
  it('marks layers reached out of order as moved', () => {
    expect(kinds([0, 2, 1, 3], 4)).toBe('0r 2m 1m 3r');
  });
  it('rejects empty routes and layers out of range', () => {
    expect(() => routeCells([], 4)).toThrow(/non-empty/);
    expect(() => routeCells([0, 4], 4)).toThrow(/layer 4 outside \[0, 4\)/);
  });
});

describe('describeRoute', () => {
  it('spells skips, repeats and moves', () => {
    expect(describeRoute(routeCells([0, 1, 4, 4, 5], 6))).toBe('0 1 (skip 2 3) 4 4↺ 5');
    expect(describeRoute(routeCells([0, 2, 1], 3))).toBe('0 2* 1*');
  });
});

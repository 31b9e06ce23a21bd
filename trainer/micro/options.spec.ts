import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, parseOptions } from './options';

describe('parseOptions', () => {
  it('keeps defaults and applies --name=value overrides with their types', () => {
    expect(parseOptions([])).toEqual(DEFAULT_OPTIONS);
    const o = parseOptions(['--steps=10', '--lr=0.01', '--out=/tmp/x', '--backend=cpu']);
    expect([o.steps, o.lr, o.out, o.backend]).toEqual([10, 0.01, '/tmp/x', 'cpu']);
  });

  it('trains the shipped model on the default route only (no route augmentation)', () => {
    expect(DEFAULT_OPTIONS.routeProb).toBe(0);
    expect(parseOptions(['--routeProb=0.25']).routeProb).toBe(0.25);
  });

  it('names what is wrong', () => {
    expect(() => parseOptions(['--stpes=10'])).toThrow(/unknown option --stpes/);
    expect(() => parseOptions(['--steps=ten'])).toThrow(/--steps needs a number/);
    expect(() => parseOptions(['steps=10'])).toThrow(/expected --name=value/);
    expect(() => parseOptions(['--backend=gpu'])).toThrow(/--backend must be wasm or cpu/);
    expect(() => parseOptions(['--routeProb=2'])).toThrow(/--routeProb/);
  });
});

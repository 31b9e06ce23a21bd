import { describe, expect, it } from 'vitest';
import { attemptsOf, estimateTime, fitsDevice, formatBytes, formatDuration } from './estimate';
import { presetById } from './presets';

describe('attemptsOf', () => {
  it('is questions × (1 deployment attempt + budgets)', () => {
    const probes = [{ probe: 'deployment' as const }, presetById('uniform-routes').spec(24), presetById('sampling-ceiling').spec(24), presetById('silencing-scan').spec(24)];
    expect(attemptsOf(50, probes)).toBe(50 * (1 + 100 + 64 + 24));
    expect(attemptsOf(10, [{ probe: 'deployment' }])).toBe(10);
  });
  it('rejects a fractional question count', () => {
    expect(() => attemptsOf(2.5, [])).toThrow(/non-negative integer, got 2.5/);
  });
});

describe('estimateTime', () => {
  it('uses a measured rate when there is one', () => {
    expect(estimateTime({ attempts: 600, maxNewTokens: 50, ep: 'wasm', dtype: 'f32', measured: { attemptsPerSecond: 2, maxNewTokens: 50 } })).toEqual({ seconds: 300, basis: 'measured' });
    // measured at 25 new tokens, asked for 50: twice as long per attempt
    expect(estimateTime({ attempts: 600, maxNewTokens: 50, ep: 'wasm', dtype: 'f32', measured: { attemptsPerSecond: 2, maxNewTokens: 25 } }).seconds).toBe(600);
    expect(estimateTime({ attempts: 600, maxNewTokens: 50, ep: 'wasm', dtype: 'f32', measured: null }).basis).toBe('prior');
  });
  it('scales the prior with tokens, model size and EP', () => {
    const a = estimateTime({ attempts: 100, maxNewTokens: 10, ep: 'webgpu', dtype: 'f32', weightBytes: 2e9 });
    const b = estimateTime({ attempts: 100, maxNewTokens: 20, ep: 'webgpu', dtype: 'f32', weightBytes: 4e9 });
    const c = estimateTime({ attempts: 100, maxNewTokens: 10, ep: 'wasm', dtype: 'f32', weightBytes: 2e9 });
    expect(a.basis).toBe('prior');
    expect(b.seconds / a.seconds).toBeCloseTo(4, 9);
    expect(c.seconds).toBeGreaterThan(a.seconds);
  });
});

describe('formatting', () => {
  it('formats durations and sizes', () => {
    expect(formatDuration(42)).toBe('42 s');
    // a tiny run is not 'about 0 s'
    expect(formatDuration(0.3)).toBe('under 1 s');
    expect(formatDuration(0)).toBe('under 1 s');
    expect(formatDuration(600)).toBe('10 min');
    expect(formatDuration(3 * 3600 + 5 * 60)).toBe('3 h 5 min');
    expect(formatBytes(988_000_000)).toBe('988 MB');
    expect(formatBytes(1_540_000_000)).toBe('1.5 GB');
  });
  it('says whether weights fit, or that it cannot tell', () => {
    expect(fitsDevice(1e9, 8)).toBe(true);
    expect(fitsDevice(6e9, 8)).toBe(false);
    expect(fitsDevice(1e9, undefined)).toBeNull();
  });
});

describe('preset budgets', () => {
  it('cap route budgets at the size of the route space', () => {
    const small = presetById('uniform-routes').spec(4);
    expect(small.probe === 'random-routes' && small.budget).toBe(69); // 4 layers: 69 distinct block routes (≤ 2 edits)
    const big = presetById('uniform-routes').spec(24);
    expect(big.probe === 'random-routes' && big.budget).toBe(100);
  });
});

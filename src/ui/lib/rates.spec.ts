import { describe, expect, it } from 'vitest';
import { measuredRate, saveRate } from './rates';

function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

describe('measured rates', () => {
  const key = { fingerprint: 'fp', ep: 'wasm' as const, dtype: 'f32' as const };

  it('keeps one pace per model, engine and dtype', () => {
    const s = memoryStorage();
    expect(measuredRate(s, key)).toBeNull();
    saveRate(s, key, { attemptsPerSecond: 470, maxNewTokens: 8 });
    saveRate(s, { ...key, dtype: 'q4' }, { attemptsPerSecond: 900, maxNewTokens: 8 });
    expect(measuredRate(s, key)).toEqual({ attemptsPerSecond: 470, maxNewTokens: 8 });
    expect(measuredRate(s, { ...key, ep: 'webgpu' })).toBeNull();
    saveRate(s, key, { attemptsPerSecond: Infinity, maxNewTokens: 8 });
    expect(measuredRate(s, key)?.attemptsPerSecond).toBe(470);
  });

  it('reads garbage, or no storage at all, as not measured', () => {
    expect(measuredRate(memoryStorage({ 'reachlab.rates.v1': '{not json' }), key)).toBeNull();
    expect(measuredRate(memoryStorage({ 'reachlab.rates.v1': '{"fp|wasm|f32":{"attemptsPerSecond":-1,"maxNewTokens":8}}' }), key)).toBeNull();
    expect(measuredRate(null, key)).toBeNull();
    expect(() => saveRate(null, key, { attemptsPerSecond: 1, maxNewTokens: 1 })).not.toThrow();
  });
});

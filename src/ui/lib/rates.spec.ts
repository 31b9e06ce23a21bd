import { describe, expect, it } from 'vitest';
import { randomRoutes, samplingCeiling } from '../../audit/presets';
import { blocksSpace } from './presets';
import { endedStudyRate, measuredRate, probeMix, saveRate } from './rates';

function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

describe('measured rates', () => {
  const key = { fingerprint: 'fp', ep: 'wasm' as const, dtype: 'f32' as const, probes: 'deployment×1,random-routes×16' };

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

  it('keeps the pace of one mix of probes and budgets apart from another (a run with other probes says nothing of this one)', () => {
    const s = memoryStorage();
    const routes = probeMix([{ probe: 'deployment' }, randomRoutes(blocksSpace(6), 16, 1, false)]);
    const sampling = probeMix([samplingCeiling(64, 1), { probe: 'deployment' }]);
    expect([routes, sampling]).toEqual(['deployment×1,random-routes×16', 'deployment×1,sampling×64']);
    expect(probeMix([randomRoutes(blocksSpace(6), 100, 1, false)])).not.toBe(probeMix([randomRoutes(blocksSpace(6), 16, 1, false)]));
    saveRate(s, { ...key, probes: routes }, { attemptsPerSecond: 470, maxNewTokens: 8 });
    expect(measuredRate(s, { ...key, probes: sampling })).toBeNull();
    expect(measuredRate(s, { ...key, probes: routes })?.attemptsPerSecond).toBe(470);
  });

  it('reads garbage, or no storage at all, as not measured', () => {
    expect(measuredRate(memoryStorage({ 'reachlab.rates.v2': '{not json' }), key)).toBeNull();
    expect(measuredRate(memoryStorage({ 'reachlab.rates.v2': '{"fp|wasm|f32|deployment×1,random-routes×16":{"attemptsPerSecond":-1,"maxNewTokens":8}}' }), key)).toBeNull();
    expect(measuredRate(null, key)).toBeNull();
    expect(() => saveRate(null, key, { attemptsPerSecond: 1, maxNewTokens: 1 })).not.toThrow();
  });
});

describe("a study run's pace", () => {
  const measured = { fingerprint: 'fp', ep: 'wasm' as const, dtype: 'f32' as const, probes: [{ probe: 'deployment' as const }], maxNewTokens: 8 };
  const at = (runId: string | null, attemptsPerSec: number | null = 120) => ({
    plan_key: 'k', runsDone: 0, runsTotal: 2, status: 'running' as const,
    current: runId === null ? null : { model: 'm', task: 't', label: 'l', runId, attemptsPerSec, measured },
  });

  it('is kept once its run ends, under the run\'s model, engine, dtype and probes', () => {
    expect(endedStudyRate(at('a'), at('b'))).toEqual({ key: { fingerprint: 'fp', ep: 'wasm', dtype: 'f32', probes: 'deployment×1' }, rate: { attemptsPerSecond: 120, maxNewTokens: 8 } });
    expect(endedStudyRate(at('a'), at(null))?.rate.attemptsPerSecond).toBe(120);
  });

  it('is not kept while the run goes on, or when it computed nothing (reused)', () => {
    expect(endedStudyRate(at('a'), at('a'))).toBeNull();
    expect(endedStudyRate(at('a', null), at('b'))).toBeNull();
    expect(endedStudyRate(null, at('a'))).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { normalizePlan } from '../study-plan';
import { blocksSpace } from '../routes';
import { randomRoutes } from './random-routes';
import { checkProbeSpec, validateProbeSpec } from './registry';
import { MAX_BUDGET } from './route-draws';
import { samplingCeiling } from './sampling';

describe('the budget bound', () => {
  it('is refused where a budget enters: a spec, a run file, a plan', () => {
    expect(() => validateProbeSpec(samplingCeiling(MAX_BUDGET, 1), 6)).not.toThrow();
    expect(() => validateProbeSpec(samplingCeiling(1e11, 1), 6)).toThrow(`sampling budget 100000000000 is over the most a probe may make, ${MAX_BUDGET} attempts per question`);
    expect(() => validateProbeSpec(randomRoutes(blocksSpace(6), MAX_BUDGET + 1, 1), 6)).toThrow(/random-routes budget 10001 is over the most/);
    expect(() => checkProbeSpec(samplingCeiling(1e11, 1), 'probe')).toThrow(/probe\.budget: expected an integer ≥ 1 ≤ 10000/);
    expect(() => normalizePlan({ models: ['m'], tasks: ['builtin:arith-2d'], budget: 1e11 })).toThrow(/budget: expected an integer from 1 to 10000, got number 100000000000/);
  });
});

import { describe, expect, it } from 'vitest';
import { parameterCount } from '../lib/make-checkpoint.ts';
import { SCALE_SHAPES } from '../lib/scale-models.ts';
import { ceilingTokensPerS, firstMismatch, maxSeqLen, median, pairRatios, parsePeerArgs, WEIGHT_SCHEMES, weightBytesPerToken } from './plan.ts';

describe('parsePeerArgs', () => {
  it('defaults to the issue workload: 4 pairs, prompts 64 and 512 (3 timed prefills each), 64 decode tokens, 32 routes × 16, 2 threads, quantized on', () => {
    expect(parsePeerArgs([])).toEqual({ pairs: 4, prompts: [64, 512], prefillReps: 3, decodeTokens: 64, routes: 32, routeTokens: 16, threads: 2, bandwidthGiB: 1, quantized: ['q4', 'q8', 'q8b'], runtimes: ['wasm'] });
  });

  it('takes the shrinking options', () => {
    const p = parsePeerArgs(['--pairs', '1', '--prompt', '64', '--prefill-reps', '1', '--decode-tokens', '8', '--routes', '4', '--route-tokens', '4', '--skip-quantized', '--bandwidth-gib', '0.25']);
    expect(p).toMatchObject({ pairs: 1, prompts: [64], prefillReps: 1, decodeTokens: 8, routes: 4, routeTokens: 4, quantized: [], bandwidthGiB: 0.25 });
    expect(parsePeerArgs(['--quantized', 'q8']).quantized).toEqual(['q8']);
    expect(() => parsePeerArgs(['--quantized', 'q8,f16'])).toThrow(/--quantized takes q4, q8, q8b, got "f16"/);
    expect(parsePeerArgs(['--runtime', 'native,wasm']).runtimes).toEqual(['native', 'wasm']);
    expect(() => parsePeerArgs(['--runtime', 'native,cuda'])).toThrow('--runtime takes native, wasm, got "native,cuda"');
    expect(() => parsePeerArgs(['--runtime', 'wasm,wasm'])).toThrow('--runtime lists a runtime twice');
  });

  it('refuses bad values by name', () => {
    expect(() => parsePeerArgs(['--pairs', '0'])).toThrow('--pairs must be a positive integer, got "0"');
    expect(() => parsePeerArgs(['--pairs', '1.5'])).toThrow('--pairs must be a positive integer');
    expect(() => parsePeerArgs(['--prompt', '64,x'])).toThrow('--prompt must be a positive integer, got "x"');
    expect(() => parsePeerArgs(['--prompt', '64,64'])).toThrow('--prompt lists a length twice');
    expect(() => parsePeerArgs(['--prompt', '5000'])).toThrow('--prompt must be at most 4096, got 5000');
    expect(() => parsePeerArgs(['--prefill-reps', '0'])).toThrow('--prefill-reps must be a positive integer, got "0"');
    expect(() => parsePeerArgs(['--decode-tokens=-3'])).toThrow('--decode-tokens must be a positive integer');
    expect(() => parsePeerArgs(['--bandwidth-gib', '0'])).toThrow('--bandwidth-gib must be a number in (0, 8]');
    expect(() => parsePeerArgs(['--routs', '4'])).toThrow(/routs/);
  });

  it('sizes the KV cache for the longest prompt and for the first prompt plus its generated tokens', () => {
    expect(maxSeqLen(parsePeerArgs([]))).toBe(512);
    expect(maxSeqLen(parsePeerArgs(['--prompt', '64', '--decode-tokens', '100']))).toBe(64 + 1 + 100);
  });
});

describe('ratio arithmetic', () => {
  it('takes medians of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow('median of no values');
  });

  it('pairs ratios run by run and refuses unpaired or non-positive runs', () => {
    expect(pairRatios([10, 6], [5, 12])).toEqual([2, 0.5]);
    expect(() => pairRatios([1], [1, 2])).toThrow('unpaired runs: 1 ReachLab vs 2 PyTorch');
    expect(() => pairRatios([0], [1])).toThrow('pair 1: throughputs must be positive');
  });

  it('finds where greedy tokens first differ', () => {
    expect(firstMismatch([1, 2, 3], [1, 2, 3])).toBeNull();
    expect(firstMismatch([1, 2, 3], [1, 9, 3])).toBe(1);
    expect(firstMismatch([1, 2], [1, 2, 3])).toBe(2);
  });
});

describe('bandwidth ceiling', () => {
  const s = SCALE_SHAPES['qwen2.5-0.5b'];

  it('streams every f32 parameter once per token for the tied 0.5B shape (1.98 GB)', () => {
    const bytes = weightBytesPerToken(s, WEIGHT_SCHEMES['pytorch:f32']);
    expect(bytes).toBe(parameterCount(s) * 4);
    expect(bytes / 1e9).toBeCloseTo(1.976, 3);
  });

  it('counts int8 and q4 projections and head at their own width, norms and biases at f32', () => {
    // 24 layers × (896·896 + 2·896·128 + 896·896 + 3·896·4864) projection weights, head 151936·896
    const linear = 24 * (896 * 896 * 2 + 2 * 896 * 128 + 3 * 896 * 4864);
    const head = 151936 * 896;
    const other = parameterCount(s) - linear - head;
    expect(other).toBe(24 * (2 * 896 + 896 + 2 * 128) + 896); // two norms and three biases per layer, the final norm
    expect(weightBytesPerToken(s, WEIGHT_SCHEMES['pytorch:int8'])).toBe(linear + head + other * 4);
    expect(weightBytesPerToken(s, WEIGHT_SCHEMES['reachlab:q4'])).toBeCloseTo((linear + head) * (20.5 / 32) + other * 4, 3);
  });

  it('does not count an untied embedding table, only gathered from', () => {
    const untied = { ...s, tied: false };
    expect(weightBytesPerToken(untied, { linear: 4, head: 4 })).toBe((parameterCount(untied) - s.vocab * s.hidden) * 4);
  });

  it('divides bandwidth by bytes per token, refusing non-positive inputs', () => {
    expect(ceilingTokensPerS(1.98e9, 28.6e9)).toBeCloseTo(14.44, 2);
    expect(() => ceilingTokensPerS(0, 1)).toThrow('ceiling needs positive bytes per token and bandwidth');
  });
});

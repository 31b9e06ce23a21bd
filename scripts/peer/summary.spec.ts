import { describe, expect, it } from 'vitest';
import { SCALE_SHAPES } from '../lib/scale-models.ts';
import { WEIGHT_SCHEMES, weightBytesPerToken } from './plan.ts';
import type { SideRun } from './side.ts';
import { ceilingShares, decodeTokS, measures, noisyDecodes, tokenMismatches, type Pair } from './summary.ts';

function run(side: SideRun['side'], o: { load: number; prefill: number; first?: number; one: number; many: number; routes: number; mb: number; ids?: number[]; routeIds?: number[][] }): SideRun {
  return {
    side, mode: 'f32', threads: 2, versions: {}, load_s: o.load,
    prefill: [{ tokens: 64, s: o.prefill, first_s: o.first ?? 2 * o.prefill }],
    decode: { tokens: 8, one_s: o.one, many_s: o.many, ids: o.ids ?? [1, 2, 3] },
    routes: { count: 4, tokens: 4, s: o.routes, ids: o.routeIds ?? [[1], [2], [3], [4]] },
    peak_rss_mb: o.mb,
  };
}

describe('measures', () => {
  const pair: Pair = {
    reachlab: run('reachlab', { load: 10, prefill: 1, one: 1, many: 5, routes: 2, mb: 4000 }),
    pytorch: run('pytorch', { load: 2, prefill: 0.5, one: 1, many: 3, routes: 4, mb: 2000 }),
  };

  it('gives ReachLab over PyTorch for speeds and PyTorch over ReachLab for seconds and MB', () => {
    const m = Object.fromEntries(measures([pair]).map((x) => [x.measure, x]));
    expect(m['load']).toMatchObject({ unit: 's', reachlab: 10, pytorch: 2, ratio: 0.2 });
    expect(m['prefill 64']).toMatchObject({ reachlab: 64, pytorch: 128, ratio: 0.5 });
    expect(m['first prefill 64']).toMatchObject({ reachlab: 32, pytorch: 64, ratio: 0.5 });
    expect(m['decode 8']).toMatchObject({ reachlab: 2, pytorch: 4, ratio: 0.5 });
    expect(m['4 routes × 4']).toMatchObject({ reachlab: 8, pytorch: 4, ratio: 2 });
    expect(m['peak memory']).toMatchObject({ unit: 'MB', ratio: 0.5 });
  });

  it('leaves a decode whose longer run was not slower out of the medians', () => {
    const noisy: Pair = { ...pair, reachlab: run('reachlab', { load: 10, prefill: 1, one: 5, many: 5, routes: 2, mb: 4000 }) };
    expect(decodeTokS(noisy.reachlab)).toBeNull();
    const d = measures([pair, noisy]).find((x) => x.measure === 'decode 8')!;
    expect(d).toMatchObject({ pairs: 1, ratio: 0.5 });
    expect(noisyDecodes([pair, noisy])).toEqual([{ pair: 2, side: 'reachlab' }]);
  });

  it('shares of the ceiling: median decode over bandwidth / bytes per token', () => {
    const bytes = weightBytesPerToken(SCALE_SHAPES['qwen2.5-0.5b'], WEIGHT_SCHEMES['reachlab:f32']);
    const [rl, pt] = ceilingShares([pair], SCALE_SHAPES['qwen2.5-0.5b'], 10 * bytes);
    expect(rl).toMatchObject({ side: 'reachlab', ceiling_tok_s: 10, decode_tok_s: 2, share: 0.2 });
    expect(pt).toMatchObject({ side: 'pytorch', share: 0.4 });
  });

  it('lists every place the greedy tokens differ, by pair, decode or route, and position', () => {
    const other: Pair = { reachlab: pair.reachlab, pytorch: run('pytorch', { load: 2, prefill: 0.5, one: 1, many: 3, routes: 4, mb: 2000, ids: [1, 9, 3], routeIds: [[1], [2], [7], [4]] }) };
    expect(tokenMismatches([pair])).toEqual([]);
    expect(tokenMismatches([pair, other])).toEqual([{ pair: 2, what: 'decode', at: 1 }, { pair: 2, what: 'route 2', at: 0 }]);
  });
});

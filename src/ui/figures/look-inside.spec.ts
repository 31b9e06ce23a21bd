// The look-inside figures over a real read-out: the built-in micro model (wasm) reading gold -30
// against the emitted -29 of 12-42= on the default route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalEngine } from '../../engine/engine';
import { readAttempt, type AttemptReadout } from '../../engine/readout';
import { attributionSpec, lensSpec } from './look-inside';
import { FIT_WIDTHS, fitProblems, svgSnapshot } from './testing/svg';

const MICRO = new URL('../../../public/hub/reachlab/micro-arith/resolve/main/', import.meta.url).pathname;

describe('look-inside figures', () => {
  let engine: LocalEngine;
  let r: AttemptReadout;
  beforeAll(async () => {
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: MICRO }, { ep: 'wasm', maxSeqLen: 64 });
    const read = await readAttempt(engine, { prompt: '12-42=', route: [0, 1, 2, 3, 4, 5], silence: [], gold: '-30', response: '-29' });
    if (read.kind !== 'readout') throw new Error('expected a read-out');
    r = read;
  });
  afterAll(async () => engine.dispose());

  it('logit lens: the gold and the emitted token after every route position', async () => {
    const spec = lensSpec(r, { large: false }, 'deployment attempt');
    expect(spec.alt).toMatch(/^At answer token 2, after "-" .*\(gold "3"\).*\(emitted "2"\) after each of 6 route positions; at the end the gold token has rank 2 .* the other rank 1\.$/);
    await expect(svgSnapshot(spec)).toMatchFileSnapshot('__snapshots__/logit-lens.svg');
  });

  it('direct attribution: attention and MLP of each route position toward gold or emitted', async () => {
    const spec = attributionSpec(r, { large: false }, 'deployment attempt');
    expect(spec.alt).toContain(`gold − emitted (${r.logitDiff.toFixed(2)})`);
    await expect(svgSnapshot(spec)).toMatchFileSnapshot('__snapshots__/direct-attribution.svg');
  });

  it('fits 390 and 1280 px: no clipped label, no collapsed axis', () => {
    for (const large of [false, true]) {
      for (const spec of [lensSpec(r, { large }, 'deployment attempt'), attributionSpec(r, { large }, 'deployment attempt')]) {
        for (const w of large ? [1280] : FIT_WIDTHS) expect(fitProblems(spec, w), `${spec.id} at ${w} px${large ? ', large text' : ''}`).toEqual([]);
      }
    }
  });
});

// The named read-out points (engine/points.ts) as the engine reads them in one pass (Node, WASM EP,
// per-layer and span graphs) against the float64 reference's one forward loop, at every prompt
// position of the reference checkpoints, on routes that repeat a layer and silence an MLP.
import type { InferenceSession } from 'onnxruntime-common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type LocalEngine } from './engine.ts';
import { maxAbsDiff } from './conformance.ts';
import type { Reference } from './reference.ts';
import { LAYER_GRAPHS, MODELS, engineAndReference, expectedOf, fixture } from './testing/reference-fixtures.ts';
import { blockPoint, pointSite } from './points.ts';
import { BLOCK_POINTS, isEngineError, type PointName } from './types.ts';
import { GRAPH } from './graph/contract.ts';
import { getOrt } from './ort.ts';


describe('pointSite', () => {
  it('reads TransformerLens-style names at a route position, and ln_final', () => {
    expect(pointSite('blocks.2.attn_out', 3)).toEqual({ position: 2, point: 'attn_out' });
    expect(pointSite('ln_final', 1)).toBe('ln_final');
    expect(blockPoint(0, 'resid_pre')).toBe('blocks.0.resid_pre');
  });

  it('refuses a name that is not a point of the route, naming it', () => {
    for (const bad of ['blocks.3.attn_out', 'blocks.0.hook_attn_out', 'blocks.x.mlp_out', 'unembed', 'blocks.0.mlp_out.x']) {
      expect(() => pointSite(bad, 3), bad).toThrow(new RegExp(bad.replace(/\./g, '\\.')));
    }
  });
});

describe.each(MODELS.flatMap((m) => LAYER_GRAPHS.map((g) => [m, g] as const)))('%s, %s graphs: read-out points', (name, layerGraphs) => {
  const expected = expectedOf(name);
  let engine: LocalEngine;
  let ref: Reference;
  beforeAll(async () => ({ engine, ref } = await engineAndReference(name, layerGraphs)));
  afterAll(async () => engine.dispose());

  it('equal the float64 reference at every position, within the logits tolerance', async () => {
    for (const caseName of ['loop-back', 'route-and-silence']) {
      const c = expected.cases.find((x) => x.name === caseName)!;
      const points: PointName[] = [...c.route.flatMap((_, p) => BLOCK_POINTS.map((pt) => blockPoint(p, pt))), 'ln_final'];
      const row = { promptIds: expected.input_ids, route: c.route, silence: c.silence, points, positions: 'all' as const };
      const got = await engine.readout('points', row);
      const want = ref.points(row);
      for (const point of points) {
        expect(got[point], `${caseName} ${point}`).toHaveLength(expected.input_ids.length);
        got[point].forEach((x, t) => expect(maxAbsDiff(x, want.get(point)![t]), `${caseName} ${point} position ${t}`).toBeLessThanOrEqual(expected.tolerance.abs));
      }
      // where a layer's MLP is silenced its output is exactly 0, and the stream passes through
      c.route.forEach((layer, p) => {
        if (!c.silence.includes(layer)) return;
        expect(got[blockPoint(p, 'mlp_out')].flat().every((v) => v === 0), `${caseName}: mlp_out ${p}`).toBe(true);
      });
      // the last position alone is the last row of every position
      const last = await engine.readout('points', { ...row, positions: 'last' });
      for (const point of points) expect(last[point]).toEqual([got[point][got[point].length - 1]]);
    }
  });

  it('refuses an unknown point or read-out by name, staying usable', async () => {
    const row = { promptIds: expected.input_ids, route: [0, 1], silence: [], positions: 'last' as const };
    for (const [bad, what] of [[{ ...row, points: ['blocks.2.resid_post'] }, /blocks\.2\.resid_post/], [{ ...row, points: [] }, /non-empty/]] as const) {
      const err = await engine.readout('points', bad as never).catch((e: unknown) => e);
      expect(isEngineError(err) && err.code).toBe('bad-input');
      expect((err as Error).message).toMatch(what);
    }
    const err = await engine.readout('attention-patterns' as never, { ...row, points: [] } as never).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/unknown read-out "attention-patterns"/);
    expect((await engine.readout('points', { ...row, points: ['ln_final'] })).ln_final).toHaveLength(1);
  });
});

describe('what a run fetches (tiny-qwen2, span graphs)', () => {
  it('rows that ask for no point fetch no point; a points row fetches its slots\' points', async () => {
    // the session class behind the factory: every session's run() goes through its prototype
    const run = vi.spyOn(((await getOrt('wasm')).InferenceSession as unknown as { prototype: InferenceSession }).prototype, 'run');
    const engine = createEngine();
    try {
      await engine.load({ kind: 'fs', dir: fixture('tiny-qwen2') }, { ep: 'wasm', maxSeqLen: 64, layerGraphs: 'spans' });
      const pointOutputs = new Set(Array.from({ length: 8 }, (_, k) => Object.values(GRAPH.span.slot(k).out.points)).flat());
      const fetched = (fetches: unknown) => (Array.isArray(fetches) ? (fetches as string[]) : Object.keys(fetches ?? {}));
      const fetchedPoints = () => run.mock.calls.flatMap((args) => fetched(args[1])).filter((name) => pointOutputs.has(name));
      const row = { promptIds: [76, 196, 319], route: [0, 1, 1, 2], silence: [1] };
      run.mockClear();
      await engine.logits(row);
      await engine.generate([{ ...row, sampling: { kind: 'greedy' } }], { maxNewTokens: 2, eosTokenIds: [] });
      expect(run.mock.calls.length).toBeGreaterThan(0);
      expect(fetchedPoints()).toEqual([]);
      run.mockClear();
      await engine.readout('points', { ...row, points: [blockPoint(0, 'resid_mid')], positions: 'last' });
      expect(fetchedPoints()).toEqual(expect.arrayContaining(Object.values(GRAPH.span.slot(0).out.points)));
    } finally {
      run.mockRestore();
      await engine.dispose();
    }
  });
});

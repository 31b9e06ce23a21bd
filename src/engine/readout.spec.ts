// The look inside (engine/readout.ts) of the in-process engine (Node, WASM EP), per-layer and span
// graphs, against the float64 reference on the three reference checkpoints: lens logits and
// probabilities and every attribution within the logits' tolerance (expected.json), ranks equal,
// the attribution identity within it, and the reference itself checked against expected.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalEngine } from './engine.ts';
import { maxAbsDiff } from './conformance.ts';
import type { Reference } from './reference.ts';
import { LAYER_GRAPHS, MODELS, engineAndReference, expectedOf, referenceOf } from './testing/reference-fixtures.ts';
import { attemptRow, departure, readAttempt, readoutDiff, standing } from './readout.ts';
import { isEngineError, type ReadoutRow } from './types.ts';

/** Cases with a changed route, a silenced MLP, and both. */
const CASES = ['default', 'loop-back', 'silence-mlp', 'route-and-silence'];

describe.each(MODELS)('%s: the reference read-out', (name) => {
  const expected = expectedOf(name);
  let ref: Reference;
  beforeAll(async () => void (ref = await referenceOf(name)));

  it('ends in expected.json logits, emits the greedy token, and its attributions sum to the logit difference', async () => {
    for (const c of expected.cases) {
      const gold = expected.cases[(expected.cases.indexOf(c) + 1) % expected.cases.length].greedy_tokens[0];
      const r = await ref.readout('look-inside', { promptIds: expected.input_ids, route: c.route, silence: c.silence, gold });
      expect(r.emitted, c.name).toBe(c.greedy_tokens[0]);
      const last = r.lens[r.lens.length - 1];
      expect(last.gold).toEqual(expect.objectContaining({ id: gold }));
      expect(Math.abs(last.gold.logit - c.last_logits[gold]), `${c.name}: gold logit`).toBeLessThanOrEqual(expected.tolerance.abs);
      expect(last.emitted).toEqual(expect.objectContaining({ rank: 1 }));
      expect(r.lens).toHaveLength(c.route.length + 1);
      expect(r.identityError, `${c.name}: identity`).toBeLessThan(1e-9);
      for (const a of r.attribution) if (c.silence.includes(a.layer)) expect(a.mlp, `${c.name}: silenced MLP ${a.layer}`).toBe(0);
    }
  });
});

describe.each(MODELS.flatMap((m) => LAYER_GRAPHS.map((g) => [m, g] as const)))('%s, %s graphs: engine read-out', (name, layerGraphs) => {
  const expected = expectedOf(name);
  const tol = expected.tolerance.abs;
  let engine: LocalEngine;
  let ref: Reference;

  beforeAll(async () => ({ engine, ref } = await engineAndReference(name, layerGraphs)));
  afterAll(async () => engine.dispose());

  it.each(CASES)('case %s equals the float64 reference within the logits tolerance', async (caseName) => {
    const c = expected.cases.find((x) => x.name === caseName)!;
    const gold = expected.cases[0].greedy_tokens[1];
    const row = { promptIds: expected.input_ids, route: c.route, silence: c.silence, gold };
    const got = await engine.readout('look-inside', row);
    const want = await ref.readout('look-inside', row);
    const { maxAbsDiff, ranksEqual } = readoutDiff(got, want);
    expect(maxAbsDiff, `${caseName}: max |engine − reference|`).toBeLessThanOrEqual(tol);
    expect(ranksEqual, `${caseName}: ranks`).toBe(true);
    expect(got.identityError, `${caseName}: embed + Σattn + Σmlp − logit difference`).toBeLessThanOrEqual(tol);
    // its last lens point is the engine's own logits for the row
    const [logits] = await engine.logits(row);
    expect(got.lens[got.lens.length - 1].gold).toEqual(standing(logits, gold));
  });

  it.each(CASES)('attn-norm, case %s: ‖attn_out‖ at every position equals the float64 reference within the logits tolerance', async (caseName) => {
    const c = expected.cases.find((x) => x.name === caseName)!;
    const row = { promptIds: expected.input_ids, route: c.route, silence: c.silence };
    const got = await engine.readout('attn-norm', row);
    const want = await ref.readout('attn-norm', row);
    expect(got.route).toEqual(c.route);
    expect(got.norms).toHaveLength(c.route.length);
    got.norms.forEach((perToken, p) => {
      expect(perToken, `position ${p}`).toHaveLength(expected.input_ids.length);
      expect(maxAbsDiff(perToken, want.norms[p]), `${caseName}: route position ${p}`).toBeLessThanOrEqual(tol);
      expect(perToken.every((v) => v > 0), `${caseName}: route position ${p} attends somewhere`).toBe(true);
    });
  });

  it.each(CASES)('resid-mid-lens, case %s: the gold token at each midpoint equals the float64 reference within the logits tolerance', async (caseName) => {
    const c = expected.cases.find((x) => x.name === caseName)!;
    const gold = expected.cases[0].greedy_tokens[1];
    const row = { promptIds: expected.input_ids, route: c.route, silence: c.silence, gold };
    const got = await engine.readout('resid-mid-lens', row);
    const want = await ref.readout('resid-mid-lens', row);
    expect(got.route).toEqual(c.route);
    expect(got.gold).toHaveLength(c.route.length);
    got.gold.forEach((s, p) => {
      const w = want.gold[p];
      expect(s.id).toBe(gold);
      expect(s.rank, `${caseName}: rank at midpoint ${p}`).toBe(w.rank);
      expect(maxAbsDiff([s.logit, s.prob], [w.logit, w.prob]), `${caseName}: logit and probability at midpoint ${p}`).toBeLessThanOrEqual(tol);
    });
    // where route position p's MLP is silenced its midpoint is its output, the look inside's lens after p
    const look = await ref.readout('look-inside', row);
    c.route.forEach((layer, p) => {
      if (c.silence.includes(layer)) expect(want.gold[p], `${caseName}: silenced position ${p}`).toEqual(look.lens[p + 1].gold);
    });
    const err = await engine.readout('resid-mid-lens', { ...row, gold: -1 }).catch((e: unknown) => e);
    expect(isEngineError(err) && (err as Error).message).toMatch(/gold token -1/);
  });

  it('takes a chosen emitted token and refuses bad tokens by name, staying usable', async () => {
    const row = { promptIds: expected.input_ids, route: [0, 1], silence: [], gold: 3, emitted: 5 };
    expect((await engine.readout('look-inside', row)).emitted).toBe(5);
    const V = (await engine.info())!.vocabSize;
    const bads: [ReadoutRow, RegExp][] = [[{ ...row, gold: V }, /gold token/], [{ ...row, emitted: -1 }, /emitted token/], [{ ...row, route: [99] }, /route\[0\] = 99/]];
    for (const [bad, what] of bads) {
      const err = await engine.readout('look-inside', bad).catch((e: unknown) => e);
      expect(isEngineError(err) && err.code).toBe('bad-input');
      expect((err as Error).message).toMatch(what);
    }
    expect((await engine.readout('look-inside', row)).lens).toHaveLength(3);
  });
});

describe('attemptRow', () => {
  const chars = { encode: async (t: string) => Array.from(t, (c) => c.charCodeAt(0)) };
  const look = { prompt: 'A:', route: [0, 1], silence: [1], gold: '36', response: '47 apples' };

  it("reads the gold answer's and the response's first token after the prompt when they differ there", async () => {
    expect(await attemptRow(chars, look)).toEqual({ row: { promptIds: [65, 58], route: [0, 1], silence: [1], gold: 51, emitted: 52 }, position: 0, versus: 'own' });
    // no response: the greedy choice at the first answer token
    const greedy = await attemptRow(chars, { ...look, response: '' });
    expect(greedy?.position).toBe(0);
    expect(greedy?.row).not.toHaveProperty('emitted');
  });

  it('reads at the first answer token where gold and response differ, the shared tokens appended to the prompt', async () => {
    // gold -30, deployed -29: both start with "-"; the read-out compares "3" with "2" after "-"
    const at = await attemptRow(chars, { ...look, gold: '-30', response: '-29' });
    expect(at?.position).toBe(1);
    expect(at?.row).toEqual({ promptIds: [65, 58, 45], route: [0, 1], silence: [1], gold: 51, emitted: 50 });
    // the gold answer starts as the response does (its leading whitespace)
    expect(await attemptRow(chars, { ...look, gold: '36', response: ' 37' })).toMatchObject({ row: { gold: 54, emitted: 55, promptIds: [65, 58, 32, 51] }, position: 2 });
  });

  it('a response that stops before the gold answer does departs where it stopped: the greedy choice there', async () => {
    const at = await attemptRow(chars, { ...look, response: '3' });
    expect(at).toEqual({ row: { promptIds: [65, 58, 51], route: [0, 1], silence: [1], gold: 54 }, position: 1, versus: 'own' });
  });

  it('an attempt read beside a departing deployment is read where the deployment departs, against its token', async () => {
    // a correct attempt "36" beside the deployed "37": both read after "3", gold "6" against "7"
    const at = await attemptRow(chars, { ...look, response: '36', deployed: '37' });
    expect(at).toEqual({ row: { promptIds: [65, 58, 51], route: [0, 1], silence: [1], gold: 54, emitted: 55 }, position: 1, versus: 'deployed' });
    // a realized deployment departs nowhere: the attempt is read where its own answer departs
    expect(await attemptRow(chars, { ...look, response: '46', deployed: '36' })).toMatchObject({ row: { gold: 51, emitted: 52 }, position: 0, versus: 'own' });
  });

  it('has no row for an answer with every gold token (a correct attempt): there is nothing to compare', async () => {
    expect(await attemptRow(chars, { ...look, response: '36' })).toBeNull();
    expect(await attemptRow(chars, { ...look, response: '36 apples' })).toBeNull();
    expect(await attemptRow(chars, { ...look, response: '36', deployed: '36' })).toBeNull();
  });

  it('refuses an empty gold answer or prompt by name', async () => {
    await expect(attemptRow(chars, { ...look, gold: ' ' })).rejects.toThrow(/gold answer is empty/);
    await expect(attemptRow(chars, { ...look, prompt: '' })).rejects.toThrow(/prompt is empty/);
  });
});

describe('departure', () => {
  it('is the first index where the lists differ or the emitted one stops; null when it has every gold token', () => {
    expect(departure([1, 2, 3], [1, 2, 4])).toBe(2);
    expect(departure([5], [6, 7])).toBe(0);
    expect(departure([1, 2, 3], [1])).toBe(1);
    expect(departure([1, 2], [])).toBe(0);
    expect(departure([1, 2], [1, 2, 3])).toBeNull();
    expect(departure([1, 2], [1, 2])).toBeNull();
  });
});

describe('readAttempt on the built-in micro model (one token per character)', () => {
  const MICRO = new URL('../../public/hub/reachlab/micro-arith/resolve/main/', import.meta.url).pathname;
  let engine: LocalEngine;
  beforeAll(async () => {
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: MICRO }, { ep: 'wasm', maxSeqLen: 64 });
  });
  afterAll(async () => engine.dispose());

  it('compares gold -30 and emitted -29 at their second token, not at the "-" both start with', async () => {
    const look = { prompt: '12-42=', route: [0, 1, 2, 3, 4, 5], silence: [], gold: '-30', response: '-29' };
    const r = await readAttempt(engine, look);
    if (r.kind !== 'readout') throw new Error('expected a read-out');
    expect([r.position, r.prefix, r.goldToken, r.emittedToken]).toEqual([1, '-', '3', '2']);
    expect(r.gold).not.toBe(r.emitted);
    // the read-out of the prompt extended by the shared "-", as the engine computes it for that row
    const at = await attemptRow(engine, look);
    expect(readoutDiff(r, await engine.readout('look-inside', at!.row)).maxAbsDiff).toBe(0);
    expect(Math.abs(r.logitDiff)).toBeGreaterThan(0);
  });

  it('reads a correct attempt beside the deployment at the deployment\'s departure, on the same two tokens', async () => {
    const deployed = { prompt: '12-42=', route: [0, 1, 2, 3, 4, 5], silence: [], gold: '-30', response: '-29' };
    const attempt = { ...deployed, route: [0, 1, 1, 2, 3, 4, 5], response: '-30', deployed: '-29' };
    const [d, a] = [await readAttempt(engine, deployed), await readAttempt(engine, attempt)];
    if (d.kind !== 'readout' || a.kind !== 'readout') throw new Error('expected two read-outs');
    expect([a.position, a.prefix, a.gold, a.emitted, a.versus]).toEqual([d.position, d.prefix, d.gold, d.emitted, 'deployed']);
    expect(a.route).toEqual(attempt.route);
    // alone, the same correct attempt has no token to compare: nothing is read
    expect(await readAttempt(engine, { ...attempt, deployed: undefined })).toEqual({ kind: 'matches', response: '-30', longer: false });
  });
});

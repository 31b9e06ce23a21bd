// The look inside (engine/readout.ts) of the in-process engine (Node, WASM EP), per-layer and span
// graphs, against the float64 reference on the three reference checkpoints: lens logits and
// probabilities and every attribution within the logits' tolerance (expected.json), ranks equal,
// the attribution identity within it, and the reference itself checked against expected.json.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalEngine } from './engine.ts';
import { type Expected } from './conformance.ts';
import { loadReference, type Reference } from './reference.ts';
import { openCheckpoint } from './checkpoint.ts';
import { openReader } from './sources/reader.ts';
import { attemptRow, readoutDiff, standing } from './readout.ts';
import { isEngineError, type ReadoutRow } from './types.ts';

const MODELS = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'] as const;
const LAYER_GRAPHS = ['per-layer', 'spans'] as const;
/** Cases with a changed route, a silenced MLP, and both. */
const CASES = ['default', 'loop-back', 'silence-mlp', 'route-and-silence'];
const fixture = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url).pathname;

describe.each(MODELS)('%s: the reference read-out', (name) => {
  const expected = JSON.parse(readFileSync(`${fixture(name)}expected.json`, 'utf8')) as Expected;
  let ref: Reference;
  beforeAll(async () => {
    ref = await loadReference(await openCheckpoint(openReader({ kind: 'fs', dir: fixture(name) })));
  });

  it('ends in expected.json logits, emits the greedy token, and its attributions sum to the logit difference', () => {
    for (const c of expected.cases) {
      const gold = expected.cases[(expected.cases.indexOf(c) + 1) % expected.cases.length].greedy_tokens[0];
      const r = ref.readout({ promptIds: expected.input_ids, route: c.route, silence: c.silence, gold });
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
  const expected = JSON.parse(readFileSync(`${fixture(name)}expected.json`, 'utf8')) as Expected;
  const tol = expected.tolerance.abs;
  let engine: LocalEngine;
  let ref: Reference;

  beforeAll(async () => {
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: fixture(name) }, { ep: 'wasm', maxSeqLen: 64, layerGraphs });
    ref = await loadReference(await openCheckpoint(openReader({ kind: 'fs', dir: fixture(name) })));
  });
  afterAll(async () => engine.dispose());

  it.each(CASES)('case %s equals the float64 reference within the logits tolerance', async (caseName) => {
    const c = expected.cases.find((x) => x.name === caseName)!;
    const gold = expected.cases[0].greedy_tokens[1];
    const row = { promptIds: expected.input_ids, route: c.route, silence: c.silence, gold };
    const got = await engine.readout(row);
    const want = ref.readout(row);
    const { maxAbsDiff, ranksEqual } = readoutDiff(got, want);
    expect(maxAbsDiff, `${caseName}: max |engine − reference|`).toBeLessThanOrEqual(tol);
    expect(ranksEqual, `${caseName}: ranks`).toBe(true);
    expect(got.identityError, `${caseName}: embed + Σattn + Σmlp − logit difference`).toBeLessThanOrEqual(tol);
    // its last lens point is the engine's own logits for the row
    const [logits] = await engine.logits(row);
    expect(got.lens[got.lens.length - 1].gold).toEqual(standing(logits, gold));
  });

  it('takes a chosen emitted token and refuses bad tokens by name, staying usable', async () => {
    const row = { promptIds: expected.input_ids, route: [0, 1], silence: [], gold: 3, emitted: 5 };
    expect((await engine.readout(row)).emitted).toBe(5);
    const V = (await engine.info())!.vocabSize;
    const bads: [ReadoutRow, RegExp][] = [[{ ...row, gold: V }, /gold token/], [{ ...row, emitted: -1 }, /emitted token/], [{ ...row, route: [99] }, /route\[0\] = 99/]];
    for (const [bad, what] of bads) {
      const err = await engine.readout(bad).catch((e: unknown) => e);
      expect(isEngineError(err) && err.code).toBe('bad-input');
      expect((err as Error).message).toMatch(what);
    }
    expect((await engine.readout(row)).lens).toHaveLength(3);
  });
});

describe('attemptRow', () => {
  const chars = { encode: async (t: string) => Array.from(t, (c) => c.charCodeAt(0)) };
  const look = { prompt: 'A:', route: [0, 1], silence: [1], gold: '36', response: '47 apples' };

  it("reads the gold answer's and the response's first token after the prompt", async () => {
    expect(await attemptRow(chars, look)).toEqual({ promptIds: [65, 58], route: [0, 1], silence: [1], gold: 51, emitted: 52 });
    // the gold answer starts as the response does (its leading whitespace); no response: greedy
    expect(await attemptRow(chars, { ...look, response: ' 47' })).toMatchObject({ gold: 32, emitted: 32 });
    expect(await attemptRow(chars, { ...look, response: '' })).not.toHaveProperty('emitted');
  });

  it('refuses an empty gold answer or prompt by name', async () => {
    await expect(attemptRow(chars, { ...look, gold: ' ' })).rejects.toThrow(/gold answer is empty/);
    await expect(attemptRow(chars, { ...look, prompt: '' })).rejects.toThrow(/prompt is empty/);
  });
});

// Conformance of the in-process engine (Node, WASM EP, or the native CPU EP: testing/test-ep.ts) against the three reference checkpoints:
// every case of expected.json, KV-cached decode vs recomputation, batched vs one-by-one rows,
// scoring vs logits, and bad input that leaves the engine usable; with per-layer graphs (the WASM
// default) and with span graphs fed the layers' weights (the WebGPU default: runtime/model.ts).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalEngine } from './engine.ts';
import { checkConformance, conformanceFailures, maxAbsDiff, type Expected } from './conformance.ts';
import { logSoftmaxAt } from './sampling.ts';
import { TEST_EP } from './testing/test-ep.ts';

const MODELS = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'] as const;
const fixture = (m: string) => new URL(`../../test/fixtures/reference/${m}/`, import.meta.url).pathname;

const LAYER_GRAPHS = ['per-layer', 'spans'] as const;

describe.each(MODELS.flatMap((m) => LAYER_GRAPHS.map((g) => [m, g] as const)))('%s, %s graphs', (name, layerGraphs) => {
  const expected = JSON.parse(readFileSync(`${fixture(name)}expected.json`, 'utf8')) as Expected;
  const tol = expected.tolerance.abs;
  let engine: LocalEngine;

  beforeAll(async () => {
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: fixture(name) }, { ep: TEST_EP, maxSeqLen: 64, layerGraphs });
  });
  afterAll(async () => engine.dispose());

  it('reproduces every case of expected.json (logits, argmax, greedy, cached = recomputed, batched = single)', async () => {
    expect(tol).toBe(2e-3);
    const report = await checkConformance(engine, expected);
    for (const c of report.cases) {
      expect(c.maxAbsDiff, `${c.name}: last_logits max |diff|`).toBeLessThanOrEqual(tol);
      expect(c.argmaxExact, `${c.name}: all_position_argmax`).toBe(true);
      expect(c.greedyTokens, `${c.name}: greedy_tokens`).toEqual(expected.cases.find((e) => e.name === c.name)!.greedy_tokens);
      expect(c.cachedEqualsRecomputed, `${c.name}: KV-cached greedy = recomputation`).toBe(true);
    }
    expect(report.cases).toHaveLength(expected.cases.length);
    expect(report.defaultAllMaxAbsDiff, 'default_all_logits max |diff|').toBeLessThanOrEqual(tol);
    expect(report.batchedEqualsSingle).toBe(true);
    expect(conformanceFailures(report, expected, 'f32')).toEqual([]);
  });

  it('gives the same logprobs for rows batched with different routes and silence sets as one by one', async () => {
    const rows = expected.cases.map((c, i) => ({
      promptIds: i % 2 ? expected.input_ids : expected.input_ids.slice(0, 7 + (i % 3)),
      route: c.route,
      silence: c.silence,
      sampling: { kind: 'greedy' as const },
    }));
    const opts = { maxNewTokens: 5, eosTokenIds: [] };
    const batched = await engine.generate(rows, opts);
    for (const [i, row] of rows.entries()) {
      const [one] = await engine.generate([row], opts);
      expect(batched[i].tokens, `row ${i} tokens`).toEqual(one.tokens);
      expect(maxAbsDiff(batched[i].tokenLogprobs, one.tokenLogprobs), `row ${i} logprobs`).toBeLessThan(1e-4);
    }
  });

  it('scores continuations as the sum of teacher-forced log-probs', async () => {
    const c = expected.cases[1];
    const row = { promptIds: expected.input_ids, route: c.route, silence: c.silence };
    const cont = [c.greedy_tokens.slice(0, 3), [5], [7, 8]];
    const [scores] = await engine.score([{ ...row, continuations: cont }]);
    for (const [k, ids] of cont.entries()) {
      let want = 0;
      for (let t = 0; t < ids.length; t++) {
        const [last] = await engine.logits({ ...row, promptIds: [...row.promptIds, ...ids.slice(0, t)] });
        want += logSoftmaxAt(last, ids[t]);
      }
      expect(Math.abs(scores[k] - want), `continuation ${k}`).toBeLessThan(1e-4);
    }
  });

  it('rejects a bad route or silence set with a clear error and keeps working', async () => {
    const L = expected.cases[0].route.length;
    const good = { promptIds: expected.input_ids, route: expected.cases[0].route, silence: [] };
    await expect(engine.logits({ ...good, route: [0, L] })).rejects.toMatchObject({ code: 'bad-input', message: expect.stringContaining(`route[1] = ${L}`) });
    await expect(engine.logits({ ...good, route: [] })).rejects.toMatchObject({ code: 'bad-input' });
    await expect(engine.logits({ ...good, silence: [-1] })).rejects.toMatchObject({ code: 'bad-input', message: expect.stringContaining(`[0, ${L})`) });
    const [last] = await engine.logits(good);
    expect(maxAbsDiff(last, expected.cases[0].last_logits)).toBeLessThanOrEqual(tol);
  });
});

describe('span graphs', () => {
  const expected = JSON.parse(readFileSync(`${fixture('tiny-qwen2')}expected.json`, 'utf8')) as Expected;
  const engines: Partial<Record<(typeof LAYER_GRAPHS)[number], LocalEngine>> = {};

  beforeAll(async () => {
    for (const g of LAYER_GRAPHS) {
      engines[g] = createEngine();
      await engines[g].load({ kind: 'fs', dir: fixture('tiny-qwen2') }, { ep: TEST_EP, maxSeqLen: 64, layerGraphs: g });
    }
  });
  afterAll(async () => Promise.all(Object.values(engines).map((e) => e.dispose())));

  /** session runs per decoded token (prefill and the first token taken out) of greedy rows. */
  async function runsPerToken(engine: LocalEngine, routes: Array<{ route: number[]; silence?: number[] }>): Promise<number> {
    const rows = routes.map((r) => ({ promptIds: expected.input_ids, route: r.route, silence: r.silence ?? [], sampling: { kind: 'greedy' as const } }));
    const s0 = await engine.stats();
    await engine.generate(rows, { maxNewTokens: 1, eosTokenIds: [] });
    const s1 = await engine.stats();
    await engine.generate(rows, { maxNewTokens: 5, eosTokenIds: [] });
    const s2 = await engine.stats();
    return (s2.runs - s1.runs - (s1.runs - s0.runs)) / 4;
  }

  it('decode a token in one run per span of layers plus the head run (6 layers: spans of 4, 2, 1)', async () => {
    const spans = engines.spans!;
    expect(await runsPerToken(spans, [{ route: [0, 1, 2, 3, 4, 5] }])).toBe(3); // [0-3] [4-5] head
    expect(await runsPerToken(spans, [{ route: [0, 1, 2, 3, 4, 5], silence: [3] }])).toBe(3); // silencing is a per-slot input
    expect(await runsPerToken(spans, [{ route: [0, 1, 1, 2, 3, 4, 5] }])).toBe(4); // [0 1 1 2] [3 4] [5] head
    expect(await runsPerToken(spans, [{ route: [0, 1, 2, 3, 1, 2, 3, 4, 5] }])).toBe(4); // [0-3 1-3 4] ... a span repeats layers freely
    expect(await runsPerToken(engines['per-layer']!, [{ route: [0, 1, 2, 3, 4, 5] }])).toBe(7); // a run per layer, head
    // rows on different routes: spans end where any row turns elsewhere, never more runs than per layer
    const mixed = expected.cases.map((c) => ({ route: c.route, silence: c.silence }));
    const [bySpan, byLayer] = [await runsPerToken(spans, mixed), await runsPerToken(engines['per-layer']!, mixed)];
    expect(bySpan).toBeLessThanOrEqual(byLayer);
  });
});

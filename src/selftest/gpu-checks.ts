// The self-test page's WebGPU state checks (?check=gpu-state&repos=...): fresh engine workers
// comparing, per reference case,
//  - q4 on WebGPU with q4 on WASM: the same 4-bit model (unit tests tie WASM q4 to its float64
//    forward pass), so logits within the f32 tolerance and identical greedy tokens; a tied model's
//    embedding is read with GatherBlockQuantized from the head's weights on WebGPU;
//  - f32 on WebGPU with every weight matrix cut into 4 KB parts (as buffer limits force on large
//    models) and with whole matrices;
//  - what batched greedy decoding moves per row and token between CPU and GPU, and how many
//    session runs a decoded token takes (span graphs: runtime/model.ts).
import { spawnEngine } from '../engine/spawn-worker';
import { argmax, maxAbsDiff, type Expected } from '../engine/conformance';
import type { CheckpointSource, EngineDtype, ExecutionProvider } from '../engine/types';

export interface GpuCheck {
  repo: string;
  /** max |Δ logit| over every position of every case, and whether every greedy token matched. */
  q4: { maxAbsDiff: number; greedyEqual: boolean; argmaxEqual: boolean };
  split: { maxAbsDiff: number; greedyEqual: boolean };
  /** Batched greedy decoding of every case as one batch: bytes per row and decoded token. */
  transfer: { upload: number; download: number; rows: number };
  /** session.run() calls per decoded token: one row on the default route, and every case as one
   *  batch (per step); `routeLength` is the default route's (a run per layer would be it + 1). */
  runs: { defaultRoute: number; batch: number; routeLength: number };
}

type Load = { ep: ExecutionProvider; dtype: EngineDtype; maxWeightPartBytes?: number };

export async function checkGpuState(source: Extract<CheckpointSource, { kind: 'hub' }>, expected: Expected): Promise<GpuCheck> {
  const rows = expected.cases.map((c) => ({ promptIds: expected.input_ids, route: c.route, silence: c.silence }));
  const gen = { maxNewTokens: expected.max_new_tokens, eosTokenIds: [] as number[] };
  const run = async (load: Load) => {
    const engine = spawnEngine();
    await engine.load(source, { ep: load.ep, dtype: load.dtype, maxSeqLen: 64, maxWeightPartBytes: load.maxWeightPartBytes });
    const logits = [];
    for (const r of rows) logits.push(...(await engine.logits(r, { allPositions: true })));
    const tokens = [];
    for (const r of rows) tokens.push((await engine.generate([{ ...r, sampling: { kind: 'greedy' } }], gen))[0].tokens);
    const batch = rows.map((r) => ({ ...r, sampling: { kind: 'greedy' as const } }));
    const s0 = await engine.stats!();
    await engine.generate(batch, { ...gen, maxNewTokens: 1 });
    const s1 = await engine.stats!();
    await engine.generate(batch, gen);
    const s2 = await engine.stats!();
    const single = [{ ...rows[0], sampling: { kind: 'greedy' as const } }];
    await engine.generate(single, { ...gen, maxNewTokens: 1 });
    const s3 = await engine.stats!();
    await engine.generate(single, gen);
    const s4 = await engine.stats!();
    engine.terminate();
    const steps = gen.maxNewTokens - 1;
    type Stats = typeof s0;
    // a full generate minus a one-token one (prefill and the first token) per decode step
    const perStep = (first: Stats, one: Stats, full: Stats, k: keyof Stats) => (full[k] - one[k] - (one[k] - first[k])) / steps;
    return {
      logits,
      tokens,
      transfer: { upload: perStep(s0, s1, s2, 'uploadBytes') / rows.length, download: perStep(s0, s1, s2, 'downloadBytes') / rows.length, rows: rows.length },
      runs: { defaultRoute: perStep(s2, s3, s4, 'runs'), batch: perStep(s0, s1, s2, 'runs'), routeLength: rows[0].route.length },
    };
  };
  const compare = (a: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>) => ({
    maxAbsDiff: Math.max(...a.logits.map((l, i) => maxAbsDiff(l, b.logits[i]))),
    greedyEqual: a.tokens.every((t, i) => t.length === b.tokens[i].length && t.every((x, j) => x === b.tokens[i][j])),
    argmaxEqual: a.logits.every((l, i) => argmax(l) === argmax(b.logits[i])),
  });
  const gpuQ4 = await run({ ep: 'webgpu', dtype: 'q4' });
  const wasmQ4 = await run({ ep: 'wasm', dtype: 'q4' });
  const whole = await run({ ep: 'webgpu', dtype: 'f32' });
  const split = await run({ ep: 'webgpu', dtype: 'f32', maxWeightPartBytes: 4096 });
  const s = compare(split, whole);
  return { repo: source.repo, q4: compare(gpuQ4, wasmQ4), split: { maxAbsDiff: s.maxAbsDiff, greedyEqual: s.greedyEqual }, transfer: whole.transfer, runs: whole.runs };
}

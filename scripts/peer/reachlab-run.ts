// The ReachLab side of the peer benchmarks as a function: load, prefill, decode and the batched route
// workload on the spec's EP, with the same JSON fields as torch_side.py. bench:peer runs it in a
// process of its own (reachlab-side.ts); bench:gpu in its own process over Dawn.
import { createEngine } from '../../src/engine/engine.ts';
import { getOrt, setThreads } from '../../src/engine/ort.ts';
import { gpuDispatches } from '../../src/engine/node-webgpu.ts';
import type { EngineDtype, GenerateRow } from '../../src/engine/types.ts';
import { checkEp } from '../lib/ep-flag.ts';
import { median } from './plan.ts';
import type { SideRun, SideSpec } from './side.ts';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, (performance.now() - t0) / 1000];
}

export async function reachlabRun(spec: SideSpec): Promise<SideRun> {
  const ep = spec.ep ?? 'wasm';
  // the engine picks all cores; the benchmark pins both sides to the same count before the first session
  if (ep !== 'webgpu') setThreads(await getOrt(ep, spec.runtime), spec.threads);
  const engine = createEngine();
  const [info, loadS] = await timed(() => engine.load({ kind: 'fs', dir: spec.dir }, { ep, ...(spec.runtime ? { runtime: spec.runtime } : {}), dtype: spec.mode as EngineDtype, maxSeqLen: spec.maxSeqLen }));
  checkEp(info, { ep, ...(spec.runtime ? { runtime: spec.runtime } : {}) });
  const full = Array.from({ length: info.numLayers }, (_, i) => i);
  const row = (promptIds: number[], route = full): GenerateRow => ({ promptIds, route, silence: [], sampling: { kind: 'greedy' } });
  const gen = (rows: GenerateRow[], n: number) => engine.generate(rows, { maxNewTokens: n, eosTokenIds: [] });
  await gen([row(spec.prompts[0].slice(0, 8))], 2); // warm-up
  const prefill: SideRun['prefill'] = [];
  for (const p of spec.prompts) {
    const [, first] = await timed(() => gen([row(p)], 1));
    const runs: number[] = [];
    for (let i = 0; i < spec.prefillReps; i++) runs.push((await timed(() => gen([row(p)], 1)))[1]);
    prefill.push({ tokens: p.length, s: median(runs), first_s: first });
  }
  const counts = async () => ({ ...(await engine.stats()), dispatches: ep === 'webgpu' ? gpuDispatches() : 0 });
  const c0 = await counts();
  const [, oneS] = await timed(() => gen([row(spec.prompts[0])], 1));
  const c1 = await counts();
  const [many, manyS] = await timed(() => gen([row(spec.prompts[0])], 1 + spec.decodeTokens));
  const c2 = await counts();
  // the longer decode minus the one-token one: the decoded tokens alone, prefill taken out
  const perToken = (k: 'runs' | 'dispatches' | 'uploadBytes' | 'downloadBytes') => (c2[k] - c1[k] - (c1[k] - c0[k])) / spec.decodeTokens;
  const [routed, routeS] = await timed(() => gen(spec.routes.map((r) => row(spec.prompts[0], r)), spec.routeTokens));
  const after = await engine.stats();
  const perRoute = (n: number) => n / spec.routes.length;
  const work = {
    runs_per_attempt: perRoute(after.runs - c2.runs),
    layer_tokens_per_attempt: perRoute(after.layerTokens - c2.layerTokens),
    unshared_layer_tokens_per_attempt: perRoute(spec.routes.reduce((n, r) => n + r.length * (spec.prompts[0].length + spec.routeTokens - 1), 0)),
  };
  await engine.dispose();
  const decodeWork = {
    runs_per_token: perToken('runs'),
    dispatches_per_token: ep === 'webgpu' ? perToken('dispatches') : null,
    upload_bytes_per_token: perToken('uploadBytes'),
    download_bytes_per_token: perToken('downloadBytes'),
  };
  return {
    side: 'reachlab', mode: info.dtype, threads: info.threads ?? null, versions: info.runtime ? { [info.runtime.name]: info.runtime.version } : {},
    load_s: loadS, prefill,
    decode: { tokens: spec.decodeTokens, one_s: oneS, many_s: manyS, ids: many[0].tokens, work: decodeWork },
    routes: { count: spec.routes.length, tokens: spec.routeTokens, s: routeS, ids: routed.map((r) => r.tokens), work },
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    adapter: info.adapter ?? null,
  };
}

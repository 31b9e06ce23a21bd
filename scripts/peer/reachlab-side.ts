// The ReachLab side of the peer benchmark, in its own process (a fresh WebAssembly heap per run,
// its own peak RSS): load, prefill, decode and the batched route workload on the WASM EP, with the
// same JSON fields as torch_side.py. Prints one JSON line.
//   tsx scripts/peer/reachlab-side.ts SPEC.json
import { readFileSync } from 'node:fs';
import { createEngine } from '../../src/engine/engine.ts';
import { getOrt } from '../../src/engine/ort.ts';
import type { EngineDtype, GenerateRow } from '../../src/engine/types.ts';
import { median } from './plan.ts';
import type { SideRun, SideSpec } from './side.ts';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, (performance.now() - t0) / 1000];
}

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as SideSpec;
  // the engine picks all cores; the benchmark pins both sides to the same count before the first session
  (await getOrt()).env.wasm.numThreads = spec.threads;
  const engine = createEngine();
  const [info, loadS] = await timed(() => engine.load({ kind: 'fs', dir: spec.dir }, { ep: 'wasm', dtype: spec.mode as EngineDtype, maxSeqLen: spec.maxSeqLen }));
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
  const [, oneS] = await timed(() => gen([row(spec.prompts[0])], 1));
  const [many, manyS] = await timed(() => gen([row(spec.prompts[0])], 1 + spec.decodeTokens));
  const before = await engine.stats();
  const [routed, routeS] = await timed(() => gen(spec.routes.map((r) => row(spec.prompts[0], r)), spec.routeTokens));
  const after = await engine.stats();
  const perRoute = (n: number) => n / spec.routes.length;
  const work = {
    runs_per_attempt: perRoute(after.runs - before.runs),
    layer_tokens_per_attempt: perRoute(after.layerTokens - before.layerTokens),
    unshared_layer_tokens_per_attempt: perRoute(spec.routes.reduce((n, r) => n + r.length * (spec.prompts[0].length + spec.routeTokens - 1), 0)),
  };
  await engine.dispose();
  const out: SideRun = {
    side: 'reachlab', mode: info.dtype, threads: info.threads ?? null, versions: { 'onnxruntime-web': (await getOrt()).env.versions.web ?? null },
    load_s: loadS, prefill,
    decode: { tokens: spec.decodeTokens, one_s: oneS, many_s: manyS, ids: many[0].tokens },
    routes: { count: spec.routes.length, tokens: spec.routeTokens, s: routeS, ids: routed.map((r) => r.tokens), work },
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0), // onnxruntime's worker threads would keep the process alive
  (e) => {
    process.stderr.write(`reachlab-side: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);

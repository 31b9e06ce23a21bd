// The self-test page in engine-benchmark mode (?bench=engine&spec=<EngineBenchSpec JSON>): batched
// greedy decoding on this browser's engine, reporting per row and decoded token the bytes that
// crossed between CPU and device and the session runs per decode step (scripts/bench-engine.ts
// drives it). Decode-only counts: generate(1 + N) minus generate(1), over N steps of R rows.
import { spawnEngine } from '../engine/spawn-worker';
import type { CheckpointSource, EngineDtype, EngineStats, ExecutionProvider } from '../engine/types';

export interface EngineBenchSpec {
  source: CheckpointSource;
  ep: ExecutionProvider;
  dtype: EngineDtype;
  promptIds: number[];
  routes: number[][];
  newTokens: number;
}

export interface EngineBenchResult {
  ep: ExecutionProvider;
  adapter: string | null;
  dtype: EngineDtype;
  rows: number;
  new_tokens: number;
  transfer_bytes_per_token: { upload: number; download: number };
  runs_per_token: number;
  decode_s: number;
}

export async function runEngineBenchPage(specJson: string, statusEl: HTMLElement): Promise<void> {
  const spec = JSON.parse(specJson) as EngineBenchSpec;
  statusEl.textContent = `bench:engine on ${spec.ep}…`;
  const engine = spawnEngine();
  try {
    const info = await engine.load(spec.source, { ep: spec.ep, dtype: spec.dtype, maxSeqLen: spec.promptIds.length + spec.newTokens + 1 });
    const rows = spec.routes.map((route) => ({ promptIds: spec.promptIds, route, silence: [], sampling: { kind: 'greedy' as const } }));
    const gen = (n: number) => engine.generate(rows, { maxNewTokens: n, eosTokenIds: [] });
    await gen(1); // first-run costs (shader compilation) stay out
    const s0 = await engine.stats!();
    await gen(1);
    const s1 = await engine.stats!();
    const t0 = performance.now();
    await gen(1 + spec.newTokens);
    const decodeS = (performance.now() - t0) / 1000;
    const s2 = await engine.stats!();
    const decodeOnly = (k: keyof EngineStats) => s2[k] - s1[k] - (s1[k] - s0[k]);
    const perRowToken = spec.routes.length * spec.newTokens;
    const result: EngineBenchResult = {
      ep: info.ep,
      adapter: info.adapter ?? null,
      dtype: info.dtype,
      rows: rows.length,
      new_tokens: spec.newTokens,
      transfer_bytes_per_token: { upload: decodeOnly('uploadBytes') / perRowToken, download: decodeOnly('downloadBytes') / perRowToken },
      runs_per_token: decodeOnly('runs') / spec.newTokens,
      decode_s: decodeS,
    };
    statusEl.textContent = 'done';
    statusEl.dataset.done = 'pass';
    (window as unknown as { __engineBench: EngineBenchResult }).__engineBench = result;
  } finally {
    engine.terminate();
  }
}

// Engine benchmark (Node, WASM EP). Prints one JSON object on stdout and a short table on stderr.
//
//   npm run -s bench:engine [-- --model DIR] [--dtype f32|f16|q4|q4f16|q8] [--skip-precision] [--skip-speed] [--skip-webgpu] [--skip-spans]
//
// Without --model it generates (once, into .cache/) a checkpoint with Qwen2.5-0.5B per-layer
// shapes (hidden 896, 14 heads, 2 KV heads, head_dim 64, intermediate 4864, vocab 151936) and 8
// layers of seeded random BF16 weights. It measures prefill and batch-1 decode speed, then one
// 64-token prompt under 32 distinct routes drawn from the blocks route space, 16 new tokens each,
// run one route at a time vs all 32 rows in one generate() (attempts/s and session runs per
// attempt) in the --dtype mode (default f32), and a precision report of f16, q4, q4f16 and q8 against
// f32 on the three reference checkpoints and the built-in micro model (trained weights: the more
// telling case). Then, in headless Chromium on the WebGPU EP (the app built and served by vite
// preview: run it under the team's e2e lock), batched greedy decoding of WEBGPU_ROUTES block routes:
// `webgpu.transfer_bytes_per_token` {upload, download} per row and decoded token, and
// `webgpu.runs_per_token`, session runs per decode step (src/selftest/engine-page.ts). Last,
// `span_runs`: session runs per decode step of 1, 8 and 32 block routes at 24, 28 and 36 layers with
// a session per layer vs span graphs (WebGPU's), as the scheduler decides them (scripts/lib/span-runs.ts).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blocksSpace } from '../src/audit/presets.ts';
import { sampleRoutes } from '../src/audit/routes.ts';
import { createEngine, type LocalEngine } from '../src/engine/engine.ts';
import { dtypeRefusal } from '../src/engine/memory.ts';
import { createPrng } from '../src/util/prng.ts';
import { QWEN25_05B_8_LAYERS, writeCheckpoint } from './lib/make-checkpoint.ts';
import { type EngineDtype, type ForwardRow, type GenerateRow } from '../src/engine/types.ts';
import { arithText, generateArith } from '../src/audit/tasks/arith.ts';
import type { EngineBenchResult, EngineBenchSpec } from '../src/selftest/engine-page.ts';
import { startHubServer } from '../test/hub-server.ts';
import { runPage, withPreview } from './lib/chromium.ts';
import { spanRuns } from './lib/span-runs.ts';
import { answerHelp } from './lib/cli-help.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'];
const MICRO_DIR = 'public/hub/reachlab/micro-arith/resolve/main';
const PROMPT_LEN = 64;
const NEW_TOKENS = 16;
const ROUTES = 32;
const DECODE_STEPS = 32;
/** SwiftShader (WebGPU on the CPU) takes tens of seconds per step: a small batch, two tokens. */
const WEBGPU_ROUTES = 8;
const WEBGPU_PROMPT = 8;
const WEBGPU_NEW_TOKENS = 2;

/** Writes the synthetic checkpoint (with a generated tokenizer of its 151,936 ids) unless it is already there. */
function ensureSyntheticCheckpoint(): string {
  const dir = join(root, '.cache', 'bench-qwen2.5-0.5b-8-layers');
  if (!existsSync(join(dir, 'config.json'))) writeCheckpoint(dir, null, QWEN25_05B_8_LAYERS, 20250101); // config.json is written last
  return dir;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; s: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, s: (performance.now() - t0) / 1000 };
}

async function speed(engine: LocalEngine, numLayers: number, vocab: number) {
  const rng = createPrng(7);
  const prompt = Array.from({ length: PROMPT_LEN }, () => rng.int(vocab));
  const route = Array.from({ length: numLayers }, (_, i) => i);
  const greedy = { kind: 'greedy' as const };
  const gen = (rows: GenerateRow[], n: number) => engine.generate(rows, { maxNewTokens: n, eosTokenIds: [] });
  await gen([{ promptIds: prompt.slice(0, 8), route, silence: [], sampling: greedy }], 2); // warm-up
  // best of two against noise from other work on the machine; decode speed from the difference
  // of a 1-token and a (1 + DECODE_STEPS)-token generate
  const best = async (fn: () => Promise<unknown>) => Math.min((await timed(fn)).s, (await timed(fn)).s);
  const defaultRow = { promptIds: prompt, route, silence: [], sampling: greedy };
  const preS = await best(() => engine.logits(defaultRow));
  const oneS = await best(() => gen([defaultRow], 1));
  const manyS = await best(() => gen([defaultRow], 1 + DECODE_STEPS));

  // one edit: skip or repeat one contiguous block of 1–4 layers
  const routes = sampleRoutes(blocksSpace(numLayers, { maxEdits: 1 }), ROUTES, createPrng(11));
  const rows = routes.map((r) => ({ promptIds: prompt, route: r, silence: [], sampling: greedy }));
  let runs0 = engine.runs;
  const single = await timed(async () => {
    for (const row of rows) await gen([row], NEW_TOKENS);
  });
  const singleRuns = (engine.runs - runs0) / ROUTES;
  runs0 = engine.runs;
  const batched = await timed(() => gen(rows, NEW_TOKENS));
  const batchedRuns = (engine.runs - runs0) / ROUTES;
  return {
    prefill_tokens_per_s: PROMPT_LEN / preS,
    decode_tokens_per_s: manyS > oneS ? DECODE_STEPS / (manyS - oneS) : null,
    attempts_per_s: { single: ROUTES / single.s, batched: ROUTES / batched.s },
    batched_vs_single_ratio: single.s / batched.s,
    runs_per_attempt: { single: singleRuns, batched: batchedRuns },
    routes: ROUTES,
    prompt_tokens: PROMPT_LEN,
    new_tokens: NEW_TOKENS,
  };
}

/** Rows to compare precision on: every reference case, and 100 held-out questions for the micro model. */
function precisionSets(): { name: string; dir: string; rows: ForwardRow[] }[] {
  const sets = REFERENCE.map((m) => {
    const dir = join(root, 'test/fixtures/reference', m);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as { input_ids: number[]; cases: { route: number[]; silence: number[] }[] };
    return { name: m, dir, rows: expected.cases.map((c) => ({ promptIds: expected.input_ids, route: c.route, silence: c.silence })) };
  });
  // The micro model's tokenizer is one id per character, in the order of its vocabulary (tokenizer.json).
  const micro = join(root, MICRO_DIR);
  const vocab = (JSON.parse(readFileSync(join(micro, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  const L = (JSON.parse(readFileSync(join(micro, 'config.json'), 'utf8')) as { num_hidden_layers: number }).num_hidden_layers;
  const rows = generateArith('arith-2d', 'test', 100, 1).map((q) => ({
    promptIds: Array.from(arithText(q), (ch) => vocab[ch]),
    route: Array.from({ length: L }, (_, i) => i),
    silence: [],
  }));
  return [...sets, { name: 'micro-arith', dir: micro, rows }];
}

/** Top-1 agreement and mean KL(f32 ‖ dtype) over every prompt position of every precision row. */
async function precision(dtype: EngineDtype) {
  const perModel: Record<string, { top1_agreement: number; mean_kl: number; positions: number }> = {};
  for (const { name, dir, rows } of precisionSets()) {
    const ref = createEngine();
    const low = createEngine();
    await ref.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: 'f32', maxSeqLen: 64 });
    await low.load({ kind: 'fs', dir }, { ep: 'wasm', dtype, maxSeqLen: 64 });
    let agree = 0;
    let kl = 0;
    let n = 0;
    for (const row of rows) {
      const a = await ref.logits(row, { allPositions: true });
      const b = await low.logits(row, { allPositions: true });
      a.forEach((la, p) => {
        const pa = softmax(la);
        const pb = softmax(b[p]);
        if (argmaxOf(la) === argmaxOf(b[p])) agree++;
        for (let i = 0; i < pa.length; i++) if (pa[i] > 0) kl += pa[i] * (Math.log(pa[i]) - Math.log(Math.max(pb[i], 1e-300)));
        n++;
      });
    }
    perModel[name] = { top1_agreement: agree / n, mean_kl: kl / n, positions: n };
    await ref.dispose();
    await low.dispose();
  }
  return perModel;
}

/** Batched greedy decode on the WebGPU EP in headless Chromium, through a local Hub server. */
async function webgpu(dir: string, dtype: EngineDtype): Promise<EngineBenchResult> {
  const hub = await startHubServer({ repos: { 'bench/engine': dir } });
  try {
    const L = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { num_hidden_layers: number }).num_hidden_layers;
    const vocab = (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { vocab_size: number }).vocab_size;
    const rng = createPrng(7);
    const spec: EngineBenchSpec = {
      source: { kind: 'hub', repo: 'bench/engine', revision: 'main', endpoint: hub.url },
      ep: 'webgpu',
      dtype,
      promptIds: Array.from({ length: WEBGPU_PROMPT }, () => rng.int(vocab)),
      routes: sampleRoutes(blocksSpace(L, { maxEdits: 1 }), WEBGPU_ROUTES, createPrng(11)),
      newTokens: WEBGPU_NEW_TOKENS,
    };
    const log = (line: string) => process.stderr.write(`bench:engine: ${line}\n`);
    return await withPreview({ root, port: Number(process.env.BENCH_PORT ?? 4177), build: true, log }, async (preview) => {
      log('WebGPU batched decode in Chromium…');
      const { result } = await runPage<EngineBenchResult>(preview, `/selftest.html?bench=engine&spec=${encodeURIComponent(JSON.stringify(spec))}`, '__engineBench', 3600);
      return result;
    });
  } finally {
    await hub.close();
  }
}

function softmax(l: Float32Array): Float64Array {
  let max = -Infinity;
  for (const v of l) if (v > max) max = v;
  const p = Float64Array.from(l, (v) => Math.exp(v - max));
  const s = p.reduce((a, b) => a + b, 0);
  return p.map((v) => v / s);
}

function argmaxOf(l: Float32Array): number {
  let b = 0;
  for (let i = 1; i < l.length; i++) if (l[i] > l[b]) b = i;
  return b;
}

async function main() {
  const args = process.argv.slice(2);
  answerHelp(args, import.meta.url);
  const mi = args.indexOf('--model');
  const dir = mi >= 0 ? resolve(args[mi + 1] ?? '') : ensureSyntheticCheckpoint();
  const di = args.indexOf('--dtype');
  const speedDtype = (di >= 0 ? args[di + 1] : 'f32') as EngineDtype;
  const result: Record<string, unknown> = {};
  let table: string[] = [];
  if (!args.includes('--skip-speed')) {
    const engine = createEngine();
    const load = await timed(() => engine.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: speedDtype, maxSeqLen: 128 }));
    const info = load.value;
    const r = await speed(engine, info.numLayers, info.vocabSize);
    await engine.dispose();
    Object.assign(result, { model: mi >= 0 ? info.name : 'synthetic Qwen2.5-0.5B shapes, 8 layers', ep: info.ep, dtype: info.dtype, load_s: load.s, ...r });
    const f = (x: number) => x.toFixed(2);
    table = [
      `model            ${result.model} (${info.ep}, ${info.dtype})`,
      `prefill          ${f(r.prefill_tokens_per_s)} tok/s`,
      `decode (batch 1) ${r.decode_tokens_per_s === null ? 'unmeasured (timing noise)' : f(r.decode_tokens_per_s)} tok/s`,
      `attempts/s       single ${f(r.attempts_per_s.single)}  batched ${f(r.attempts_per_s.batched)}  ratio ${f(r.batched_vs_single_ratio)} (target ≥ 2)`,
      `runs/attempt     single ${f(r.runs_per_attempt.single)}  batched ${f(r.runs_per_attempt.batched)}  (target batched ≤ single/8)`,
    ];
  }
  const gpuRefusal = dtypeRefusal(speedDtype, 'webgpu');
  if (!args.includes('--skip-webgpu') && gpuRefusal) table.push(`webgpu           skipped: ${gpuRefusal}`);
  if (!args.includes('--skip-webgpu') && !gpuRefusal) {
    const w = await webgpu(dir, speedDtype);
    result.webgpu = w;
    table.push(
      `webgpu           ${w.rows} routes × ${w.new_tokens} tokens (${w.ep}, ${w.dtype}${w.adapter ? `, ${w.adapter}` : ''}): `
        + `transfer/row/token up ${w.transfer_bytes_per_token.upload.toFixed(1)} B  down ${w.transfer_bytes_per_token.download.toFixed(1)} B (goal ≤ 16 each)  runs/token ${w.runs_per_token.toFixed(1)}`,
    );
  }
  if (!args.includes('--skip-precision')) {
    const precisionReport = { f16: await precision('f16'), q4: await precision('q4'), q4f16: await precision('q4f16'), q8: await precision('q8') };
    result.precision = precisionReport;
    for (const [dtype, rep] of Object.entries(precisionReport)) {
      for (const [m, x] of Object.entries(rep)) {
        table.push(`${dtype.padEnd(5)} vs f32 ${m.padEnd(11)} top-1 agreement ${(x.top1_agreement * 100).toFixed(1)}%  mean KL ${x.mean_kl.toExponential(2)}`);
      }
    }
  }
  if (!args.includes('--skip-spans')) {
    const rows = await spanRuns();
    result.span_runs = rows;
    table.push('runs/decode step  layers  rows  per-layer  spans');
    for (const r of rows) table.push(`                  ${String(r.layers).padEnd(6)}  ${String(r.rows).padEnd(4)}  ${String(r.per_layer).padEnd(9)}  ${r.spans}`);
  }
  process.stdout.write(JSON.stringify(result) + '\n');
  process.stderr.write(table.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(`bench-engine: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

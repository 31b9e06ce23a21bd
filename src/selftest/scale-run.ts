// One row of the scale benchmark (scripts/bench-scale.ts), the same procedure in Node and on the
// self-test page: a model that cannot fit is refused by the engine itself from its config alone;
// otherwise every weight byte is made local once (warm: page cache in Node, the weight cache in the
// browser), then read_s is reading and converting every tensor into the engine's format once
// (no onnxruntime), load_s is engine.load from the same reader; after one untimed generate(1)
// (first-run costs such as WebGPU shader compilation), prefill is generate(1) over the prompt
// (prefill and the first token), decode is generate(1 + N) − generate(1), and runs_per_token the
// session runs of those N steps. Times in seconds.
import { openCheckpoint } from '../engine/checkpoint';
import { precisionOf, withF32Activations } from '../engine/graph/linear';
import { checkFits, MAX_ARRAY_BUFFER_BYTES } from '../engine/memory';
import { parseConfig } from '../engine/config';
import { readHeadWeights, readLayerWeights } from '../engine/runtime/load';
import type { CheckpointReader } from '../engine/sources/reader';
import { isEngineError, type CheckpointSource, type Engine, type EngineDtype, type ExecutionProvider } from '../engine/types';

export type ScaleRuntime = 'node-wasm' | 'chromium-wasm' | 'chromium-webgpu';

export interface ScaleRowSpec {
  shape: string;
  runtime: ScaleRuntime;
  dtype: EngineDtype;
  source: Extract<CheckpointSource, { kind: 'hub' }>;
  promptTokens: number;
  newTokens: number;
}

/** The row as bench:scale prints it (peak_mem_mb and params are filled in by the harness). */
export interface ScaleRow {
  shape: string;
  runtime: ScaleRuntime;
  dtype: EngineDtype;
  ok: boolean;
  error: string | null;
  params: number | null;
  load_s: number | null;
  read_s: number | null;
  peak_mem_mb: number | null;
  prefill_tok_s: number | null;
  decode_tok_s: number | null;
  runs_per_token: number | null;
}

export interface ScaleEnv {
  engine: Required<Pick<Engine, 'load' | 'generate' | 'dispose' | 'stats'>>;
  /** A reader over the same files the engine reads (the browser's goes through the weight cache). */
  openReader(): CheckpointReader;
  /** The dtype the engine will compute in on this EP (f16 without shader-f16 runs as f32). */
  f16: boolean;
  now(): number;
}

const READ_BYTES = 64 * 1024 * 1024;

export async function runScaleRow(spec: ScaleRowSpec, env: ScaleEnv): Promise<ScaleRow> {
  const ep: ExecutionProvider = spec.runtime === 'chromium-webgpu' ? 'webgpu' : 'wasm';
  const dtype = env.f16 ? spec.dtype : withF32Activations(spec.dtype);
  const row: ScaleRow = {
    shape: spec.shape, runtime: spec.runtime, dtype, ok: false, error: null, params: null,
    load_s: null, read_s: null, peak_mem_mb: null, prefill_tok_s: null, decode_tok_s: null, runs_per_token: null,
  };
  const loadOpts = { ep, dtype: spec.dtype, maxSeqLen: spec.promptTokens + spec.newTokens + 1 };
  try {
    const config = parseConfig(JSON.parse(await env.openReader().text('config.json')));
    let fits = true;
    try {
      checkFits(spec.source.repo, config, dtype, ep, loadOpts.maxSeqLen);
    } catch {
      fits = false;
    }
    if (!fits) {
      // a model that cannot fit: the engine's own refusal (after reading config.json only) is the row
      await env.engine.load(spec.source, loadOpts);
      throw new Error(`the engine loaded ${spec.shape} in ${dtype}, which its fit check refuses`);
    }
    await warm(env.openReader());
    row.read_s = await timed(env, () => readAndConvert(env.openReader(), ep, dtype, loadOpts.maxSeqLen));
    row.load_s = await timed(env, () => env.engine.load(spec.source, loadOpts));

    const route = Array.from({ length: config.numLayers }, (_, i) => i);
    const prompt = Array.from({ length: spec.promptTokens }, (_, i) => (i * 7919 + 17) % config.vocabSize);
    const gen = (n: number) => env.engine.generate([{ promptIds: prompt, route, silence: [], sampling: { kind: 'greedy' } }], { maxNewTokens: n, eosTokenIds: [] });
    await gen(1);
    const runs = async () => (await env.engine.stats()).runs;
    const r0 = await runs();
    const one = await timed(env, () => gen(1));
    row.prefill_tok_s = spec.promptTokens / one;
    const r1 = await runs();
    const many = await timed(env, () => gen(1 + spec.newTokens));
    const r2 = await runs();
    row.decode_tok_s = many > one ? spec.newTokens / (many - one) : null;
    // generate(1 + N) is generate(1)'s prefill runs plus N decode steps
    row.runs_per_token = (r2 - r1 - (r1 - r0)) / spec.newTokens;
    row.ok = true;
  } catch (e) {
    row.error = isEngineError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
  } finally {
    await env.engine.dispose().catch(() => undefined);
  }
  return row;
}

async function timed(env: ScaleEnv, fn: () => Promise<unknown>): Promise<number> {
  const t0 = env.now();
  await fn();
  return (env.now() - t0) / 1000;
}

/** Reads every weight file once, so read_s and load_s both start from local bytes. */
async function warm(reader: CheckpointReader): Promise<void> {
  const files = (await reader.exists('model.safetensors.index.json'))
    ? [...new Set(Object.values((JSON.parse(await reader.text('model.safetensors.index.json')) as { weight_map: Record<string, string> }).weight_map))]
    : ['model.safetensors'];
  for (const file of files) {
    const size = await reader.size(file);
    for (let at = 0; at < size; at += READ_BYTES) await reader.range(file, at, Math.min(size, at + READ_BYTES));
  }
}

/** Every tensor read and converted into the engine's format once, as loading does, without onnxruntime. */
async function readAndConvert(reader: CheckpointReader, ep: ExecutionProvider, dtype: EngineDtype, maxSeqLen: number): Promise<void> {
  const ckpt = await openCheckpoint(reader);
  const target = { ep, precision: precisionOf(dtype), maxSeqLen, maxPartBytes: MAX_ARRAY_BUFFER_BYTES };
  for (let i = 0; i < ckpt.config.numLayers; i++) await readLayerWeights(ckpt, i, target);
  await readHeadWeights(ckpt, target);
}

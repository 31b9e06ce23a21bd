// The GPU check (npm run bench:gpu; gpu/bench-gpu.sh starts it): the engine on WebGPU in Node over
// Dawn beside Hugging Face transformers (scripts/peer/torch_side.py's routed loop) on one machine.
//   bench-gpu --out DIR [--smoke] [--work DIR] [--python PY] [--time-limit S] [--hf-device cuda|cpu]
//             [--fixtures DIR] [--torch-side FILE]
// In order of importance, under a time limit (what is done when it comes is written): the reference
// conformance (f32 and f16); the copy bandwidth of the GPU; then per generated checkpoint (written
// into --work on this machine) PyTorch bf16 and f32 and ReachLab's dtypes: prefill, decode of one row,
// the audit workload (block routes × tokens, ReachLab batched, PyTorch a loop). --smoke: small shapes,
// HF on the CPU (here, on SwiftShader). JSON to DIR/bench-gpu.json after every step; a table on stdout.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { blocksSpace, sampleRoutes } from '../../src/audit/routes.ts';
import { getOrt, webGpu } from '../../src/engine/ort.ts';
import { createPrng } from '../../src/util/prng.ts';
import { parameterCount, writeCheckpoint, type CheckpointShape } from '../lib/make-checkpoint.ts';
import { SCALE_SHAPES } from '../lib/scale-models.ts';
import { firstMismatch, weightBytesPerToken, WEIGHT_SCHEMES, type WeightScheme } from '../peer/plan.ts';
import { reachlabRun } from '../peer/reachlab-run.ts';
import { ensurePeerVenv } from '../peer/venv.ts';
import type { SideRun, SideSpec } from '../peer/side.ts';
import { copyBandwidth, type Bandwidth } from './bandwidth.ts';
import { gpuConformance, REFERENCE_MODELS, type ConformanceRow } from './conformance.ts';
import { benchTable } from './table.ts';

/** One checkpoint of the plan: its shape, ReachLab's dtypes and PyTorch's modes, in order. */
interface BenchModel {
  name: string;
  shape: CheckpointShape;
  reachlab: string[];
  pytorch: string[];
}

interface BenchPlan {
  /** The reference checkpoints and dtypes the conformance runs (all on a GPU; the smoke one, as CI runs them all on SwiftShader). */
  conformance: readonly string[];
  conformanceDtypes: readonly ('f32' | 'f16')[];
  models: BenchModel[];
  prompt: number;
  prefill: number;
  decodeTokens: number;
  routes: number;
  routeTokens: number;
  bandwidthBytes: number;
}

const SMOKE_SHAPE: CheckpointShape = { modelType: 'qwen2', layers: 4, hidden: 64, heads: 4, kvHeads: 2, headDim: 16, intermediate: 128, vocab: 512, tied: true, dtype: 'BF16' };

const FULL_PLAN: BenchPlan = {
  conformance: REFERENCE_MODELS,
  conformanceDtypes: ['f32', 'f16'],
  models: [
    { name: 'qwen2.5-0.5b', shape: SCALE_SHAPES['qwen2.5-0.5b'], reachlab: ['q4f16', 'f16', 'f32'], pytorch: ['bf16', 'f32'] },
    { name: 'qwen2.5-1.5b', shape: SCALE_SHAPES['qwen2.5-1.5b'], reachlab: ['q4f16'], pytorch: ['bf16'] },
    { name: 'qwen2.5-3b', shape: SCALE_SHAPES['qwen2.5-3b'], reachlab: ['q4f16'], pytorch: ['bf16'] },
  ],
  prompt: 16, prefill: 512, decodeTokens: 64, routes: 32, routeTokens: 16, bandwidthBytes: 1 << 30,
};

const SMOKE_PLAN: BenchPlan = {
  conformance: REFERENCE_MODELS.slice(0, 1),
  conformanceDtypes: ['f32'],
  models: [{ name: 'smoke-qwen2', shape: SMOKE_SHAPE, reachlab: ['q4f16', 'f32'], pytorch: ['bf16', 'f32'] }],
  prompt: 8, prefill: 16, decodeTokens: 4, routes: 4, routeTokens: 2, bandwidthBytes: 16 << 20,
};

/** Bytes per weight of ReachLab's GPU dtypes (q4f16: 4-bit blocks of 32 with an f16 scale and a 4-bit zero point). */
const GPU_SCHEMES: Record<string, WeightScheme> = {
  ...WEIGHT_SCHEMES,
  'reachlab:f16': { linear: 2, head: 2 },
  'reachlab:q4f16': { linear: (16 + 2 + 0.5) / 32, head: (16 + 2 + 0.5) / 32 },
};

export interface BenchRun {
  model: string;
  side: 'reachlab' | 'pytorch';
  mode: string;
  run?: SideRun;
  error?: string;
  /** Decoded tokens per second over the weights' bytes per token, as a share of the copy bandwidth. */
  bandwidth_share?: number;
  weight_bytes_per_token?: number;
}

export interface BenchResult {
  smoke: boolean;
  started: string;
  adapter: string | null;
  hf_device: string;
  conformance: ConformanceRow[];
  bandwidth: Bandwidth | null;
  runs: BenchRun[];
  /** f32 greedy tokens, ReachLab against PyTorch, per checkpoint: the first differing index (null: identical). */
  f32_tokens: { model: string; decode_first_mismatch: number | null; routes_mismatched: number; routes: number }[];
  /** Steps not run, and why (the time limit). */
  not_run: string[];
  finished: boolean;
}

function args() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      out: { type: 'string' }, smoke: { type: 'boolean', default: false }, work: { type: 'string' }, python: { type: 'string' },
      'time-limit': { type: 'string' }, 'hf-device': { type: 'string' }, fixtures: { type: 'string' }, 'torch-side': { type: 'string' },
    },
    strict: true,
  });
  if (!values.out) throw new Error('--out DIR is required');
  const here = import.meta.dirname;
  const limit = Number(values['time-limit'] ?? (values.smoke ? 3600 : 450));
  if (!(limit > 0)) throw new Error(`--time-limit must be a positive number of seconds, got ${values['time-limit']}`);
  const hfDevice = values['hf-device'] ?? (values.smoke ? 'cpu' : 'cuda');
  if (hfDevice !== 'cpu' && hfDevice !== 'cuda') throw new Error(`--hf-device must be cpu or cuda, got ${hfDevice}`);
  return {
    out: path.resolve(values.out), smoke: values.smoke!, limitS: limit, hfDevice: hfDevice as 'cpu' | 'cuda',
    work: path.resolve(values.work ?? path.join(values.out, 'work')),
    // --smoke here: bench:peer's venv (.cache/peer-venv, torch for the CPU from pip's index)
    python: values.python ?? (values.smoke ? ensurePeerVenv(path.resolve(here, '../..'), (l) => process.stderr.write(`${l}\n`)) : process.env.PYTHON ?? 'python3'),
    fixtures: values.fixtures ?? path.resolve(here, '../../test/fixtures/reference'),
    torchSide: values['torch-side'] ?? path.resolve(here, '../peer/torch_side.py'),
  };
}

/** Runs torch_side.py on a spec; rejects with its stderr's last lines, or when `ms` pass. */
function torchRun(python: string, sidePy: string, specFile: string, ms: number): Promise<SideRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [sidePy, 'run', specFile], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TOKENIZERS_PARALLELISM: 'false' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(1000, ms));
    child.on('error', (e) => reject(new Error(`${python}: ${e.message}`)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        try {
          return resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as SideRun);
        } catch {
          return reject(new Error(`torch_side.py printed no JSON: ${out.slice(-300)}`));
        }
      }
      reject(new Error(signal ? `PyTorch stopped at the time limit (${signal})` : `torch_side.py exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

async function main(): Promise<void> {
  const o = args();
  const plan = o.smoke ? SMOKE_PLAN : FULL_PLAN;
  const deadline = performance.now() + o.limitS * 1000;
  const left = () => deadline - performance.now();
  mkdirSync(o.out, { recursive: true });
  mkdirSync(o.work, { recursive: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result: BenchResult = {
    smoke: o.smoke, started: new Date().toISOString(), adapter: null, hf_device: o.hfDevice,
    conformance: [], bandwidth: null, runs: [], f32_tokens: [], not_run: [], finished: false,
  };
  const save = () => writeFileSync(path.join(o.out, 'bench-gpu.json'), JSON.stringify(result, null, 1));
  const finish = (code: number) => {
    save();
    process.stdout.write(benchTable(result));
    process.exit(code);
  };
  // the limit stops whatever runs then (a GPU step cannot be interrupted otherwise): what is done is written
  setTimeout(() => {
    result.not_run.push(`stopped at the time limit (${o.limitS} s) during the step in progress`);
    finish(0);
  }, left()).unref();

  log('reference conformance on WebGPU…');
  result.conformance = await gpuConformance(o.fixtures, plan.conformanceDtypes, log, plan.conformance);
  result.adapter = result.conformance.find((r) => r.adapter)?.adapter ?? null;
  save();

  log('copy bandwidth…');
  await getOrt('webgpu');
  result.bandwidth = await copyBandwidth(webGpu()!, plan.bandwidthBytes).catch((e: Error) => {
    result.not_run.push(`bandwidth: ${e.message}`);
    return null;
  });
  save();

  let writeRate = 0; // parameters written per second
  for (const m of plan.models) {
    if (left() < 20_000) {
      result.not_run.push(`${m.name}: no time left`);
      continue;
    }
    const dir = path.join(o.work, m.name);
    // the write is synchronous: a shape whose write would outlast the limit (at the rate of the last one) is left out
    const params = parameterCount(m.shape);
    if (writeRate && params / writeRate > left() / 1000 - 60) {
      result.not_run.push(`${m.name}: its checkpoint would take about ${(params / writeRate).toFixed(0)} s to write, more than the time left`);
      continue;
    }
    log(`${m.name}: writing the checkpoint…`);
    const w0 = performance.now();
    writeCheckpoint(dir, null, m.shape, 20250101, { maxShardBytes: 2 * 1024 ** 3 });
    writeRate = params / ((performance.now() - w0) / 1000);
    const rng = createPrng(7);
    const ids = (n: number) => Array.from({ length: n }, () => rng.int(m.shape.vocab));
    const base: Omit<SideSpec, 'mode'> = {
      dir, threads: 1, prefillReps: 3, decodeTokens: plan.decodeTokens, routeTokens: plan.routeTokens,
      prompts: [ids(plan.prompt), ids(plan.prefill)],
      routes: sampleRoutes(blocksSpace(m.shape.layers, { maxEdits: 1 }), plan.routes, createPrng(11)),
      maxSeqLen: Math.max(plan.prefill, plan.prompt + 1 + Math.max(plan.decodeTokens, plan.routeTokens)),
    };
    // PyTorch bf16 first (the speed to beat), then ReachLab's dtypes, then PyTorch f32 beside ReachLab f32
    const steps = [...m.pytorch.filter((x) => x !== 'f32').map((mode) => ['pytorch', mode] as const), ...m.reachlab.map((mode) => ['reachlab', mode] as const), ...m.pytorch.filter((x) => x === 'f32').map((mode) => ['pytorch', mode] as const)];
    for (const [side, mode] of steps) {
      if (left() < 10_000) {
        result.not_run.push(`${m.name} ${side} ${mode}: no time left`);
        continue;
      }
      log(`${m.name}: ${side} ${mode}…`);
      const entry: BenchRun = { model: m.name, side, mode };
      try {
        if (side === 'reachlab') {
          entry.run = await reachlabRun({ ...base, mode, ep: 'webgpu', runtime: 'onnxruntime-web' });
        } else {
          const file = path.join(o.work, `${m.name}-${mode}.json`);
          writeFileSync(file, JSON.stringify({ ...base, mode, device: o.hfDevice }));
          entry.run = await torchRun(o.python, o.torchSide, file, left());
        }
        const r = entry.run;
        // the dtype that ran: without shader-f16, q4f16 runs as q4 and f16 as f32
        const scheme = GPU_SCHEMES[`${side}:${r.mode}`] ?? (r.mode === 'bf16' ? { linear: 2, head: 2 } : undefined);
        if (scheme) entry.weight_bytes_per_token = weightBytesPerToken(m.shape, scheme);
        const decodeS = (r.decode.many_s - r.decode.one_s) / r.decode.tokens;
        if (side === 'reachlab' && result.bandwidth && entry.weight_bytes_per_token && decodeS > 0) {
          entry.bandwidth_share = entry.weight_bytes_per_token / decodeS / result.bandwidth.copy_bytes_per_s;
        }
      } catch (e) {
        entry.error = e instanceof Error ? e.message : String(e);
        log(`  ${entry.error}`);
      }
      result.runs.push(entry);
      const ours = result.runs.find((x) => x.model === m.name && x.side === 'reachlab' && x.mode === 'f32')?.run;
      const theirs = result.runs.find((x) => x.model === m.name && x.side === 'pytorch' && x.mode === 'f32')?.run;
      if (ours && theirs && !result.f32_tokens.some((t) => t.model === m.name)) {
        result.f32_tokens.push({
          model: m.name,
          decode_first_mismatch: firstMismatch(ours.decode.ids, theirs.decode.ids),
          routes_mismatched: ours.routes.ids.filter((ids, i) => firstMismatch(ids, theirs.routes.ids[i]) !== null).length,
          routes: ours.routes.ids.length,
        });
      }
      save();
    }
  }
  result.finished = true;
  const failed = result.conformance.some((r) => r.failures.length) || result.runs.some((r) => r.error);
  finish(failed ? 1 : 0);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench-gpu: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});

// Peer benchmark: ReachLab (Node: --runtime native (onnxruntime-node, cpu EP) and/or wasm) against
// Hugging Face transformers on PyTorch CPU, every runtime beside PyTorch in each pair, on the
// full-size generated Qwen2.5-0.5B-shaped checkpoint (scripts/lib/scale-models.ts; BF16 on disk,
// f32 on both sides), each side in its own process with the same thread count, interleaved A/B
// pairs (the order alternates pair by pair). Measures load (safetensors to ready, page cache warm),
// prefill (each length once untimed, its first after load, then the median of --prefill-reps timed
// runs), greedy decode and the audit workload (block routes × tokens: ReachLab batched, PyTorch a
// cached loop of routed layer lists, scripts/peer/torch_side.py), in f32 on both sides and then
// ReachLab's quantized modes against PyTorch's dynamic int8; checks the f32 sides' greedy tokens
// are identical; measures the machine's memory bandwidth (read and triad) for each side's share of
// the decode ceiling (bytes of weights per token / bandwidth). JSON on stdout, a table on stderr.
// Sets up .cache/peer-venv (torch, transformers, safetensors via pip) on first use. Not part of npm test.
//
//   npm run -s bench:peer [-- --pairs 4] [--prompt 64,512] [--prefill-reps 3] [--decode-tokens 64] [--routes 32] [--route-tokens 16]
//                         [--threads 2] [--bandwidth-gib 1] [--quantized q4,q8,q8b | --skip-quantized] [--runtime native,wasm]
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blocksSpace, sampleRoutes } from '../src/audit/routes.ts';
import { createPrng } from '../src/util/prng.ts';
import { ensureScaleCheckpoint, SCALE_SHAPES } from './lib/scale-models.ts';
import { maxSeqLen, parsePeerArgs, PEER_USAGE, type PeerPlan } from './peer/plan.ts';
import type { RouteWork, SideRun, SideSpec } from './peer/side.ts';
import { ceilingShares, measures, noisyDecodes, tokenMismatches, type Pair } from './peer/summary.ts';
import { ensurePeerVenv, PeerSetupError } from './peer/venv.ts';
import { runtimeRefusal } from '../src/engine/ort.ts';
import { dtypeRefusal } from '../src/engine/memory.ts';
import type { EngineDtype } from '../src/engine/types.ts';
import type { PeerRuntime } from './peer/plan.ts';
import { answerHelp } from './lib/cli-help.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHAPE = 'qwen2.5-0.5b' as const;
/** The EP each runtime runs. */
const RUNTIME_EP = { native: 'cpu', wasm: 'wasm' } as const;
const RUN_TIMEOUT_S = 3600;
const log = (line: string) => process.stderr.write(`bench:peer: ${line}\n`);

interface Comparison {
  name: string;
  reachlab: string;
  pytorch: string;
  /** Whether both sides compute the same function (greedy tokens must match). */
  sameTokens: boolean;
}

/** Reads every file of the checkpoint once, so each side's load starts from the page cache. */
function warm(dir: string): void {
  const buf = Buffer.alloc(64 * 1024 * 1024);
  for (const f of readdirSync(dir)) {
    const fd = openSync(join(dir, f), 'r');
    try {
      while (readSync(fd, buf, 0, buf.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
}

function runChild(what: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): unknown {
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: RUN_TIMEOUT_S * 1000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} exited with ${r.status ?? r.signal} (its output is above)`);
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`${what} printed no JSON result (last line: ${JSON.stringify(line.slice(0, 200))})`);
  }
}

async function main(): Promise<void> {
  answerHelp(process.argv.slice(2), import.meta.url);
  let plan: PeerPlan;
  try {
    plan = parsePeerArgs(process.argv.slice(2));
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nusage: ${PEER_USAGE}`);
  }
  if (plan.runtimes.includes('native')) {
    const refusal = await runtimeRefusal('cpu');
    if (refusal) throw new Error(`--runtime native: ${refusal}`);
  }
  const loadBefore = loadavg();
  const python = ensurePeerVenv(root, log);
  const torchEnv = { ...process.env, OMP_NUM_THREADS: String(plan.threads), MKL_NUM_THREADS: String(plan.threads), TOKENIZERS_PARALLELISM: 'false' };
  const sidePy = join(root, 'scripts', 'peer', 'torch_side.py');
  const dir = ensureScaleCheckpoint(root, SHAPE, log);
  const shape = SCALE_SHAPES[SHAPE];

  log(`memory bandwidth (${plan.bandwidthGiB} GiB arrays, ${plan.threads} threads)…`);
  const bw = runChild('bandwidth', python, [sidePy, 'bandwidth', String(plan.bandwidthGiB), String(plan.threads)], torchEnv) as {
    array_bytes: number; threads: number; read_bytes_per_s: number; triad_bytes_per_s: number;
  };
  const bytesPerS = Math.max(bw.read_bytes_per_s, bw.triad_bytes_per_s);

  const rng = createPrng(7);
  const base = {
    dir, threads: plan.threads, prefillReps: plan.prefillReps, decodeTokens: plan.decodeTokens, routeTokens: plan.routeTokens, maxSeqLen: maxSeqLen(plan),
    prompts: plan.prompts.map((n) => Array.from({ length: n }, () => rng.int(shape.vocab))),
    routes: sampleRoutes(blocksSpace(shape.layers, { maxEdits: 1 }), plan.routes, createPrng(11)),
  };
  /** A comparison's name: its runtime's before it, unless wasm alone runs (the earlier names). */
  const named = (rt: PeerRuntime, c: string) => (plan.runtimes.length > 1 || rt !== 'wasm' ? `${rt} ${c}` : c);
  /** Each comparison's pairs, by name: a quantized mode is also set against PyTorch f32 (below). */
  const pairsOf = new Map<string, Pair[]>();
  const comparisons: Comparison[] = [
    { name: 'f32', reachlab: 'f32', pytorch: 'f32', sameTokens: true },
    ...plan.quantized.map((d) => ({ name: `${d} vs int8`, reachlab: d, pytorch: 'int8', sameTokens: false })),
  ];
  warm(dir);
  const tmp = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  const results = [];
  try {
    for (const c of comparisons) {
      // every runtime that runs the mode (q8b: native only) and PyTorch in each pair, the order rotating pair by pair
      const rts = plan.runtimes.filter((rt) => !dtypeRefusal(c.reachlab as EngineDtype, RUNTIME_EP[rt]));
      if (!rts.length) {
        log(`${c.name}: skipped, no runtime asked for runs it (${plan.runtimes.join(', ')})`);
        continue;
      }
      const sides: Array<PeerRuntime | 'pytorch'> = [...rts, 'pytorch'];
      const runs: Array<Record<string, SideRun>> = [];
      for (let i = 0; i < plan.pairs; i++) {
        const order = sides.map((_, k) => sides[(k + i) % sides.length]);
        const run: Record<string, SideRun> = {};
        for (const side of order) {
          const spec: SideSpec = { ...base, mode: side === 'pytorch' ? c.pytorch : c.reachlab, ...(side === 'native' ? { ep: RUNTIME_EP.native, runtime: 'onnxruntime-node' } : side === 'wasm' ? { ep: RUNTIME_EP.wasm } : {}) };
          const file = join(tmp, `${side}.json`);
          writeFileSync(file, JSON.stringify(spec));
          log(`${c.name}: pair ${i + 1}/${plan.pairs}, ${side} ${spec.mode}…`);
          run[side] = (side !== 'pytorch'
            ? runChild(`ReachLab ${side} ${c.reachlab}`, process.execPath, ['--import', 'tsx', join(root, 'scripts', 'peer', 'reachlab-side.ts'), file])
            : runChild(`PyTorch ${c.pytorch}`, python, [sidePy, 'run', file], torchEnv)) as SideRun;
        }
        runs.push(run);
      }
      for (const rt of rts) {
        const name = named(rt, c.name);
        const pairs: Pair[] = runs.map((r) => ({ reachlab: r[rt], pytorch: r.pytorch }));
        pairsOf.set(name, pairs);
        results.push({
          comparison: name, runtime: rt, reachlab_mode: pairs[0].reachlab.mode, pytorch_mode: c.pytorch,
          measures: measures(pairs),
          route_work: pairs[0].reachlab.routes.work ?? null, // counts, the same in every pair
          ceiling: ceilingShares(pairs, shape, bytesPerS),
          noisy_decodes: noisyDecodes(pairs),
          token_check: c.sameTokens ? { compared: true, mismatches: tokenMismatches(pairs) } : { compared: false, mismatches: [] },
          runs: pairs.map((p) => ({ reachlab: withoutIds(p.reachlab), pytorch: withoutIds(p.pytorch) })),
        });
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // A quantized mode against PyTorch f32: pair i of its own comparison beside pair i of the f32
  // comparison (the same pair count and alternation, minutes apart rather than back to back)
  const cross = plan.runtimes.flatMap((rt) => {
    const f32Pairs = pairsOf.get(named(rt, 'f32'));
    return f32Pairs ? plan.quantized.filter((d) => pairsOf.has(named(rt, `${d} vs int8`))).map((d) => {
      const pairs = pairsOf.get(named(rt, `${d} vs int8`))!.map((p, i) => ({ reachlab: p.reachlab, pytorch: f32Pairs[i].pytorch }));
      return { comparison: named(rt, `${d} vs f32`), runtime: rt, reachlab_mode: d, pytorch_mode: 'f32', measures: measures(pairs), route_work: null, ceiling: [], noisy_decodes: noisyDecodes(pairs), token_check: { compared: false, mismatches: [] } };
    }) : [];
  });
  const out = {
    model: `${SHAPE} shape, generated (BF16 on disk, f32 compute)`, plan,
    bandwidth: { ...bw, bytes_per_s: bytesPerS },
    load_average: { before: loadBefore, after: loadavg() },
    comparisons: [...results, ...cross],
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.stderr.write(table(out) + '\n');
}

const withoutIds = (r: SideRun) => ({ ...r, decode: { ...r.decode, ids: undefined }, routes: { ...r.routes, ids: undefined } });

function table(out: { bandwidth: { read_bytes_per_s: number; triad_bytes_per_s: number }; load_average: { before: number[]; after: number[] }; comparisons: Array<{ comparison: string; measures: ReturnType<typeof measures>; route_work: RouteWork | null; ceiling: ReturnType<typeof ceilingShares>; noisy_decodes: ReturnType<typeof noisyDecodes>; token_check: { compared: boolean; mismatches: ReturnType<typeof tokenMismatches> } }> }): string {
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const gb = (x: number) => (x / 1e9).toFixed(1);
  const lines = [`${'comparison'.padEnd(20)}${'measure'.padEnd(26)}${'ReachLab'.padStart(10)}${'PyTorch'.padStart(10)}  ratio (ReachLab's speed / PyTorch's, median of paired ratios)`];
  for (const c of out.comparisons) {
    for (const m of c.measures) {
      // amounts (s, MB): the ratio is PyTorch's over ReachLab's, so the table also says it the plain way round
      const plain = m.unit === 's' ? ` (ReachLab takes ${f(1 / m.ratio)}× PyTorch's time)` : m.unit === 'MB' ? ` (ReachLab uses ${f(1 / m.ratio)}× PyTorch's memory)` : '';
      lines.push(`${c.comparison.padEnd(20)}${`${m.measure} (${m.unit})`.padEnd(26)}${f(m.reachlab).padStart(10)}${f(m.pytorch).padStart(10)}  ${f(m.ratio)}×${plain} over ${m.pairs} pair${m.pairs === 1 ? '' : 's'}`);
    }
    const w = c.route_work;
    if (w) {
      lines.push(`${c.comparison.padEnd(20)}routes: ${f(w.runs_per_attempt)} session runs and ${f(w.layer_tokens_per_attempt)} layer-token positions per attempt (a loop computes ${f(w.unshared_layer_tokens_per_attempt)}: ${f(w.unshared_layer_tokens_per_attempt / w.layer_tokens_per_attempt)}× more)`);
    }
    for (const s of c.ceiling) {
      lines.push(`${c.comparison.padEnd(20)}${s.side} ${s.mode} decode ${f(s.decode_tok_s)} tok/s = ${(s.share * 100).toFixed(0)}% of its ceiling ${f(s.ceiling_tok_s)} tok/s (${gb(s.bytes_per_token)} GB of weights per token)`);
    }
    if (c.noisy_decodes.length) {
      lines.push(`${c.comparison.padEnd(20)}decode left out as timing noise (the longer generate was not slower): ${c.noisy_decodes.map((n) => `pair ${n.pair} ${n.side}`).join(', ')}`);
    }
    if (c.token_check.compared) {
      const mm = c.token_check.mismatches;
      lines.push(`${c.comparison.padEnd(20)}greedy tokens: ${mm.length === 0 ? 'identical on both sides (decode and every route)' : `${mm.length} MISMATCH(ES): ${mm.map((m) => `pair ${m.pair} ${m.what} at token ${m.at}`).join('; ')}`}`);
    }
  }
  lines.push(`bandwidth           read ${gb(out.bandwidth.read_bytes_per_s)} GB/s, triad ${gb(out.bandwidth.triad_bytes_per_s)} GB/s (the faster is the ceiling's)`);
  lines.push(`load average        before ${out.load_average.before.map((x) => x.toFixed(2)).join(' ')}, after ${out.load_average.after.map((x) => x.toFixed(2)).join(' ')}`);
  return lines.join('\n');
}

main().catch((e) => {
  process.stderr.write(`bench:peer: ${e instanceof PeerSetupError ? 'setup: ' : ''}${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

// Engine benchmark (Node, WASM EP). Prints one JSON object on stdout and a short table on stderr.
//
//   npm run -s bench:engine [-- --model DIR] [--skip-precision] [--skip-speed]
//
// Without --model it generates (once, into .cache/) a checkpoint with Qwen2.5-0.5B per-layer
// shapes (hidden 896, 14 heads, 2 KV heads, head_dim 64, intermediate 4864, vocab 151936) and 8
// layers of seeded random BF16 weights. It measures prefill and batch-1 decode speed, then one
// 64-token prompt under 32 distinct routes drawn from the blocks route space, 16 new tokens each,
// run one route at a time vs all 32 rows in one generate() (attempts/s and session runs per
// attempt), and a precision report of q4 against f32 on the three reference checkpoints and the
// built-in micro model (trained weights: the more telling case).
import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, type LocalEngine } from '../src/engine/engine.ts';
import { encodeSafetensors, type TensorToWrite } from '../src/engine/safetensors.ts';
import { f32ToBf16 } from '../src/engine/dtype.ts';
import { createPrng, type Prng } from '../src/util/prng.ts';
import { isEngineError, type EngineDtype, type ForwardRow, type GenerateRow } from '../src/engine/types.ts';
import { arithText, generateArith } from '../src/audit/tasks/arith.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REFERENCE = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'];
const MICRO_DIR = 'public/hub/reachlab/micro-arith/resolve/main';
const PROMPT_LEN = 64;
const NEW_TOKENS = 16;
const ROUTES = 32;
const DECODE_STEPS = 32;

const SHAPES = { hidden: 896, heads: 14, kvHeads: 2, headDim: 64, intermediate: 4864, vocab: 151936, layers: 8 };

function uniform(n: number, scale: number, rng: Prng): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rng.next() * 2 - 1) * scale;
  return out;
}

/** Writes the synthetic checkpoint unless it is already there. */
function ensureSyntheticCheckpoint(): string {
  const dir = join(root, '.cache', 'bench-qwen2.5-0.5b-shapes-8-layers');
  if (existsSync(join(dir, 'model.safetensors'))) return dir;
  mkdirSync(dir, { recursive: true });
  const s = SHAPES;
  const rng = createPrng(20250101);
  const bf16 = (name: string, shape: number[], scale: number, offset = 0): TensorToWrite => {
    const n = shape.reduce((a, b) => a * b, 1);
    const v = uniform(n, scale, rng);
    if (offset) for (let i = 0; i < n; i++) v[i] += offset;
    const bits = f32ToBf16(v);
    return { name, dtype: 'BF16', shape, data: new Uint8Array(bits.buffer) };
  };
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const w = 0.035; // uniform(-w, w): std ≈ 0.02
  const tensors: TensorToWrite[] = [bf16('model.embed_tokens.weight', [s.vocab, s.hidden], w)];
  for (let i = 0; i < s.layers; i++) {
    const p = `model.layers.${i}`;
    tensors.push(
      bf16(`${p}.input_layernorm.weight`, [s.hidden], 0.1, 1),
      bf16(`${p}.self_attn.q_proj.weight`, [q, s.hidden], w),
      bf16(`${p}.self_attn.k_proj.weight`, [kv, s.hidden], w),
      bf16(`${p}.self_attn.v_proj.weight`, [kv, s.hidden], w),
      bf16(`${p}.self_attn.q_proj.bias`, [q], w),
      bf16(`${p}.self_attn.k_proj.bias`, [kv], w),
      bf16(`${p}.self_attn.v_proj.bias`, [kv], w),
      bf16(`${p}.self_attn.o_proj.weight`, [s.hidden, q], w),
      bf16(`${p}.post_attention_layernorm.weight`, [s.hidden], 0.1, 1),
      bf16(`${p}.mlp.gate_proj.weight`, [s.intermediate, s.hidden], w),
      bf16(`${p}.mlp.up_proj.weight`, [s.intermediate, s.hidden], w),
      bf16(`${p}.mlp.down_proj.weight`, [s.hidden, s.intermediate], w),
    );
  }
  tensors.push(bf16('model.norm.weight', [s.hidden], 0.1, 1));
  writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(tensors));
  const config = {
    architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: s.hidden, intermediate_size: s.intermediate,
    num_hidden_layers: s.layers, num_attention_heads: s.heads, num_key_value_heads: s.kvHeads, vocab_size: s.vocab,
    max_position_embeddings: 32768, rope_theta: 1000000.0, rms_norm_eps: 1e-6, tie_word_embeddings: true,
    hidden_act: 'silu', use_sliding_window: false, torch_dtype: 'bfloat16', bos_token_id: null, eos_token_id: 151643,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  // the engine loads a tokenizer with every checkpoint; the bench feeds token ids, so any small one does
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(root, 'test/fixtures/reference/tiny-qwen2', f), join(dir, f));
  return dir;
}

/** `count` distinct routes of the blocks route space over L layers: skip or repeat one
 *  contiguous block of 1–4 layers (a layer at most twice). */
export function drawBlockRoutes(L: number, count: number, rng: Prng): number[][] {
  const seen = new Set<string>();
  const out: number[][] = [];
  const base = Array.from({ length: L }, (_, i) => i);
  for (let tries = 0; out.length < count && tries < 100_000; tries++) {
    const len = 1 + rng.int(Math.min(4, L - 1));
    const start = rng.int(L - len + 1);
    const block = base.slice(start, start + len);
    const route = rng.int(2) === 0
      ? [...base.slice(0, start), ...base.slice(start + len)]
      : [...base.slice(0, start + len), ...block, ...base.slice(start + len)];
    const key = route.join(',');
    if (!seen.has(key)) {
      seen.add(key);
      out.push(route);
    }
  }
  if (out.length < count) throw new Error(`the blocks route space over ${L} layers has fewer than ${count} routes`);
  return out;
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

  const routes = drawBlockRoutes(numLayers, ROUTES, createPrng(11));
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
    try {
      await ref.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: 'f32', maxSeqLen: 64 });
      await low.load({ kind: 'fs', dir }, { ep: 'wasm', dtype, maxSeqLen: 64 });
    } catch (e) {
      await ref.dispose();
      await low.dispose();
      if (isEngineError(e) && e.code === 'unsupported-dtype') return { available: false, reason: e.message };
      throw e;
    }
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
  return { available: true, ...perModel };
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
  const mi = args.indexOf('--model');
  const dir = mi >= 0 ? resolve(args[mi + 1] ?? '') : ensureSyntheticCheckpoint();
  const result: Record<string, unknown> = {};
  let table: string[] = [];
  if (!args.includes('--skip-speed')) {
    const engine = createEngine();
    const load = await timed(() => engine.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: 'f32', maxSeqLen: 128 }));
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
  if (!args.includes('--skip-precision')) {
    const precisionReport = { q4: await precision('q4'), f16: await precision('f16') };
    result.precision = precisionReport;
    for (const [dtype, rep] of Object.entries(precisionReport)) {
      if (!rep.available) table.push(`${dtype} vs f32       unavailable: ${(rep as { reason: string }).reason}`);
      else for (const m of [...REFERENCE, 'micro-arith']) {
        const x = (rep as unknown as Record<string, { top1_agreement: number; mean_kl: number }>)[m];
        table.push(`${dtype} vs f32 ${m.padEnd(11)} top-1 agreement ${(x.top1_agreement * 100).toFixed(1)}%  mean KL ${x.mean_kl.toExponential(2)}`);
      }
    }
  }
  process.stdout.write(JSON.stringify(result) + '\n');
  process.stderr.write(table.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(`bench-engine: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

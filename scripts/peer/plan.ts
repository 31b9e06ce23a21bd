// The peer benchmark's plan (its options, checked) and its arithmetic: medians of paired ratios,
// bytes of weights streamed per decoded token, and a side's share of the memory-bandwidth ceiling.
import { parseArgs } from 'node:util';
import { withF32Activations } from '../../src/engine/graph/linear.ts';
import { ENGINE_DTYPES } from '../../src/engine/types.ts';
import type { CheckpointShape } from '../lib/make-checkpoint.ts';
import { parameterCount } from '../lib/make-checkpoint.ts';

export interface PeerPlan {
  /** Interleaved A/B pairs per comparison. */
  pairs: number;
  /** Prompt lengths whose prefill is timed; the first is also the decode and route prompt. */
  prompts: number[];
  /** Timed prefills per prompt length (the median counts), after one untimed first prefill. */
  prefillReps: number;
  decodeTokens: number;
  routes: number;
  routeTokens: number;
  /** Threads of each side (WASM kernels; torch intra-op). */
  threads: number;
  /** Size of each bandwidth array, in GiB. */
  bandwidthGiB: number;
  /** ReachLab's quantized modes run against PyTorch's dynamic int8 (none: f32 only). */
  quantized: string[];
  /** ReachLab's runtimes, each beside PyTorch in every pair: native (onnxruntime-node, cpu EP) and wasm. */
  runtimes: PeerRuntime[];
}

export const PEER_RUNTIMES = ['native', 'wasm'] as const;
export type PeerRuntime = (typeof PEER_RUNTIMES)[number];

/** ReachLab's quantized modes with f32 activations (f16 activations run as f32 plus casts on WASM). */
const PEER_QUANTIZED: string[] = ENGINE_DTYPES.filter((d) => d !== 'f32' && withF32Activations(d) === d);

export const PEER_USAGE = `npm run -s bench:peer [-- --pairs 4] [--prompt 64,512] [--prefill-reps 3] [--decode-tokens 64] [--routes 32] [--route-tokens 16]
                       [--threads 2] [--bandwidth-gib 1] [--quantized q4,q8,q8b | --skip-quantized] [--runtime native,wasm]`;

/** The longest prompt the plan accepts (the checkpoint allows more; the benchmark needs no more). */
const MAX_PROMPT = 4096;

function positiveInt(name: string, v: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${v}"`);
  if (n > max) throw new Error(`--${name} must be at most ${max}, got ${n}`);
  return n;
}

export function parsePeerArgs(argv: string[]): PeerPlan {
  const { values } = parseArgs({
    args: argv,
    options: {
      pairs: { type: 'string', default: '4' },
      prompt: { type: 'string', default: '64,512' },
      'prefill-reps': { type: 'string', default: '3' },
      'decode-tokens': { type: 'string', default: '64' },
      routes: { type: 'string', default: '32' },
      'route-tokens': { type: 'string', default: '16' },
      threads: { type: 'string', default: '2' },
      'bandwidth-gib': { type: 'string', default: '1' },
      quantized: { type: 'string', default: PEER_QUANTIZED.join(',') },
      'skip-quantized': { type: 'boolean', default: false },
      runtime: { type: 'string', default: 'wasm' },
    },
    strict: true,
    allowPositionals: false,
  });
  const prompts = values.prompt!.split(',').map((p) => positiveInt('prompt', p, MAX_PROMPT));
  if (new Set(prompts).size !== prompts.length) throw new Error(`--prompt lists a length twice: "${values.prompt}"`);
  const quantized = values['skip-quantized'] ? [] : values.quantized!.split(',');
  const unknown = quantized.filter((m) => !PEER_QUANTIZED.includes(m));
  if (unknown.length) throw new Error(`--quantized takes ${PEER_QUANTIZED.join(', ')}, got "${unknown.join(',')}"`);
  const runtimes = values.runtime!.split(',');
  const badRuntime = runtimes.filter((r) => !(PEER_RUNTIMES as readonly string[]).includes(r));
  if (badRuntime.length || runtimes.length === 0) throw new Error(`--runtime takes ${PEER_RUNTIMES.join(', ')}, got "${values.runtime}"`);
  if (new Set(runtimes).size !== runtimes.length) throw new Error(`--runtime lists a runtime twice: "${values.runtime}"`);
  const bandwidthGiB = Number(values['bandwidth-gib']);
  if (!Number.isFinite(bandwidthGiB) || bandwidthGiB <= 0 || bandwidthGiB > 8) {
    throw new Error(`--bandwidth-gib must be a number in (0, 8], got "${values['bandwidth-gib']}"`);
  }
  return {
    pairs: positiveInt('pairs', values.pairs!, 100),
    prompts,
    prefillReps: positiveInt('prefill-reps', values['prefill-reps']!, 20),
    decodeTokens: positiveInt('decode-tokens', values['decode-tokens']!, 1024),
    routes: positiveInt('routes', values.routes!, 256),
    routeTokens: positiveInt('route-tokens', values['route-tokens']!, 256),
    threads: positiveInt('threads', values.threads!, 256),
    bandwidthGiB,
    quantized,
    runtimes: runtimes as PeerRuntime[],
  };
}

/** KV capacity both sides need: the longest prompt plus every token generated after it. */
export function maxSeqLen(plan: PeerPlan): number {
  return Math.max(...plan.prompts, plan.prompts[0] + 1 + Math.max(plan.decodeTokens, plan.routeTokens));
}

export function median(xs: number[]): number {
  if (xs.length === 0) throw new Error('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** ReachLab's speed relative to PyTorch's in each pair (> 1: ReachLab faster), from throughputs. */
export function pairRatios(reachlab: number[], pytorch: number[]): number[] {
  if (reachlab.length !== pytorch.length) throw new Error(`unpaired runs: ${reachlab.length} ReachLab vs ${pytorch.length} PyTorch`);
  return reachlab.map((r, i) => {
    if (!(r > 0) || !(pytorch[i] > 0)) throw new Error(`pair ${i + 1}: throughputs must be positive, got ${r} and ${pytorch[i]}`);
    return r / pytorch[i];
  });
}

/** Bytes per weight of the projections and of the LM head in one side's mode. */
export interface WeightScheme {
  linear: number;
  head: number;
}

/** 4-bit MatMulNBits, block 32: 16 bytes of nibbles, an f32 scale and half a byte of zero point per block. */
const Q4_BYTES = (16 + 4 + 0.5) / 32;

/** The schemes whose bytes are known, by `side:mode`; every other tensor (norms, biases) is f32. */
export const WEIGHT_SCHEMES: Record<string, WeightScheme> = {
  'reachlab:f32': { linear: 4, head: 4 },
  'reachlab:q4': { linear: Q4_BYTES, head: Q4_BYTES },
  // int8 projections (one f32 scale per output feature, negligible), the head f32 (src/engine/weights.ts headFormat)
  'reachlab:q8': { linear: 1, head: 4 },
  // 8-bit blocks of 32 with one f32 scale each (src/engine/quantize.ts), the head f32
  'reachlab:q8b': { linear: 36 / 32, head: 4 },
  'pytorch:f32': { linear: 4, head: 4 },
  // quantize_dynamic on nn.Linear: per-tensor qint8 weights (the tied head becomes one too), f32 biases
  'pytorch:int8': { linear: 1, head: 1 },
};

/** Bytes of weights read per decoded token: every projection, the head once (tied or not; an
 *  untied embedding table is only gathered from) and the f32 norms and biases. */
export function weightBytesPerToken(s: CheckpointShape, scheme: WeightScheme): number {
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const perLayer = s.hidden * q + 2 * s.hidden * kv + q * s.hidden + 3 * s.hidden * s.intermediate;
  const linear = s.layers * perLayer;
  const head = s.vocab * s.hidden;
  const tied = s.tied ?? s.modelType === 'qwen2';
  const other = parameterCount(s) - linear - head - (tied ? 0 : s.vocab * s.hidden);
  return linear * scheme.linear + head * scheme.head + other * 4;
}

/** Decoded tokens per second if every token only streamed its weights at `bytesPerS`. */
export function ceilingTokensPerS(bytesPerToken: number, bytesPerS: number): number {
  if (!(bytesPerToken > 0) || !(bytesPerS > 0)) throw new Error(`ceiling needs positive bytes per token and bandwidth, got ${bytesPerToken} and ${bytesPerS}`);
  return bytesPerS / bytesPerToken;
}

/** Where two greedy token sequences first differ (null: identical). */
export function firstMismatch(a: number[], b: number[]): number | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return null;
}

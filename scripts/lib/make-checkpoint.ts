// Seeded random checkpoints in Hugging Face layout for the benchmarks: config.json,
// generation_config.json, safetensors (sharded with model.safetensors.index.json past
// `maxShardBytes`), and a tokenizer (copied from a folder, or generated with the model's vocabulary
// size: make-tokenizer.ts). Weights are written tensor by tensor in chunks, so a multi-GB
// checkpoint never sits in memory. Same shape and seed, same files.

import { closeSync, copyFileSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { f32ToBf16 } from '../../src/engine/dtype.ts';
import { SAFETENSORS_DTYPE_BYTES } from '../../src/engine/safetensors.ts';
import { createPrng, type Prng } from '../../src/util/prng.ts';
import { makeTokenizer } from './make-tokenizer.ts';

export interface CheckpointShape {
  modelType: 'llama' | 'qwen2' | 'qwen3';
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  dtype: 'F32' | 'BF16';
  /** tie_word_embeddings; default: qwen2. */
  tied?: boolean;
  /** default: 1e6 for qwen, 1e4 for llama. */
  ropeTheta?: number;
  /** default: 1e-6 for qwen, 1e-5 for llama. */
  rmsNormEps?: number;
  /** default: 32768 for qwen, 512 for llama. */
  maxPositions?: number;
  ropeScaling?: { factor: number; lowFreqFactor: number; highFreqFactor: number; originalMaxPositionEmbeddings: number };
}

/** Qwen2.5-0.5B's per-layer shapes (q/k/v bias, tied head), 8 layers: the engine benchmark. */
export const QWEN25_05B_8_LAYERS: CheckpointShape = {
  modelType: 'qwen2', layers: 8, hidden: 896, heads: 14, kvHeads: 2, headDim: 64, intermediate: 4864, vocab: 151936, dtype: 'BF16',
};

/** A small Llama over the reference tokenizer's 379 ids: the audit benchmark. */
export const AUDIT_BENCH_SHAPE: CheckpointShape = {
  modelType: 'llama', layers: 8, hidden: 128, heads: 4, kvHeads: 2, headDim: 32, intermediate: 352, vocab: 379, dtype: 'F32',
};

export interface WriteOptions {
  /** Weights past this many bytes go into shards of at most this size (default: one file). */
  maxShardBytes?: number;
}

interface TensorPlan {
  name: string;
  shape: number[];
  /** uniform(offset − scale, offset + scale) */
  scale: number;
  offset: number;
}

/** The tensors of a shape, in file order (which is also the order of the random stream). */
function tensorPlan(s: CheckpointShape): TensorPlan[] {
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const w = 0.035; // uniform(-w, w): std ≈ 0.02, as Hugging Face initializes
  const t = (name: string, shape: number[], scale = w, offset = 0): TensorPlan => ({ name, shape, scale, offset });
  const out = [t('model.embed_tokens.weight', [s.vocab, s.hidden])];
  for (let i = 0; i < s.layers; i++) {
    const p = `model.layers.${i}`;
    out.push(
      t(`${p}.input_layernorm.weight`, [s.hidden], 0.1, 1),
      t(`${p}.self_attn.q_proj.weight`, [q, s.hidden]),
      t(`${p}.self_attn.k_proj.weight`, [kv, s.hidden]),
      t(`${p}.self_attn.v_proj.weight`, [kv, s.hidden]),
    );
    if (s.modelType === 'qwen2') out.push(t(`${p}.self_attn.q_proj.bias`, [q]), t(`${p}.self_attn.k_proj.bias`, [kv]), t(`${p}.self_attn.v_proj.bias`, [kv]));
    if (s.modelType === 'qwen3') out.push(t(`${p}.self_attn.q_norm.weight`, [s.headDim], 0.1, 1), t(`${p}.self_attn.k_norm.weight`, [s.headDim], 0.1, 1));
    out.push(
      t(`${p}.self_attn.o_proj.weight`, [s.hidden, q]),
      t(`${p}.post_attention_layernorm.weight`, [s.hidden], 0.1, 1),
      t(`${p}.mlp.gate_proj.weight`, [s.intermediate, s.hidden]),
      t(`${p}.mlp.up_proj.weight`, [s.intermediate, s.hidden]),
      t(`${p}.mlp.down_proj.weight`, [s.hidden, s.intermediate]),
    );
  }
  out.push(t('model.norm.weight', [s.hidden], 0.1, 1));
  if (!isTied(s)) out.push(t('lm_head.weight', [s.vocab, s.hidden]));
  return out;
}

const isTied = (s: CheckpointShape) => s.tied ?? s.modelType === 'qwen2';
const count = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

/** Parameters of a shape (what "0.5B" counts). */
export function parameterCount(s: CheckpointShape): number {
  return tensorPlan(s).reduce((n, t) => n + count(t.shape), 0);
}

/**
 * Writes the checkpoint into `dir` (created). `tokenizerDir` supplies tokenizer.json and
 * tokenizer_config.json; null generates a tokenizer with exactly `vocab` ids.
 */
export function writeCheckpoint(dir: string, tokenizerDir: string | null, s: CheckpointShape, seed = 7, opts: WriteOptions = {}): void {
  mkdirSync(dir, { recursive: true });
  const qwen = s.modelType !== 'llama';
  let special: { bos: number | null; eos: number } = { bos: null, eos: s.vocab - 1 };
  if (tokenizerDir === null) {
    const tok = makeTokenizer(s.vocab, qwen ? 'qwen' : 'llama', seed);
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tok.tokenizerJson));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tok.tokenizerConfig, null, 2));
    special = { bos: tok.bosId, eos: tok.eosId };
  } else {
    // the engine loads a tokenizer with every checkpoint; the benchmarks feed token ids, so any small one does
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(tokenizerDir, f), join(dir, f));
  }
  writeWeights(dir, s, createPrng(seed), opts.maxShardBytes ?? Infinity);
  const config = {
    architectures: [{ qwen2: 'Qwen2ForCausalLM', qwen3: 'Qwen3ForCausalLM', llama: 'LlamaForCausalLM' }[s.modelType]],
    model_type: s.modelType,
    hidden_size: s.hidden,
    intermediate_size: s.intermediate,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    num_key_value_heads: s.kvHeads,
    head_dim: s.headDim,
    vocab_size: s.vocab,
    max_position_embeddings: s.maxPositions ?? (qwen ? 32768 : 512),
    rope_theta: s.ropeTheta ?? (qwen ? 1000000.0 : 10000.0),
    ...(s.ropeScaling
      ? {
          rope_scaling: {
            rope_type: 'llama3',
            factor: s.ropeScaling.factor,
            low_freq_factor: s.ropeScaling.lowFreqFactor,
            high_freq_factor: s.ropeScaling.highFreqFactor,
            original_max_position_embeddings: s.ropeScaling.originalMaxPositionEmbeddings,
          },
        }
      : {}),
    rms_norm_eps: s.rmsNormEps ?? (qwen ? 1e-6 : 1e-5),
    tie_word_embeddings: isTied(s),
    ...(s.modelType === 'llama' ? { attention_bias: false } : { use_sliding_window: false }),
    hidden_act: 'silu',
    torch_dtype: s.dtype === 'BF16' ? 'bfloat16' : 'float32',
    bos_token_id: special.bos,
    eos_token_id: special.eos,
  };
  writeFileSync(join(dir, 'generation_config.json'), JSON.stringify({ bos_token_id: special.bos, eos_token_id: special.eos }, null, 2));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2)); // last: its presence marks a complete write
}

/** Values generated per chunk (bounds memory while writing). */
const CHUNK_ELEMENTS = 1 << 22;

function writeWeights(dir: string, s: CheckpointShape, rng: Prng, maxShardBytes: number): void {
  const elemBytes = SAFETENSORS_DTYPE_BYTES[s.dtype];
  const shards: TensorPlan[][] = [[]];
  let size = 0;
  for (const t of tensorPlan(s)) {
    const bytes = count(t.shape) * elemBytes;
    if (size > 0 && size + bytes > maxShardBytes) {
      shards.push([]);
      size = 0;
    }
    shards.at(-1)!.push(t);
    size += bytes;
  }
  const n = shards.length;
  const fileOf = (i: number) => (n === 1 ? 'model.safetensors' : `model-${String(i + 1).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.safetensors`);
  const weightMap: Record<string, string> = {};
  let total = 0;
  shards.forEach((tensors, i) => {
    const fd = openSync(join(dir, fileOf(i)), 'w');
    try {
      writeSync(fd, headerBytes(tensors, s.dtype));
      for (const t of tensors) {
        writeTensor(fd, t, s.dtype, rng);
        weightMap[t.name] = fileOf(i);
        total += count(t.shape) * elemBytes;
      }
    } finally {
      closeSync(fd);
    }
  });
  if (n > 1) writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2));
}

/** 8-byte length + JSON header padded with spaces to a multiple of 8 (as the reference writer does). */
function headerBytes(tensors: TensorPlan[], dtype: CheckpointShape['dtype']): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    const bytes = count(t.shape) * SAFETENSORS_DTYPE_BYTES[dtype];
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const text = JSON.stringify(header);
  const json = new TextEncoder().encode(text + ' '.repeat((8 - (text.length % 8)) % 8));
  const out = new Uint8Array(8 + json.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  return out;
}

function writeTensor(fd: number, t: TensorPlan, dtype: CheckpointShape['dtype'], rng: Prng): void {
  const n = count(t.shape);
  const v = new Float32Array(Math.min(n, CHUNK_ELEMENTS));
  for (let e0 = 0; e0 < n; e0 += v.length) {
    const m = Math.min(v.length, n - e0);
    const chunk = v.subarray(0, m); // uniform(offset − scale, offset + scale)
    for (let i = 0; i < m; i++) chunk[i] = t.offset + (rng.next() * 2 - 1) * t.scale;
    const data = dtype === 'BF16' ? f32ToBf16(chunk) : chunk;
    writeSync(fd, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
}

// Seeded random checkpoints in Hugging Face layout for the benchmarks (config.json,
// model.safetensors, a tokenizer copied from a reference checkpoint): same files every time.

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { f32ToBf16 } from '../../src/engine/dtype.ts';
import { encodeSafetensors, type TensorToWrite } from '../../src/engine/safetensors.ts';
import { createPrng } from '../../src/util/prng.ts';

export interface CheckpointShape {
  modelType: 'llama' | 'qwen2';
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  dtype: 'F32' | 'BF16';
}

/** Qwen2.5-0.5B's per-layer shapes (q/k/v bias, tied head), 8 layers: the engine benchmark. */
export const QWEN25_05B_8_LAYERS: CheckpointShape = {
  modelType: 'qwen2', layers: 8, hidden: 896, heads: 14, kvHeads: 2, headDim: 64, intermediate: 4864, vocab: 151936, dtype: 'BF16',
};

/** A small Llama over the reference tokenizer's 379 ids: the audit benchmark. */
export const AUDIT_BENCH_SHAPE: CheckpointShape = {
  modelType: 'llama', layers: 8, hidden: 128, heads: 4, kvHeads: 2, headDim: 32, intermediate: 352, vocab: 379, dtype: 'F32',
};

/** Writes the checkpoint into `dir` (created); `tokenizerDir` supplies tokenizer.json and tokenizer_config.json. */
export function writeCheckpoint(dir: string, tokenizerDir: string, s: CheckpointShape, seed = 7): void {
  mkdirSync(dir, { recursive: true });
  const rng = createPrng(seed);
  const qwen2 = s.modelType === 'qwen2';
  const tensor = (name: string, shape: number[], scale: number, offset = 0): TensorToWrite => {
    const n = shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n); // [shape...] row-major, uniform(offset − scale, offset + scale)
    for (let i = 0; i < n; i++) v[i] = offset + (rng.next() * 2 - 1) * scale;
    const data = s.dtype === 'BF16' ? new Uint8Array(f32ToBf16(v).buffer) : new Uint8Array(v.buffer);
    return { name, dtype: s.dtype, shape, data };
  };
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const w = 0.035; // uniform(-w, w): std ≈ 0.02, as Hugging Face initializes
  const tensors: TensorToWrite[] = [tensor('model.embed_tokens.weight', [s.vocab, s.hidden], w)];
  for (let i = 0; i < s.layers; i++) {
    const p = `model.layers.${i}`;
    tensors.push(
      tensor(`${p}.input_layernorm.weight`, [s.hidden], 0.1, 1),
      tensor(`${p}.self_attn.q_proj.weight`, [q, s.hidden], w),
      tensor(`${p}.self_attn.k_proj.weight`, [kv, s.hidden], w),
      tensor(`${p}.self_attn.v_proj.weight`, [kv, s.hidden], w),
      ...(qwen2
        ? [tensor(`${p}.self_attn.q_proj.bias`, [q], w), tensor(`${p}.self_attn.k_proj.bias`, [kv], w), tensor(`${p}.self_attn.v_proj.bias`, [kv], w)]
        : []),
      tensor(`${p}.self_attn.o_proj.weight`, [s.hidden, q], w),
      tensor(`${p}.post_attention_layernorm.weight`, [s.hidden], 0.1, 1),
      tensor(`${p}.mlp.gate_proj.weight`, [s.intermediate, s.hidden], w),
      tensor(`${p}.mlp.up_proj.weight`, [s.intermediate, s.hidden], w),
      tensor(`${p}.mlp.down_proj.weight`, [s.hidden, s.intermediate], w),
    );
  }
  tensors.push(tensor('model.norm.weight', [s.hidden], 0.1, 1));
  if (!qwen2) tensors.push(tensor('lm_head.weight', [s.vocab, s.hidden], w));
  writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(tensors));
  const config = {
    architectures: [qwen2 ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM'],
    model_type: s.modelType,
    hidden_size: s.hidden,
    intermediate_size: s.intermediate,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    num_key_value_heads: s.kvHeads,
    head_dim: s.headDim,
    vocab_size: s.vocab,
    max_position_embeddings: qwen2 ? 32768 : 512,
    rope_theta: qwen2 ? 1000000.0 : 10000.0,
    rms_norm_eps: qwen2 ? 1e-6 : 1e-5,
    tie_word_embeddings: qwen2,
    ...(qwen2 ? { use_sliding_window: false } : { attention_bias: false }),
    hidden_act: 'silu',
    torch_dtype: s.dtype === 'BF16' ? 'bfloat16' : 'float32',
    bos_token_id: null,
    eos_token_id: s.vocab - 1,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  // the engine loads a tokenizer with every checkpoint; the benchmarks feed token ids, so any small one does
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(tokenizerDir, f), join(dir, f));
}

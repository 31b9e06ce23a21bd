// A small random Llama checkpoint for the audit benchmark, written in Hugging Face layout
// (config.json, model.safetensors F32, the reference tokenizer). Seeded: same files every time.

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSafetensors, type TensorToWrite } from '../../src/engine/safetensors.ts';
import { createPrng } from '../../src/util/prng.ts';

export interface AuditCheckpointShape {
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
}

export const AUDIT_BENCH_SHAPE: AuditCheckpointShape = { layers: 8, hidden: 128, heads: 4, kvHeads: 2, headDim: 32, intermediate: 352 };

/** Writes the checkpoint into `dir` (created); `tokenizerDir` supplies tokenizer files and the vocab size. */
export function writeAuditCheckpoint(dir: string, tokenizerDir: string, vocab: number, s: AuditCheckpointShape = AUDIT_BENCH_SHAPE, seed = 7): void {
  mkdirSync(dir, { recursive: true });
  const rng = createPrng(seed);
  const f32 = (name: string, shape: number[], scale: number, offset = 0): TensorToWrite => {
    const n = shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n); // [shape...] row-major
    for (let i = 0; i < n; i++) v[i] = offset + (rng.next() * 2 - 1) * scale;
    return { name, dtype: 'F32', shape, data: new Uint8Array(v.buffer) };
  };
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const w = 0.05;
  const tensors: TensorToWrite[] = [f32('model.embed_tokens.weight', [vocab, s.hidden], w)];
  for (let i = 0; i < s.layers; i++) {
    const p = `model.layers.${i}`;
    tensors.push(
      f32(`${p}.input_layernorm.weight`, [s.hidden], 0.1, 1),
      f32(`${p}.self_attn.q_proj.weight`, [q, s.hidden], w),
      f32(`${p}.self_attn.k_proj.weight`, [kv, s.hidden], w),
      f32(`${p}.self_attn.v_proj.weight`, [kv, s.hidden], w),
      f32(`${p}.self_attn.o_proj.weight`, [s.hidden, q], w),
      f32(`${p}.post_attention_layernorm.weight`, [s.hidden], 0.1, 1),
      f32(`${p}.mlp.gate_proj.weight`, [s.intermediate, s.hidden], w),
      f32(`${p}.mlp.up_proj.weight`, [s.intermediate, s.hidden], w),
      f32(`${p}.mlp.down_proj.weight`, [s.hidden, s.intermediate], w),
    );
  }
  tensors.push(f32('model.norm.weight', [s.hidden], 0.1, 1), f32('lm_head.weight', [vocab, s.hidden], w));
  writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(tensors));
  const config = {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: s.hidden,
    intermediate_size: s.intermediate,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    num_key_value_heads: s.kvHeads,
    head_dim: s.headDim,
    vocab_size: vocab,
    max_position_embeddings: 512,
    rope_theta: 10000.0,
    rms_norm_eps: 1e-5,
    tie_word_embeddings: false,
    attention_bias: false,
    hidden_act: 'silu',
    torch_dtype: 'float32',
    bos_token_id: null,
    eos_token_id: vocab - 1,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(tokenizerDir, f), join(dir, f));
}

// Architecture of the micro model and the Hugging Face config files that describe it.
// The model is a Llama decoder (no biases), so the engine loads it exactly like a Hub checkpoint.

export interface MicroConfig {
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  ropeTheta: number;
  /** Llama 3 frequency scaling; the micro model has none (null), reference checkpoints may. */
  ropeScaling: null | { factor: number; lowFreqFactor: number; highFreqFactor: number; originalMaxPositionEmbeddings: number };
  rmsNormEps: number;
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  eosTokenId: number;
  padTokenId: number;
}

/** Checks the constraints the engine and the forward pass rely on; throws naming the bad field. */
export function validateConfig(c: MicroConfig): void {
  const positive: (keyof MicroConfig)[] = ['vocabSize', 'hiddenSize', 'intermediateSize', 'numLayers', 'numHeads', 'numKvHeads', 'headDim'];
  for (const k of positive) {
    const v = c[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new Error(`micro config: ${k} must be a positive integer, got ${v}`);
  }
  if (c.numHeads * c.headDim !== c.hiddenSize) throw new Error(`micro config: numHeads (${c.numHeads}) × headDim (${c.headDim}) must equal hiddenSize (${c.hiddenSize})`);
  if (c.numHeads % c.numKvHeads !== 0) throw new Error(`micro config: numHeads (${c.numHeads}) must be a multiple of numKvHeads (${c.numKvHeads})`);
  if (c.headDim % 16 !== 0) throw new Error(`micro config: headDim must be a multiple of 16 (engine kernels), got ${c.headDim}`);
  if (c.ropeScaling !== null) throw new Error('micro config: the micro model uses no rope scaling');
  for (const k of ['eosTokenId', 'padTokenId'] as const) {
    if (!(c[k] >= 0 && c[k] < c.vocabSize)) throw new Error(`micro config: ${k} ${c[k]} is outside the vocabulary [0, ${c.vocabSize})`);
  }
}

/** config.json as transformers writes it for LlamaForCausalLM. */
export function hfConfigJson(c: MicroConfig): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    hidden_act: 'silu',
    max_position_embeddings: c.maxPositionEmbeddings,
    initializer_range: 0.02,
    rms_norm_eps: c.rmsNormEps,
    rope_theta: c.ropeTheta,
    rope_scaling: null,
    attention_bias: false,
    attention_dropout: 0.0,
    mlp_bias: false,
    tie_word_embeddings: c.tieWordEmbeddings,
    bos_token_id: null,
    eos_token_id: c.eosTokenId,
    pad_token_id: c.padTokenId,
    torch_dtype: 'float16',
    use_cache: true,
  };
}

export function hfGenerationConfigJson(c: MicroConfig): Record<string, unknown> {
  return { eos_token_id: c.eosTokenId, pad_token_id: c.padTokenId, do_sample: false };
}

/** HF tensor names and shapes ([out, in] for projections), in file order. */
export function tensorShapes(c: MicroConfig): [string, number[]][] {
  const H = c.hiddenSize;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const out: [string, number[]][] = [['model.embed_tokens.weight', [c.vocabSize, H]]];
  for (let i = 0; i < c.numLayers; i++) {
    const p = `model.layers.${i}`;
    out.push(
      [`${p}.input_layernorm.weight`, [H]],
      [`${p}.self_attn.q_proj.weight`, [q, H]],
      [`${p}.self_attn.k_proj.weight`, [kv, H]],
      [`${p}.self_attn.v_proj.weight`, [kv, H]],
      [`${p}.self_attn.o_proj.weight`, [H, q]],
      [`${p}.post_attention_layernorm.weight`, [H]],
      [`${p}.mlp.gate_proj.weight`, [c.intermediateSize, H]],
      [`${p}.mlp.up_proj.weight`, [c.intermediateSize, H]],
      [`${p}.mlp.down_proj.weight`, [H, c.intermediateSize]],
    );
  }
  out.push(['model.norm.weight', [H]]);
  if (!c.tieWordEmbeddings) out.push(['lm_head.weight', [c.vocabSize, H]]);
  return out;
}

export function parameterCount(c: MicroConfig): number {
  return tensorShapes(c).reduce((n, [, s]) => n + s.reduce((a, b) => a * b, 1), 0);
}

/** The MicroConfig of an exported micro model's config.json (the inverse of hfConfigJson). */
export function microConfigFromHf(j: Record<string, unknown>): MicroConfig {
  const n = (k: string) => {
    const v = j[k];
    if (typeof v !== 'number') throw new Error(`micro config.json: ${k} must be a number, got ${JSON.stringify(v)}`);
    return v;
  };
  if (j.model_type !== 'llama') throw new Error(`micro config.json: model_type must be llama, got ${JSON.stringify(j.model_type)}`);
  const c: MicroConfig = {
    vocabSize: n('vocab_size'),
    hiddenSize: n('hidden_size'),
    intermediateSize: n('intermediate_size'),
    numLayers: n('num_hidden_layers'),
    numHeads: n('num_attention_heads'),
    numKvHeads: n('num_key_value_heads'),
    headDim: n('head_dim'),
    ropeTheta: n('rope_theta'),
    ropeScaling: null,
    rmsNormEps: n('rms_norm_eps'),
    maxPositionEmbeddings: n('max_position_embeddings'),
    tieWordEmbeddings: j.tie_word_embeddings === true,
    eosTokenId: n('eos_token_id'),
    padTokenId: n('pad_token_id'),
  };
  validateConfig(c);
  return c;
}

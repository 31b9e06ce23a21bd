// config.json (+ generation_config.json) -> ModelConfig for the architectures the engine runs:
// llama, qwen2, qwen3 (dense, full attention, SiLU MLP, RMSNorm, rotary with optional llama3 scaling).
// Anything else is refused with a message naming the field.

import { EngineError, type ModelConfig, type ModelType } from './types.ts';
import { quote } from '../util/clip.ts';

const SUPPORTED_MODEL_TYPES: readonly ModelType[] = ['llama', 'qwen2', 'qwen3'];

/** Hugging Face defaults where config.json may omit a field. */
const DEFAULTS: Record<ModelType, { maxPositionEmbeddings: number; rmsNormEps: number; ropeTheta: number }> = {
  llama: { maxPositionEmbeddings: 2048, rmsNormEps: 1e-6, ropeTheta: 10000 },
  qwen2: { maxPositionEmbeddings: 32768, rmsNormEps: 1e-6, ropeTheta: 10000 },
  qwen3: { maxPositionEmbeddings: 32768, rmsNormEps: 1e-6, ropeTheta: 10000 },
};

/** Bounds on a config's sizes, each far past any released model of the kind the engine runs and
 *  checked before anything is sized from them: a corrupt or hostile config (10⁷ layers) is refused
 *  by name instead of exhausting memory. */
export const CONFIG_LIMITS: Readonly<Record<string, number>> = {
  num_hidden_layers: 1024,
  hidden_size: 65536,
  intermediate_size: 262144,
  num_attention_heads: 1024,
  num_key_value_heads: 1024,
  head_dim: 1024,
  vocab_size: 2 ** 21,
  max_position_embeddings: 2 ** 24,
};

/** A value as text for an error: a non-finite number (1e400 in JSON) is named as such, not "null". */
function shown(v: unknown): string {
  return typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v);
}

function bad(message: string): EngineError {
  return new EngineError('bad-checkpoint', `config.json: ${message}`);
}
function unsupported(message: string): EngineError {
  return new EngineError('unsupported-architecture', `config.json: ${message}`);
}

function positiveInt(c: Record<string, unknown>, field: string, fallback?: number): number {
  const v = c[field] ?? fallback;
  if (v === undefined) throw bad(`missing ${field}`);
  if (typeof v === 'number' && !Number.isFinite(v)) throw bad(`${field} is not a finite number`);
  if (!Number.isSafeInteger(v) || (v as number) <= 0) throw bad(`${field} is ${shown(v)}, not a positive integer`);
  const limit = CONFIG_LIMITS[field];
  if (limit !== undefined && (v as number) > limit) throw bad(`${field} is ${v}, more than CONFIG_LIMITS.${field} = ${limit} (far past any released model: a corrupt or hostile config)`);
  return v as number;
}

function positiveNumber(c: Record<string, unknown>, field: string, fallback: number): number {
  const v = c[field] ?? fallback;
  if (typeof v === 'number' && !Number.isFinite(v)) throw bad(`${field} is not a finite number`);
  if (typeof v !== 'number' || v <= 0) throw bad(`${field} is ${shown(v)}, not a positive number`);
  return v;
}

/** Token ids from a number, a list of numbers, or null/absent. */
function tokenIds(v: unknown, field: string): number[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  for (const id of list) if (!Number.isSafeInteger(id) || id < 0) throw bad(`${field} holds ${quote(id)}, not a token id`);
  return list as number[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export function parseConfig(json: unknown, generationConfig: unknown = {}): ModelConfig {
  if (!isObject(json)) throw bad('not a JSON object');
  const c = json;
  const modelType = c.model_type;
  if (typeof modelType !== 'string' || !(SUPPORTED_MODEL_TYPES as readonly string[]).includes(modelType)) {
    throw unsupported(`model_type ${JSON.stringify(modelType)} is not supported (supported: ${SUPPORTED_MODEL_TYPES.join(', ')})`);
  }
  const type = modelType as ModelType;
  const d = DEFAULTS[type];

  for (const field of ['num_experts', 'num_local_experts', 'n_routed_experts']) {
    const v = c[field];
    if (typeof v === 'number' && v > 0) throw unsupported(`mixture-of-experts (${field} = ${v}) is not supported`);
  }
  const act = c.hidden_act ?? 'silu';
  if (act !== 'silu') throw unsupported(`hidden_act ${JSON.stringify(act)} is not supported (only silu)`);
  if (c.mlp_bias === true) throw unsupported('mlp_bias = true is not supported');

  const numLayers = positiveInt(c, 'num_hidden_layers');
  const hiddenSize = positiveInt(c, 'hidden_size');
  const intermediateSize = positiveInt(c, 'intermediate_size');
  const numHeads = positiveInt(c, 'num_attention_heads');
  const numKvHeads = positiveInt(c, 'num_key_value_heads', numHeads);
  const vocabSize = positiveInt(c, 'vocab_size');
  if (numHeads % numKvHeads !== 0) throw bad(`num_attention_heads ${numHeads} is not a multiple of num_key_value_heads ${numKvHeads}`);
  if (c.head_dim === undefined || c.head_dim === null) {
    if (hiddenSize % numHeads !== 0) throw bad(`no head_dim, and hidden_size ${hiddenSize} is not a multiple of num_attention_heads ${numHeads}`);
  }
  const headDim = positiveInt(c, 'head_dim', hiddenSize / numHeads);
  if (headDim % 2 !== 0) throw bad(`head_dim ${headDim} is odd: rotary embedding needs an even head_dim`);

  checkSlidingWindow(c, type, numLayers);

  // Newer configs (transformers >= 4.56) carry rope_theta and the scaling in rope_parameters.
  const ropeParams = isObject(c.rope_parameters) ? c.rope_parameters : null;
  const ropeTheta = positiveNumber(ropeParams && ropeParams.rope_theta !== undefined ? ropeParams : c, 'rope_theta', d.ropeTheta);
  const ropeScaling = parseRopeScaling(ropeParams ?? c.rope_scaling);

  // Llama and Qwen3 put the bias on o_proj as well when attention_bias is set; Qwen2 has q/k/v bias only.
  let attentionBias: boolean;
  if (type === 'qwen2') attentionBias = true;
  else {
    if (c.attention_bias === true) throw unsupported(`attention_bias = true (bias on q/k/v/o projections) is not supported for ${type}`);
    attentionBias = false;
  }

  const tie = c.tie_word_embeddings ?? false;
  if (typeof tie !== 'boolean') throw bad(`tie_word_embeddings is ${quote(tie)}, not a boolean`);

  const bos = tokenIds(c.bos_token_id, 'bos_token_id');
  const gen = isObject(generationConfig) ? generationConfig : {};
  const eos = [...new Set([...tokenIds(c.eos_token_id, 'eos_token_id'), ...tokenIds(gen.eos_token_id, 'generation_config.json eos_token_id')])];
  for (const id of [...bos, ...eos]) if (id >= vocabSize) throw bad(`special token id ${id} is outside vocab_size ${vocabSize}`);

  return {
    modelType: type,
    numLayers,
    hiddenSize,
    intermediateSize,
    numHeads,
    numKvHeads,
    headDim,
    vocabSize,
    rmsNormEps: positiveNumber(c, 'rms_norm_eps', d.rmsNormEps),
    ropeTheta,
    ropeScaling,
    maxPositionEmbeddings: positiveInt(c, 'max_position_embeddings', d.maxPositionEmbeddings),
    tieWordEmbeddings: tie,
    attentionBias,
    qkNorm: type === 'qwen3',
    bosTokenId: bos[0] ?? null,
    eosTokenIds: eos,
  };
}

/** Qwen2/Qwen3: layers at index >= max_window_layers use sliding-window attention when enabled. */
function checkSlidingWindow(c: Record<string, unknown>, type: ModelType, numLayers: number): void {
  if (type === 'llama' || c.use_sliding_window !== true) return;
  if (c.sliding_window === null || c.sliding_window === undefined) return;
  const layerTypes = Array.isArray(c.layer_types) ? c.layer_types : null;
  const maxWindowLayers = typeof c.max_window_layers === 'number' ? c.max_window_layers : numLayers;
  const active = layerTypes ? layerTypes.includes('sliding_attention') : maxWindowLayers < numLayers;
  if (active) {
    throw unsupported(`sliding-window attention (use_sliding_window = true, sliding_window = ${JSON.stringify(c.sliding_window)}, active from layer ${maxWindowLayers}) is not supported`);
  }
}

function parseRopeScaling(raw: unknown): ModelConfig['ropeScaling'] {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw bad(`rope_scaling is ${quote(raw)}, not an object`);
  const kind = raw.rope_type ?? raw.type ?? 'default';
  if (kind === 'default') return null;
  if (kind !== 'llama3') throw unsupported(`rope_scaling.rope_type ${JSON.stringify(kind)} is not supported (supported: llama3, default)`);
  const num = (field: string): number => {
    const v = raw[field];
    if (typeof v === 'number' && !Number.isFinite(v)) throw bad(`rope_scaling.${field} is not a finite number`);
    if (typeof v !== 'number' || v <= 0) throw bad(`rope_scaling.${field} is ${quote(v)}, not a positive number`);
    return v;
  };
  const scaling = {
    type: 'llama3' as const,
    factor: num('factor'),
    lowFreqFactor: num('low_freq_factor'),
    highFreqFactor: num('high_freq_factor'),
    originalMaxPositionEmbeddings: num('original_max_position_embeddings'),
  };
  if (scaling.highFreqFactor <= scaling.lowFreqFactor) {
    throw bad(`rope_scaling.high_freq_factor ${scaling.highFreqFactor} must exceed low_freq_factor ${scaling.lowFreqFactor}`);
  }
  return scaling;
}

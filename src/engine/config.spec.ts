import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_LIMITS, parseConfig } from './config.ts';

const fixture = (name: string, file = 'config.json') =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/reference/${name}/${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const base = {
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  vocab_size: 100,
};

describe('parseConfig on the reference checkpoints', () => {
  it('tiny-qwen2: q/k/v bias, tied embeddings', () => {
    expect(parseConfig(fixture('tiny-qwen2'), fixture('tiny-qwen2', 'generation_config.json'))).toEqual({
      modelType: 'qwen2', numLayers: 6, hiddenSize: 64, intermediateSize: 176, numHeads: 4, numKvHeads: 2, headDim: 16,
      vocabSize: 379, rmsNormEps: 1e-6, ropeTheta: 1e6, ropeScaling: null, maxPositionEmbeddings: 512,
      tieWordEmbeddings: true, attentionBias: true, qkNorm: false, bosTokenId: null, eosTokenIds: [378],
    });
  });

  it('tiny-llama: llama3 rope scaling, untied head', () => {
    const c = parseConfig(fixture('tiny-llama'));
    expect(c).toMatchObject({ modelType: 'llama', numLayers: 5, numHeads: 6, numKvHeads: 2, headDim: 8, tieWordEmbeddings: false, attentionBias: false, qkNorm: false });
    expect(c.ropeScaling).toEqual({ type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 64 });
  });

  it('tiny-qwen3: explicit head_dim different from hidden/heads, q/k norm', () => {
    expect(parseConfig(fixture('tiny-qwen3'))).toMatchObject({ modelType: 'qwen3', hiddenSize: 40, numHeads: 4, numKvHeads: 1, headDim: 16, qkNorm: true, attentionBias: false });
  });
});

describe('parseConfig defaults', () => {
  it('derives head_dim and kv heads, and merges eos ids from generation_config', () => {
    const c = parseConfig({ ...base, eos_token_id: [5, 7], bos_token_id: 1 }, { eos_token_id: [7, 9] });
    expect(c).toMatchObject({ headDim: 16, numKvHeads: 4, tieWordEmbeddings: false, ropeTheta: 10000, rmsNormEps: 1e-6, bosTokenId: 1, eosTokenIds: [5, 7, 9] });
  });

  it('treats rope_scaling type "default" as none and reads rope_parameters of newer configs', () => {
    expect(parseConfig({ ...base, rope_scaling: { type: 'default' } }).ropeScaling).toBeNull();
    const c = parseConfig({ ...base, rope_parameters: { rope_type: 'default', rope_theta: 5e5 } });
    expect([c.ropeTheta, c.ropeScaling]).toEqual([5e5, null]);
  });

  it('accepts a Qwen2 sliding window that no layer uses', () => {
    const c = parseConfig({ ...base, model_type: 'qwen2', use_sliding_window: true, sliding_window: 4096, max_window_layers: 2 });
    expect(c.attentionBias).toBe(true);
  });
});

describe('parseConfig refusals', () => {
  it('refuses other model types, listing the supported ones', () => {
    expect(() => parseConfig({ ...base, model_type: 'gpt2' })).toThrow(/model_type "gpt2" is not supported \(supported: llama, qwen2, qwen3\)/);
    expect(() => parseConfig({ ...base, model_type: 'mistral' })).toThrow(expect.objectContaining({ code: 'unsupported-architecture' }));
  });

  it('refuses mixture-of-experts, non-SiLU activations, MLP bias, o_proj bias', () => {
    expect(() => parseConfig({ ...base, model_type: 'qwen2', num_experts: 8 })).toThrow(/mixture-of-experts \(num_experts = 8\)/);
    expect(() => parseConfig({ ...base, num_local_experts: 4 })).toThrow(/mixture-of-experts \(num_local_experts = 4\)/);
    expect(() => parseConfig({ ...base, hidden_act: 'gelu' })).toThrow(/hidden_act "gelu" is not supported/);
    expect(() => parseConfig({ ...base, mlp_bias: true })).toThrow(/mlp_bias = true is not supported/);
    expect(() => parseConfig({ ...base, attention_bias: true })).toThrow(/attention_bias = true .* not supported for llama/);
  });

  it('refuses an active sliding window', () => {
    expect(() => parseConfig({ ...base, model_type: 'qwen2', use_sliding_window: true, sliding_window: 4096, max_window_layers: 1 })).toThrow(
      /sliding-window attention .* active from layer 1/,
    );
  });

  it('refuses rope scaling other than llama3, naming the type', () => {
    expect(() => parseConfig({ ...base, rope_scaling: { rope_type: 'yarn', factor: 4 } })).toThrow(/rope_scaling\.rope_type "yarn" is not supported/);
    expect(() => parseConfig({ ...base, rope_scaling: { rope_type: 'llama3', factor: 8 } })).toThrow(/rope_scaling\.low_freq_factor is undefined/);
  });

  it('names a missing or invalid numeric field', () => {
    const { hidden_size: _, ...noHidden } = base;
    expect(() => parseConfig(noHidden)).toThrow(/config\.json: missing hidden_size/);
    expect(() => parseConfig({ ...base, num_hidden_layers: 0 })).toThrow(/num_hidden_layers is 0, not a positive integer/);
    expect(() => parseConfig({ ...base, vocab_size: '100' })).toThrow(/vocab_size is "100"/);
    expect(() => parseConfig({ ...base, num_key_value_heads: 3 })).toThrow(/num_attention_heads 4 is not a multiple of num_key_value_heads 3/);
    expect(() => parseConfig({ ...base, hidden_size: 66 })).toThrow(/no head_dim, and hidden_size 66 is not a multiple/);
    expect(() => parseConfig({ ...base, eos_token_id: 100 })).toThrow(/special token id 100 is outside vocab_size 100/);
    expect(() => parseConfig([])).toThrow(/config\.json: not a JSON object/);
  });

  it('names a number JSON cannot hold (1e400) as not finite, not as "null"', () => {
    const withTheta = JSON.parse(`{"rope_theta": 1e400}`) as Record<string, unknown>;
    expect(() => parseConfig({ ...base, ...withTheta })).toThrow(/config\.json: rope_theta is not a finite number$/);
    expect(() => parseConfig({ ...base, num_hidden_layers: Infinity })).toThrow(/num_hidden_layers is not a finite number/);
    expect(() => parseConfig({ ...base, rms_norm_eps: -Infinity })).toThrow(/rms_norm_eps is not a finite number/);
  });

  it('refuses sizes past CONFIG_LIMITS by name, before anything is sized from them', () => {
    expect(() => parseConfig({ ...base, num_hidden_layers: 10_000_000 })).toThrow(/num_hidden_layers is 10000000, more than CONFIG_LIMITS\.num_hidden_layers = 1024/);
    expect(() => parseConfig({ ...base, vocab_size: CONFIG_LIMITS.vocab_size + 1 })).toThrow(/vocab_size is \d+, more than CONFIG_LIMITS\.vocab_size/);
    expect(() => parseConfig({ ...base, hidden_size: 2 ** 20, num_attention_heads: 4 })).toThrow(/hidden_size is 1048576, more than CONFIG_LIMITS\.hidden_size = 65536/);
    expect(parseConfig({ ...base, num_hidden_layers: CONFIG_LIMITS.num_hidden_layers }).numLayers).toBe(1024);
  });
});

// The training forward must be Hugging Face Llama exactly: check it against the reference
// checkpoint's logits from an independent float64 forward (test/fixtures/reference/tiny-llama).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MicroConfig } from './config';
import { forward, maskedLoss, type Params } from './model';
import { decodeSafetensors } from './safetensors';

const DIR = join(__dirname, '../../test/fixtures/reference/tiny-llama');

interface Expected {
  input_ids: number[];
  tolerance: { abs: number };
  cases: { name: string; route: number[]; silence: number[]; last_logits: number[] }[];
  default_all_logits: number[][];
}

function loadReference(): { c: MicroConfig; params: Params } {
  const cfg = JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8'));
  const rs = cfg.rope_scaling;
  const c: MicroConfig = {
    vocabSize: cfg.vocab_size,
    hiddenSize: cfg.hidden_size,
    intermediateSize: cfg.intermediate_size,
    numLayers: cfg.num_hidden_layers,
    numHeads: cfg.num_attention_heads,
    numKvHeads: cfg.num_key_value_heads,
    headDim: cfg.head_dim,
    ropeTheta: cfg.rope_theta,
    ropeScaling: { factor: rs.factor, lowFreqFactor: rs.low_freq_factor, highFreqFactor: rs.high_freq_factor, originalMaxPositionEmbeddings: rs.original_max_position_embeddings },
    rmsNormEps: cfg.rms_norm_eps,
    maxPositionEmbeddings: cfg.max_position_embeddings,
    tieWordEmbeddings: cfg.tie_word_embeddings,
    eosTokenId: cfg.eos_token_id,
    padTokenId: cfg.eos_token_id,
  };
  const index = JSON.parse(readFileSync(join(DIR, 'model.safetensors.index.json'), 'utf8')) as { weight_map: Record<string, string> };
  const params: Params = new Map();
  for (const shard of new Set(Object.values(index.weight_map))) {
    for (const t of decodeSafetensors(readFileSync(join(DIR, shard)))) params.set(t.name, tf.variable(tf.tensor(t.values, t.shape), true, `ref.${t.name}`));
  }
  return { c, params };
}

describe('micro model forward (HF Llama semantics)', () => {
  let ref: { c: MicroConfig; params: Params };
  let expected: Expected;
  beforeAll(async () => {
    await tf.setBackend('cpu');
    ref = loadReference();
    expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8'));
  });

  const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    expect(a.length).toBe(b.length);
    let m = 0;
    for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
    return m;
  };

  it('reproduces the reference logits at every position of the default route', () => {
    const T = expected.input_ids.length;
    const logits = tf.tidy(() => forward(tf.tensor2d([expected.input_ids], [1, T], 'int32'), [0, 1, 2, 3, 4], ref.params, ref.c).dataSync());
    expect(maxAbsDiff(logits, expected.default_all_logits.flat())).toBeLessThanOrEqual(expected.tolerance.abs);
  });

  it('reproduces the last-position logits of every route case (skip, repeat, reorder, loop-back)', () => {
    const T = expected.input_ids.length;
    const routeCases = expected.cases.filter((k) => k.silence.length === 0);
    expect(routeCases.length).toBeGreaterThanOrEqual(7);
    for (const k of routeCases) {
      const logits = tf.tidy(() => forward(tf.tensor2d([expected.input_ids], [1, T], 'int32'), k.route, ref.params, ref.c).slice([T - 1, 0], [1, ref.c.vocabSize]).dataSync());
      expect(maxAbsDiff(logits, k.last_logits), k.name).toBeLessThanOrEqual(expected.tolerance.abs);
    }
  });

  it('rejects a route with a layer outside the model', () => {
    expect(() => forward(tf.tensor2d([[1, 2]], [1, 2], 'int32'), [0, 5], ref.params, ref.c)).toThrow(/route layer 5/);
    expect(() => forward(tf.tensor2d([[1, 2]], [1, 2], 'int32'), [], ref.params, ref.c)).toThrow(/non-empty/);
  });

  it('has gradients that agree with finite differences (custom linear gradient included)', () => {
    const ids = tf.tensor2d([expected.input_ids.slice(0, 6)], [1, 6], 'int32');
    const targets = tf.tensor2d([expected.input_ids.slice(1, 7)], [1, 6], 'int32');
    const weights = tf.tensor2d([[0, 0, 1, 1, 1, 1]], [1, 6]);
    const route = [0, 1, 1, 3]; // a repeated layer: its weights receive two gradient contributions
    const loss = () => maskedLoss(forward(ids, route, ref.params, ref.c), targets, weights, ref.c.vocabSize);
    for (const name of ['model.layers.1.mlp.down_proj.weight', 'model.layers.1.self_attn.q_proj.weight', 'model.layers.0.self_attn.v_proj.weight', 'model.embed_tokens.weight', 'model.layers.3.input_layernorm.weight']) {
      const w = ref.params.get(name)!;
      const { value, grads } = tf.variableGrads(loss, [w]);
      const grad = grads[w.name].dataSync() as Float32Array;
      tf.dispose([value, grads[w.name]]);
      const base = w.dataSync().slice();
      const eps = 1e-2;
      const at = (i: number, delta: number) => {
        const v = base.slice();
        v[i] += delta;
        w.assign(tf.tensor(v, w.shape));
        return tf.tidy(() => loss().dataSync()[0]);
      };
      // the largest-gradient entry and a few fixed ones
      const top = grad.reduce((b, g, i) => (Math.abs(g) > Math.abs(grad[b]) ? i : b), 0);
      for (const i of [top, 0, Math.floor(base.length / 2), base.length - 1]) {
        const numeric = (at(i, eps) - at(i, -eps)) / (2 * eps);
        expect(Math.abs(grad[i] - numeric), `${name}[${i}]`).toBeLessThanOrEqual(1e-3 + 0.02 * Math.abs(numeric));
      }
      w.assign(tf.tensor(base, w.shape));
      expect(Math.abs(grad[top])).toBeGreaterThan(1e-3);
    }
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { generateArith } from '../../src/audit/tasks/arith';
import { createPrng, type Prng } from '../../src/util/prng';
import { hfConfigJson, microConfigFromHf, type MicroConfig } from './config';
import { initParams } from './model';
import { DEFAULT_RFT, drawToken, keepRewarded, reward, rft, rftLearningRate, sampleAnswers } from './rft';
import { decodeSafetensors } from './safetensors';
import { EOS_ID, VOCAB_SIZE, encodeChars } from './vocab';

const fixed = (u: number): Prng => ({ next: () => u, nextU32: () => 0, int: () => 0 });

const tiny: MicroConfig = {
  vocabSize: VOCAB_SIZE,
  hiddenSize: 16,
  intermediateSize: 32,
  numLayers: 2,
  numHeads: 1,
  numKvHeads: 1,
  headDim: 16,
  ropeTheta: 10000,
  ropeScaling: null,
  rmsNormEps: 1e-5,
  maxPositionEmbeddings: 64,
  tieWordEmbeddings: false,
  eosTokenId: EOS_ID,
  padTokenId: EOS_ID,
};

describe('rejection-sampling fine-tuning', () => {
  it('draws from softmax(logits / T): logits [0, ln 3] give 1/4 and 3/4', () => {
    const logits = [0, Math.log(3)];
    expect(drawToken(logits, 1, fixed(0.2))).toBe(0); // 0.2 < 1/4
    expect(drawToken(logits, 1, fixed(0.3))).toBe(1);
    // T = 2: weights 1 and √3 → P(0) = 1/(1+√3) ≈ 0.366
    expect(drawToken(logits, 2, fixed(0.36))).toBe(0);
    expect(drawToken(logits, 2, fixed(0.37))).toBe(1);
  });

  it('rewards exactly the gold answer closed by eos', () => {
    const p = { a: 12, b: 34, op: '+' as const, answer: 46 };
    expect(reward(p, [...encodeChars('46'), EOS_ID])).toBe(1);
    expect(reward(p, encodeChars('46'))).toBe(0); // cut off before eos
    expect(reward(p, [...encodeChars('47'), EOS_ID])).toBe(0);
    expect(reward(p, [...encodeChars('46 '), EOS_ID])).toBe(0);
  });

  it('samples reproducibly from a seed, each row ending at eos or the token limit', () => {
    const params = initParams(tiny, 3);
    const prompts = [encodeChars('12+34='), encodeChars('56-78=')];
    const a = sampleAnswers(prompts, params, tiny, { temperature: 1, maxNewTokens: 4 }, createPrng(5));
    const b = sampleAnswers(prompts, params, tiny, { temperature: 1, maxNewTokens: 4 }, createPrng(5));
    expect(a).toEqual(b);
    for (const s of a) expect(s.length === 4 || s[s.length - 1] === EOS_ID).toBe(true);
    tf.dispose([...params.values()]);
  });

  it('keeps each rewarded (problem, sample) once and counts the problems solved', () => {
    const problems = [
      { a: 1, b: 2, op: '+' as const, answer: 3 },
      { a: 5, b: 1, op: '-' as const, answer: 4 },
    ];
    const right3 = [...encodeChars('3'), EOS_ID];
    const outs = [right3, right3, encodeChars('3'), [...encodeChars('5'), EOS_ID]];
    const k = keepRewarded(problems, [0, 0, 0, 1], outs);
    expect(k.rewarded).toBe(2);
    expect([...k.solved]).toEqual([0]);
    expect(k.rows).toEqual([{ prompt: encodeChars('1+2='), answer: right3 }]);
  });

  it('one round on the shipped micro model keeps rewarded samples and fine-tunes on them', async () => {
    const dir = join(__dirname, '../../public/hub/reachlab/micro-arith/resolve/main');
    const c = microConfigFromHf(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')));
    const params = new Map(decodeSafetensors(new Uint8Array(readFileSync(join(dir, 'model.safetensors')))).map((t) => [t.name, tf.variable(tf.tensor(t.values, t.shape), true, t.name)]));
    const before = Array.from(params.get('model.layers.0.mlp.up_proj.weight')!.dataSync());
    const train = generateArith('arith-2d', 'train', 64, 1);
    const [log] = await rft(params, c, train, { ...DEFAULT_RFT, rounds: 1, problemsPerRound: 32, samples: 4, stepsPerRound: 5, batchSize: 16 }, () => {}, () => 0.25);
    expect(log.problems).toBe(32);
    expect(log.validation).toBe(0.25);
    expect(log.kept).toBeGreaterThan(0);
    expect(log.kept).toBeLessThanOrEqual(log.sampleAccuracy * 128);
    expect(Number.isFinite(log.loss)).toBe(true);
    expect(Array.from(params.get('model.layers.0.mlp.up_proj.weight')!.dataSync())).not.toEqual(before);
    tf.dispose([...params.values()]);
  });

  it('warms the learning rate up linearly, then decays it (cosine) to minLrRatio × lr at the last step', () => {
    const o = { lr: 1e-3, warmupSteps: 10, minLrRatio: 0.1, rounds: 2, stepsPerRound: 55 };
    expect(rftLearningRate(0, o)).toBeCloseTo(1e-4, 12);
    expect(rftLearningRate(9, o)).toBeCloseTo(1e-3, 12);
    expect(rftLearningRate(10, o)).toBeCloseTo(1e-3, 12);
    expect(rftLearningRate(60, o)).toBeCloseTo(0.55e-3, 12); // halfway through the decay
    expect(rftLearningRate(110, o)).toBeCloseTo(1e-4, 12);
    expect(rftLearningRate(500, o)).toBeCloseTo(1e-4, 12); // never below the floor
  });

  it('refuses a replay share outside [0, 1)', async () => {
    await expect(rft(new Map(), tiny, [], { ...DEFAULT_RFT, replay: 1 }, () => {})).rejects.toThrow(/replay must be in \[0, 1\), got 1/);
  });

  it('reads back the config it writes', () => {
    expect(microConfigFromHf(hfConfigJson(tiny))).toEqual(tiny);
    expect(() => microConfigFromHf({ ...hfConfigJson(tiny), model_type: 'qwen2' })).toThrow(/model_type must be llama/);
  });
});

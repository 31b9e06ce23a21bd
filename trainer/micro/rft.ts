// Rejection-sampling fine-tuning (RFT, also called expert iteration): a reinforcement-learning
// method with a binary correctness reward and no value model. Each round samples k answers per
// train problem from the current model (default route, temperature T), keeps the correct ones
// (reward 1: the answer equals the gold answer and ends with eos), and fine-tunes the model on its
// own kept samples with answer-token cross-entropy. A replay anchor mixes into every batch a share
// of rows from the base model's own training data (question + gold answer), so the policy does not
// drift from what the base learned on the problems it rarely solves. The learning rate warms up and
// decays (cosine) over all steps of all rounds. Train split only; every draw seeded.

import * as tf from '@tensorflow/tfjs';
import type { ArithProblem } from '../../src/audit/tasks/arith';
import { arithTarget } from '../../src/audit/tasks/arith';
import { createPrng, shuffled, type Prng } from '../../src/util/prng';
import type { MicroConfig } from './config';
import { makeRowsBatch, problemIds } from './data';
import { decodeBatched } from './decode';
import { forward, maskedLoss, type Params } from './model';
import { AdamW } from './optim';
import { defaultRoute } from './routes';
import { decodeChars, EOS_ID } from './vocab';

export interface RftOptions {
  seed: number;
  rounds: number;
  /** Train problems drawn (without replacement) per round. */
  problemsPerRound: number;
  /** Samples per problem. */
  samples: number;
  temperature: number;
  maxNewTokens: number;
  stepsPerRound: number;
  batchSize: number;
  /** Peak learning rate. */
  lr: number;
  warmupSteps: number;
  /** Final learning rate as a share of the peak (cosine decay over rounds × stepsPerRound steps). */
  minLrRatio: number;
  /** Share of each batch drawn from the replay rows (the base's training problems with their gold
   *  answers); the rest are the round's kept samples. */
  replay: number;
  weightDecay: number;
  gradClip: number;
}

/** The shipped recipe, chosen on the validation problems (see rft-sweep.ts), never on the audit. */
export const DEFAULT_RFT: RftOptions = {
  seed: 7,
  rounds: 4,
  problemsPerRound: 1024,
  samples: 8,
  temperature: 1,
  maxNewTokens: 5,
  stepsPerRound: 100,
  batchSize: 64,
  lr: 1e-4,
  warmupSteps: 20,
  minLrRatio: 0.1,
  replay: 0.5,
  weightDecay: 0,
  gradClip: 1,
};

/** The recipe this model shipped with before: learning rate 0.001 from the first step, no decay, no
 *  replay. It lowered validation accuracy (see the card); kept to name it in the sweep. */
export const PREVIOUS_RFT: RftOptions = { ...DEFAULT_RFT, lr: 1e-3, warmupSteps: 0, minLrRatio: 1, replay: 0 };

/** Learning rate at a step (0-based) of the whole run: linear warmup, then cosine to minLrRatio × lr. */
export function rftLearningRate(step: number, o: Pick<RftOptions, 'lr' | 'warmupSteps' | 'minLrRatio' | 'rounds' | 'stepsPerRound'>): number {
  if (step < o.warmupSteps) return (o.lr * (step + 1)) / o.warmupSteps;
  const progress = (step - o.warmupSteps) / Math.max(1, o.rounds * o.stepsPerRound - o.warmupSteps);
  return o.lr * (o.minLrRatio + (1 - o.minLrRatio) * 0.5 * (1 + Math.cos(Math.PI * Math.min(1, progress))));
}

/** One sampled answer: its tokens (eos included when produced). */
export type SampleTokens = number[];

/** Softmax(logits / T) draw with the project PRNG; logits: one row of V. */
export function drawToken(logits: ArrayLike<number>, temperature: number, rng: Prng): number {
  let max = -Infinity;
  for (let v = 0; v < logits.length; v++) max = Math.max(max, logits[v]);
  const w = new Float64Array(logits.length);
  let sum = 0;
  for (let v = 0; v < logits.length; v++) sum += w[v] = Math.exp((logits[v] - max) / temperature);
  let u = rng.next() * sum;
  for (let v = 0; v < w.length; v++) {
    u -= w[v];
    if (u < 0) return v;
  }
  return w.length - 1;
}

/** Temperature sampling of any prompts on the default route; each row stops at eos or
 *  maxNewTokens. Draws follow decodeBatched's fixed order, so a seed fixes every sample. */
export function sampleAnswers(prompts: number[][], params: Params, c: MicroConfig, o: Pick<RftOptions, 'temperature' | 'maxNewTokens'>, rng: Prng): SampleTokens[] {
  return decodeBatched(prompts, defaultRoute(c.numLayers), params, c, o.maxNewTokens, (logits) => drawToken(logits, o.temperature, rng));
}

/** Reward: 1 when the sample is the gold answer followed by eos. */
export function reward(p: ArithProblem, tokens: SampleTokens): 0 | 1 {
  return tokens[tokens.length - 1] === EOS_ID && decodeChars(tokens) === arithTarget(p) ? 1 : 0;
}

export interface KeptSamples {
  /** Distinct rewarded (prompt, sampled answer) rows, in first-seen order. */
  rows: { prompt: number[]; answer: SampleTokens }[];
  /** Rewarded samples, duplicates included. */
  rewarded: number;
  /** Problems (by index) with at least one rewarded sample. */
  solved: Set<number>;
}

/** The rewarded samples of one round: sample j of `outs` answers problem `problemOf[j]`. */
export function keepRewarded(problems: readonly ArithProblem[], problemOf: readonly number[], outs: readonly SampleTokens[]): KeptSamples {
  const rows = new Map<string, { prompt: number[]; answer: SampleTokens }>();
  const solved = new Set<number>();
  let rewarded = 0;
  outs.forEach((tokens, j) => {
    const i = problemOf[j];
    if (!reward(problems[i], tokens)) return;
    rewarded++;
    solved.add(i);
    const key = `${i}:${tokens.join(',')}`;
    if (!rows.has(key)) rows.set(key, { prompt: problemIds(problems[i]).prompt, answer: tokens });
  });
  return { rows: [...rows.values()], rewarded, solved };
}

export interface RoundLog {
  round: number;
  problems: number;
  /** Share of all samples with reward 1. */
  sampleAccuracy: number;
  /** Share of problems with at least one rewarded sample (pass@k on the train problems). */
  solved: number;
  /** Distinct (problem, sample) pairs kept for fine-tuning. */
  kept: number;
  /** Mean loss over the round's fine-tuning steps. */
  loss: number;
  /** Greedy accuracy on the validation problems after the round (when a validator is given). */
  validation?: number;
  elapsedS: number;
}

/** Runs the RFT rounds in place on `params`, sampling from `trainPool`; its problems with their gold
 *  answers are also the replay rows. `validate` (optional) scores the model after each round. */
export async function rft(params: Params, c: MicroConfig, trainPool: readonly ArithProblem[], o: RftOptions, log: (r: RoundLog) => void, validate?: () => number): Promise<RoundLog[]> {
  if (!(o.replay >= 0 && o.replay < 1)) throw new Error(`rft: replay must be in [0, 1), got ${o.replay}`);
  const rng = createPrng(o.seed, 30);
  const opt = new AdamW(params, { beta1: 0.9, beta2: 0.98, eps: 1e-8, weightDecay: o.weightDecay });
  const vars = [...params.values()];
  const replayRows = trainPool.map(problemIds);
  const nReplay = Math.round(o.replay * o.batchSize);
  const started = performance.now();
  const logs: RoundLog[] = [];
  let globalStep = 0;
  for (let round = 1; round <= o.rounds; round++) {
    const problems = shuffled(trainPool, rng).slice(0, o.problemsPerRound);
    // sample k answers per problem; problems in ascending prompt length, the order the draws follow
    const order = problems.map((_, i) => i).sort((i, j) => problemIds(problems[i]).prompt.length - problemIds(problems[j]).prompt.length);
    const problemOf = order.flatMap((i) => Array<number>(o.samples).fill(i));
    const outs = sampleAnswers(problemOf.map((i) => problemIds(problems[i]).prompt), params, c, o, rng);
    const kept = keepRewarded(problems, problemOf, outs);
    // fine-tune on the kept samples, each batch topped up with replay rows
    const rows = kept.rows;
    let lossSum = 0;
    let steps = 0;
    for (let step = 0; step < o.stepsPerRound && rows.length > 0; step++, globalStep++) {
      const own = Array.from({ length: o.batchSize - nReplay }, () => rows[rng.int(rows.length)]);
      const replayed = Array.from({ length: nReplay }, () => replayRows[rng.int(replayRows.length)]);
      const batch = makeRowsBatch([...own, ...replayed]);
      const { value, grads } = tf.tidy(() => {
        const inputs = tf.tensor2d(batch.inputs, [batch.B, batch.T], 'int32'); // [B, T]
        const targets = tf.tensor2d(batch.targets, [batch.B, batch.T], 'int32'); // [B, T]
        const weights = tf.tensor2d(batch.weights, [batch.B, batch.T], 'float32'); // [B, T]
        return tf.variableGrads(() => maskedLoss(forward(inputs, defaultRoute(c.numLayers), params, c), targets, weights, c.vocabSize), vars);
      });
      const gradList = Object.values(grads);
      const norm = tf.tidy(() => tf.addN(gradList.map((g) => g.square().sum())).sqrt());
      const [lossValue, normValue] = [(await value.data())[0], (await norm.data())[0]];
      if (!Number.isFinite(lossValue) || !Number.isFinite(normValue)) throw new Error(`rft: loss ${lossValue}, grad norm ${normValue} in round ${round}, step ${step}`);
      opt.step(grads, rftLearningRate(globalStep, o), normValue > o.gradClip ? o.gradClip / normValue : 1);
      tf.dispose([value, norm, ...gradList]);
      lossSum += lossValue;
      steps++;
    }
    const entry: RoundLog = {
      round,
      problems: problems.length,
      sampleAccuracy: kept.rewarded / (problems.length * o.samples),
      solved: kept.solved.size / problems.length,
      kept: rows.length,
      loss: steps ? lossSum / steps : NaN,
      ...(validate ? { validation: validate() } : {}),
      elapsedS: (performance.now() - started) / 1000,
    };
    logs.push(entry);
    log(entry);
  }
  return logs;
}

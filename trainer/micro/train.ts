// The training loop: AdamW on answer-token cross-entropy, warmup + cosine learning rate,
// global-norm clipping, and optional LayerDrop-style routes (with probability routeProb a step runs a
// uniformly drawn one-edit blocks route instead of the default; 0, off, for the shipped model), all
// driven by the project's seeded PRNG.

import * as tf from '@tensorflow/tfjs';
import { shuffled, createPrng } from '../../src/util/prng';
import type { ArithProblem } from '../../src/audit/tasks/arith';
import type { MicroConfig } from './config';
import { makeBatch } from './data';
import { forward, maskedLoss, type Params } from './model';
import { AdamW } from './optim';
import type { TrainOptions } from './options';
import { blockRoutes, defaultRoute } from './routes';

export interface CurvePoint {
  step: number;
  /** Mean training loss over the steps since the previous point. */
  loss: number;
  lr: number;
  elapsedS: number;
  /** Greedy accuracy on the validation questions (held back from the train split), at eval steps. */
  validation?: number;
  /** Held-out (test split) greedy accuracy on the curve questions, at eval steps. */
  heldOut?: number;
}

export interface EvalHooks {
  validation(): number;
  heldOut(): number;
}

function learningRate(step: number, o: TrainOptions): number {
  if (step < o.warmupSteps) return (o.lr * (step + 1)) / o.warmupSteps;
  const progress = (step - o.warmupSteps) / Math.max(1, o.steps - o.warmupSteps);
  return o.lr * (o.minLrRatio + (1 - o.minLrRatio) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

export async function train(
  params: Params,
  c: MicroConfig,
  trainSet: readonly ArithProblem[],
  o: TrainOptions,
  hooks: EvalHooks,
  log: (p: CurvePoint) => void,
): Promise<CurvePoint[]> {
  const rng = createPrng(o.seed, 10);
  const routes = blockRoutes(c.numLayers, o.maxBlock);
  const base = defaultRoute(c.numLayers);
  const opt = new AdamW(params, { beta1: 0.9, beta2: 0.98, eps: 1e-8, weightDecay: o.weightDecay });
  const vars = [...params.values()];
  const curve: CurvePoint[] = [];
  const started = performance.now();
  let order = shuffled(trainSet, rng);
  let cursor = 0;
  let lossSum = 0;
  let lossCount = 0;
  for (let step = 0; step < o.steps; step++) {
    if (cursor + o.batchSize > order.length) {
      order = shuffled(trainSet, rng);
      cursor = 0;
    }
    const batch = makeBatch(order.slice(cursor, cursor + o.batchSize));
    cursor += o.batchSize;
    const route = rng.next() < o.routeProb ? routes[rng.int(routes.length)] : base;
    const lr = learningRate(step, o);
    const { value, grads } = tf.tidy(() => {
      const inputs = tf.tensor2d(batch.inputs, [batch.B, batch.T], 'int32'); // [B, T]
      const targets = tf.tensor2d(batch.targets, [batch.B, batch.T], 'int32'); // [B, T]
      const weights = tf.tensor2d(batch.weights, [batch.B, batch.T], 'float32'); // [B, T]
      return tf.variableGrads(() => maskedLoss(forward(inputs, route, params, c), targets, weights, c.vocabSize), vars);
    });
    const gradList = Object.values(grads);
    const norm = tf.tidy(() => tf.addN(gradList.map((g) => g.square().sum())).sqrt());
    const [lossValue, normValue] = [(await value.data())[0], (await norm.data())[0]];
    if (!Number.isFinite(lossValue) || !Number.isFinite(normValue)) throw new Error(`train-micro: loss ${lossValue}, grad norm ${normValue} at step ${step}`);
    opt.step(grads, lr, normValue > o.gradClip ? o.gradClip / normValue : 1);
    tf.dispose([value, norm, ...gradList]);
    lossSum += lossValue;
    lossCount++;
    const last = step === o.steps - 1;
    if ((step + 1) % o.logEvery === 0 || last) {
      const point: CurvePoint = { step: step + 1, loss: lossSum / lossCount, lr, elapsedS: (performance.now() - started) / 1000 };
      if ((step + 1) % o.evalEvery === 0 || last) {
        point.validation = hooks.validation();
        point.heldOut = hooks.heldOut();
      }
      curve.push(point);
      log(point);
      lossSum = 0;
      lossCount = 0;
      if (o.stopAtAccuracy > 0 && point.validation !== undefined && point.validation >= o.stopAtAccuracy) break;
    }
  }
  return curve;
}

// AdamW (Loshchilov & Hutter) over tfjs variables, with the learning rate given per step so the
// schedule lives in the training loop. Weight decay applies to matrices only (not norm weights).

import * as tf from '@tensorflow/tfjs';

export interface AdamWOptions {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
}

export class AdamW {
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();
  private t = 0;

  constructor(
    private readonly vars: Map<string, tf.Variable>,
    private readonly opts: AdamWOptions,
  ) {
    for (const [name, p] of vars) {
      this.m.set(name, tf.variable(tf.zerosLike(p), false));
      this.v.set(name, tf.variable(tf.zerosLike(p), false));
    }
  }

  /** One update with gradients keyed by variable name; grads are scaled by `gradScale` first (clipping). */
  step(grads: tf.NamedTensorMap, lr: number, gradScale = 1): void {
    this.t++;
    const { beta1, beta2, eps, weightDecay } = this.opts;
    const c1 = 1 - Math.pow(beta1, this.t);
    const c2 = 1 - Math.pow(beta2, this.t);
    tf.tidy(() => {
      for (const [name, p] of this.vars) {
        const g0 = grads[name];
        if (!g0) continue; // a layer no route used this step
        const g = g0.mul(gradScale);
        const m = this.m.get(name)!;
        const v = this.v.get(name)!;
        m.assign(m.mul(beta1).add(g.mul(1 - beta1)));
        v.assign(v.mul(beta2).add(g.square().mul(1 - beta2)));
        const update = m.div(c1).div(v.div(c2).sqrt().add(eps));
        const decay = p.rank >= 2 ? p.mul(weightDecay) : tf.zerosLike(p);
        p.assign(p.sub(update.add(decay).mul(lr)));
      }
    });
  }
}

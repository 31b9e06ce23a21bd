// Why a layer's silencing repairs: each layer's mean MLP direct attribution over the failure set,
// beside its repair count in the scan's per-layer table. One read-out per failure question, of its
// deployment attempt at the first answer token where it differs from the gold (engine/readout.ts), gives each route position's MLP
// contribution to the (gold − emitted) logit difference; a layer's contribution to one question is
// the sum over the positions that run it (the default route runs each layer once).

import type { Readout } from '../engine/types';

export interface LayerAttribution {
  layer: number;
  /** Mean MLP attribution to gold − emitted over the questions that ran the layer; null when none
   *  did. Negative: on average the layer's MLP pushes the emitted token above the gold one. */
  mean: number | null;
  /** Failure-set questions read out that ran the layer. */
  n: number;
}

/** Each of `layers`' mean MLP attribution over the read-outs (one per failure-set question). */
export function meanMlpAttribution(readouts: readonly Pick<Readout, 'attribution'>[], layers: readonly number[]): LayerAttribution[] {
  return layers.map((layer) => {
    const perQuestion = readouts.flatMap((r) => {
      const own = r.attribution.filter((a) => a.layer === layer);
      return own.length ? [own.reduce((s, a) => s + a.mlp, 0)] : [];
    });
    const n = perQuestion.length;
    return { layer, mean: n ? perQuestion.reduce((s, x) => s + x, 0) / n : null, n };
  });
}

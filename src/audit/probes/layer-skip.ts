// Single-layer skips: the classic layer-ablation sweep as a probe. Its routes are the default route
// with one layer left out (L of them, the smallest route space that changes the computation); a
// question takes min(B, L) of them in a seeded random order, drawn without replacement, so reach@k
// is the unbiased estimator over the drawn set, as for random routes. The skips never see the gold
// answer.

import { num, obj, oneOf } from '../../util/check';
import { OKABE_ITO } from '../../util/okabe-ito';
import { createPrng, shuffled } from '../../util/prng';
import { AuditError } from '../errors';
import { defaultRoute } from '../routes';
import { seedFor } from '../seeds';
import { oneShot, type Probe } from './probe';
import { BUDGET_SEED_SETTINGS, budgetSeed, seeded, validateBudgetSeed } from './route-draws';

export type LayerSkipSpec = { probe: 'layer-skip'; numLayers: number; budget: number; seed: number };

export function layerSkips(numLayers: number, budget: number, seed: number): LayerSkipSpec {
  return { probe: 'layer-skip', numLayers, budget, seed };
}

/** The default route of `numLayers` layers without layer `skip`. */
const without = (numLayers: number, skip: number) => defaultRoute(numLayers).filter((l) => l !== skip);

/** Every single-layer skip, layer 0 left out first. */
export const allSkips = (spec: LayerSkipSpec): number[][] => Array.from({ length: spec.numLayers }, (_, i) => without(spec.numLayers, i));

const drawn = (spec: LayerSkipSpec) => Math.min(spec.budget, spec.numLayers);

/** The skips one question tries, in its seeded order. */
export const questionSkips = (spec: LayerSkipSpec, docId: string): number[][] =>
  shuffled(allSkips(spec), createPrng(seedFor(spec.seed, docId))).slice(0, drawn(spec));

export const layerSkipProbe: Probe<LayerSkipSpec, typeof BUDGET_SEED_SETTINGS> = {
  name: 'layer-skip',
  label: 'single-layer skips',
  colour: OKABE_ITO.grey,
  dash: '4,1,1,1',
  role: 'reach',
  schema: obj({ probe: oneOf('layer-skip'), numLayers: num({ int: true, min: 2 }), ...budgetSeed }),
  validate(spec, numLayers) {
    validateBudgetSeed(spec);
    if (spec.numLayers !== numLayers) throw new AuditError('bad-input', `layer-skip is set for ${spec.numLayers} layers; the model has ${numLayers}`);
    if (numLayers < 2) throw new AuditError('bad-input', 'layer-skip needs a model of at least 2 layers (skipping the only layer leaves no route)');
  },
  budget: (spec) => spec.budget,
  maxAttempts: drawn,
  roundSize: drawn,
  sawGold: false,
  curve: 'unbiased',
  candidates: allSkips,
  ...seeded,
  settings: BUDGET_SEED_SETTINGS,
  fromChoice: (o, L) => layerSkips(L, o.budget, o.seed),
  start: (spec, q) => oneShot(questionSkips(spec, q.doc.id).map((route) => ({ route, silence: [] }))),
  presets: [
    {
      id: 'single-layer-skips',
      label: 'Single-layer skips (every layer left out once)',
      short: 'Single-layer skips',
      nominalBudget: 24,
      description: 'The default route with one layer left out, every layer in turn, in a seeded order per question; no gold answer is used to choose.',
      spec: (L) => layerSkips(L, L, 1),
    },
  ],
  describe: (spec) => `single-layer skips ×${spec.budget}`,
};

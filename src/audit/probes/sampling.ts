// The sampling ceiling (Yue et al.): B samples on the default route at a temperature and top-p,
// each seeded by (probe seed, question id, sample index); reach@k is the unbiased pass@k.

import { num, obj, oneOf } from '../../util/check';
import { OKABE_ITO } from '../../util/okabe-ito';
import { AuditError } from '../errors';
import { defaultRoute } from '../routes';
import { seedFor } from '../seeds';
import { oneShot, type Probe } from './probe';
import { BUDGET_SEED_SETTINGS, budgetSeed, seeded, validateBudgetSeed } from './route-draws';
import { number } from './settings';

export type SamplingSpec = { probe: 'sampling'; budget: number; temperature: number; topP: number; seed: number };

const bad = (msg: string) => new AuditError('bad-input', msg);

/** Sampling ceiling (Yue et al.): temperature 0.6, top-p 0.95, k = budget samples. */
export function samplingCeiling(budget: number, seed: number, temperature = 0.6, topP = 0.95): SamplingSpec {
  return { probe: 'sampling', budget, temperature, topP, seed };
}

const SETTINGS = {
  ...BUDGET_SEED_SETTINGS,
  temperature: number({ min: 0, above: true, default: 0.6, help: 'sampling temperature' }),
  topP: number({ min: 0, above: true, max: 1, default: 0.95, help: 'sampling top-p (nucleus) mass' }),
};

export const samplingProbe: Probe<SamplingSpec, typeof SETTINGS> = {
  name: 'sampling',
  label: 'sampling',
  colour: OKABE_ITO.bluishGreen,
  dash: '3,2',
  role: 'reach',
  schema: obj({ probe: oneOf('sampling'), budget: budgetSeed.budget, temperature: num({ min: 0 }), topP: num({ min: 0, max: 1 }), seed: budgetSeed.seed }),
  validate(spec) {
    validateBudgetSeed(spec);
    if (!(spec.temperature > 0)) throw bad(`sampling temperature must be > 0, got ${spec.temperature}`);
    if (!(spec.topP > 0 && spec.topP <= 1)) throw bad(`sampling topP must be in (0, 1], got ${spec.topP}`);
  },
  budget: (spec) => spec.budget,
  maxAttempts: (spec) => spec.budget,
  roundSize: (spec) => spec.budget,
  sawGold: false,
  curve: 'unbiased',
  needsGeneration: true,
  ...seeded,
  settings: SETTINGS,
  fromChoice: (o) => samplingCeiling(o.budget, o.seed, o.temperature, o.topP),
  start: (spec, q, ctx) =>
    oneShot(
      Array.from({ length: spec.budget }, (_, i) => ({
        route: defaultRoute(ctx.numLayers),
        silence: [],
        sampling: { kind: 'sample' as const, temperature: spec.temperature, topP: spec.topP, seed: seedFor(spec.seed, q.doc.id, i) },
        sample: i,
      })),
    ),
  presets: [
    {
      id: 'sampling-ceiling',
      label: 'Sampling ceiling (pass@64, T = 0.6)',
      short: 'Sampling ceiling',
      nominalBudget: 64,
      description: 'Temperature 0.6, top-p 0.95, unbiased pass@k.',
      spec: () => samplingCeiling(64, 1),
    },
  ],
  describe: (spec) => `sampling ×${spec.budget}`,
};

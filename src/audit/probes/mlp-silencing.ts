// MLP silencing: the deployment procedure once per listed layer with that layer's MLP block
// silenced (its output replaced by zero). Its records feed the silencing scan (silencing.ts),
// which asks which layer repairs the failure set.

import { arr, num, obj, oneOf } from '../../util/check';
import { OKABE_ITO } from '../../util/okabe-ito';
import { AuditError } from '../errors';
import { defaultRoute } from '../routes';
import { oneShot, type Probe } from './probe';

export type MlpSilencingSpec = { probe: 'mlp-silencing'; layers: number[] };

const bad = (msg: string) => new AuditError('bad-input', msg);

export const silencingLayers = (layers: number[]): MlpSilencingSpec => ({ probe: 'mlp-silencing', layers });
export const silencingAllLayers = (numLayers: number): MlpSilencingSpec => silencingLayers(Array.from({ length: numLayers }, (_, i) => i));

export const mlpSilencingProbe: Probe<MlpSilencingSpec> = {
  name: 'mlp-silencing',
  label: 'MLP silencing',
  colour: OKABE_ITO.reddishPurple,
  dash: '1,2',
  role: 'intervention',
  schema: obj({ probe: oneOf('mlp-silencing'), layers: arr(num({ int: true, min: 0 })) }),
  validate(spec, numLayers) {
    if (!Array.isArray(spec.layers) || spec.layers.length === 0) throw bad('mlp-silencing layers must be a non-empty list');
    for (const l of spec.layers) if (!Number.isInteger(l) || l < 0 || l >= numLayers) throw bad(`mlp-silencing layer ${l} is outside 0..${numLayers - 1}`);
    if (new Set(spec.layers).size !== spec.layers.length) throw bad('mlp-silencing layers must be distinct');
  },
  budget: (spec) => spec.layers.length,
  maxAttempts: (spec) => spec.layers.length,
  roundSize: (spec) => spec.layers.length,
  sawGold: false,
  curve: 'unbiased',
  silenced: (spec) => spec.layers,
  fromChoice: (_o, L) => silencingAllLayers(L),
  start: (spec, _q, ctx) => oneShot(spec.layers.map((l) => ({ route: defaultRoute(ctx.numLayers), silence: [l] }))),
  presets: [
    {
      id: 'silencing-scan',
      label: 'MLP-silencing scan (every layer)',
      short: 'MLP-silencing scan',
      description:
        'Silence one MLP block at a time on every question. Needs a reachability probe in the same run: its failure set (reachable, not realized) is split in two halves, one identifies the layer, the other measures its repair rate.',
      spec: silencingAllLayers,
    },
  ],
  describe: (spec) => `MLP silencing (${spec.layers.length} layers)`,
};

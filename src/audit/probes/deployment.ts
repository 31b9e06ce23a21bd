// The deployment probe: the model as deployed, one uncharged attempt on the default route under the
// condition's decoding. It decides `realized`; every other probe's record joins it by question.

import { OKABE_ITO } from '../../util/okabe-ito';
import { obj, oneOf } from '../../util/check';
import { defaultRoute } from '../routes';
import { oneShot, type Probe } from './probe';

export type DeploymentSpec = { probe: 'deployment' };

export const deploymentProbe: Probe<DeploymentSpec> = {
  name: 'deployment',
  label: 'deployment',
  colour: OKABE_ITO.black,
  dash: '2,3',
  role: 'deployment',
  schema: obj({ probe: oneOf('deployment') }),
  validate: () => {},
  budget: () => 0,
  maxAttempts: () => 1,
  roundSize: () => 1,
  sawGold: false,
  curve: 'unbiased',
  start: (_spec, _q, ctx) => oneShot([{ route: defaultRoute(ctx.numLayers), silence: [] }]),
  describe: () => 'deployment',
};

// Colours of meanings the probes do not own (a probe's colour and dash are the registry's:
// styleOf). Okabe–Ito colours, distinguishable under the common colour-vision deficiencies; figures
// never rely on colour alone: lines also differ by dash and carry direct labels.

import { OKABE_ITO } from '../../util/okabe-ito';

export { OKABE_ITO };

export const EFFECT_COLOR = { repaired: OKABE_ITO.bluishGreen, broken: OKABE_ITO.vermillion } as const;

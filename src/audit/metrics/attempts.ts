// Attempts made: a probe's budget, fewer where its space or tree held fewer distinct attempts.

import { mean } from '../stats';
import type { Metric } from './metric';

export const MEAN_ATTEMPTS: Metric = {
  id: 'mean_attempts',
  term: 'attempts made',
  label: () => 'attempts made (mean)',
  definition: 'Mean attempts a probe really made per question (at most its budget B) (metrics/attempts.ts).',
  compute: (x) => ({ value: mean(x.records.map((r) => r.attempts.length)) }),
  aside: 'attempts',
  show: 'mean',
  keys: { report: 'attempts', cli: 'attempts_made' },
};

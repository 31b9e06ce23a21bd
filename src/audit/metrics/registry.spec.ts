// The registry is the one list of per-probe metrics: summarize, the definitions and the study's
// setting report all carry each entry, by its id or report key.

import { describe, expect, it } from 'vitest';
import { DEFINITIONS } from '../definitions';
import { summarize } from '../summary';
import { gradedRecord } from '../testing/graded-records';
import { METRICS, metricValue, reportKey, shareValue } from './registry';
import { GOLD_MINUS_DECOY, REACHABLE } from './reach';

// q1 realized and reached at attempt 2; q2 reached at attempt 1 only; q3 never reached
const records = [
  gradedRecord('q1', 'deployment', [true]),
  gradedRecord('q2', 'deployment', [false]),
  gradedRecord('q3', 'deployment', [false]),
  gradedRecord('q1', 'random-routes', [false, true, true, true]),
  gradedRecord('q2', 'random-routes', [true, false, false, false]),
  gradedRecord('q3', 'random-routes', [false, false, false, false]),
];

describe('metric registry', () => {
  it('names each metric once, in every output it reaches', () => {
    for (const key of [(m: (typeof METRICS)[number]) => m.id, reportKey, (m: (typeof METRICS)[number]) => m.term]) expect(new Set(METRICS.map(key)).size).toBe(METRICS.length);
    expect(METRICS.filter((m) => m.aside !== undefined).length).toBeLessThanOrEqual(1); // one bracket per cell
    for (const m of METRICS) expect(DEFINITIONS.filter((d) => d.term === m.term).map((d) => d.definition)).toEqual([m.definition]);
  });

  it('puts every metric in the probe summary under its id, as the entry computes it', () => {
    const [p] = summarize(records).probes;
    for (const m of METRICS) expect(p, m.id).toHaveProperty(m.id);
    expect(METRICS.map((m) => [m.id, metricValue(p, m)]).filter(([, v]) => typeof v === 'number')).toEqual([
      ['reachable', 2 / 3],
      ['reachable_decoy', 0],
      ['cover', 1 / 3], // q1: 3 of 4 right
      ['ceiling', 2 / 3],
      ['ceiling_decoy', 0],
      ['mean_attempts', 4],
    ]);
    expect(p.counts).toMatchObject({ reachable: 2, cover: 1, ceiling: 2, realized: 1, reachable_decoy: 0, ceiling_decoy: 0 });
  });
});

describe('shareValue', () => {
  it('reads a share metric as a number, and what is no number (a paired delta, a missing decoy share) as null', () => {
    expect(shareValue({ reachable: 0.25 }, REACHABLE)).toBe(0.25);
    expect(shareValue({ reachable: null }, REACHABLE)).toBeNull();
    expect(shareValue({ gold_minus_decoy: { delta: 0.1 } }, GOLD_MINUS_DECOY)).toBeNull();
  });
});

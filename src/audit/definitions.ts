// The definitions of the numbers a study report shows, in words, exported with every report so a
// reader can check each number against its definition. Each names the function that computes it;
// the per-probe metrics' come from their registry entries (metrics/registry.ts).

import { MIN_GAIN, RETAINED_GAIN_BOOTSTRAP } from './stats';
import { METRICS } from './metrics/registry';
import { ALPHA, FLOOR, MARGIN, MIN_HELD_OUT_FAILURES, PAPER_REPAIR_RANGE } from './verdict';

export interface Definition {
  term: string;
  definition: string;
}

const pc = (x: number) => `${Math.round(100 * x)}%`;

export const DEFINITIONS: readonly Definition[] = [
  { term: 'realized', definition: 'Share of questions whose deployment attempt (default route, no silencing, the condition\'s decoding) is correct (summary.ts summarize).' },
  ...METRICS.map((m): Definition => ({ term: m.term, definition: m.definition })),
  { term: 'decoy', definition: 'The same rates against a fixed wrong answer of the gold\'s kind: how often a probe reaches an answer it should not (decoy.ts).' },
  {
    term: 'route spaces',
    definition:
      'The routes a probe may draw from. blocks: skip or repeat one contiguous block of 1–4 layers, no reordering, a layer at most twice, the length within limits. neighborhood: the same length as the model; position p may run any layer within ±radius of p, at most a set number of positions changed. cola: CoLa\'s released search moves (skip or repeat a block at the root, one position deeper) with its length limits (routes.ts, probes/cola-mcts.ts).',
  },
  { term: 'in-sample and held-out', definition: 'In-sample: counted over the whole failure set (or every realized question), the same questions the layer was chosen on, so the best layer looks better than it is. Held-out: counted only over the half the layer was not chosen on; the repair rate and the collateral the verdicts state are held-out (silencing.ts scanFromRecords).' },
  { term: 'matched attempts', definition: 'Two probes compared question by question on the attempts both made (compare.ts compareProbes).' },
  { term: 'Δ and its 95% CI', definition: 'Paired difference of two binary outcomes over the same questions, with Newcombe\'s hybrid score interval (method 10) (stats.ts pairedDifference).' },
  { term: 'McNemar p', definition: 'Two-sided exact binomial test on the discordant pairs (stats.ts mcnemar); printed "< 0.001" below 0.001 (stats.ts formatP).' },
  { term: 'Holm-adjusted p', definition: 'Holm\'s step-down adjustment over every McNemar test the report makes (stats.ts holm, verdict.ts reportTests).' },
  {
    term: 'F1 outcome',
    definition:
      `Per comparison of random − MCTS, led by each search against its own depth-matched walks (the uniform routes beside it): "no reach" when either side is indistinguishable from producing many answers (see gold − decoy); "uninformative" when both rates are ≤ ${pc(FLOOR)} or ≥ ${pc(1 - FLOOR)}; "random higher" / "MCTS higher" when the 95% interval excludes 0 and the Holm-adjusted p < ${ALPHA}; ` +
      `"random not worse" when the interval's lower end is above −${Math.round(100 * MARGIN)} points; else "inconclusive". A setting supports random ≥ MCTS when every comparison there is "random higher" or "random not worse" (verdict.ts).`,
  },
  {
    term: 'retained gain',
    definition:
      `(selector − realized) / (ceiling − realized) over the same questions (stats.ts retainedGain): of the questions the probe reaches that deployment misses, the share an answer-blind selector keeps, net of the realized questions it loses; at most 100%. Negative when the selector answers fewer questions correctly than deployment, said in words as the questions it loses (stats.ts retainedGainNote); ` +
      `none when the probe reaches no question deployment misses, and not defined when those are under ${pc(MIN_GAIN)} of the questions (a denominator that near zero makes any loss an enormous percentage). Interval: paired bootstrap over questions, ${RETAINED_GAIN_BOOTSTRAP.resamples} resamples, seed ${RETAINED_GAIN_BOOTSTRAP.seed}, 2.5th and 97.5th percentiles of the resamples whose gain is at least ${pc(MIN_GAIN)} (stats.ts retainedGainEstimate).`,
  },
  { term: 'failure set', definition: 'Questions reachable under the scan\'s probe but not realized (silencing.ts failureSet).' },
  {
    term: 'repair rate',
    definition: `The layer is identified on one half of the failure set (split by the split seed); its rate is the share of the other half it repairs, with a 95% Wilson interval. Stated only with at least ${MIN_HELD_OUT_FAILURES} held-out failures (silencing.ts scanFromRecords, verdict.ts).`,
  },
  { term: 'collateral', definition: 'Held-out realized questions that silencing the identified layer makes wrong (silencing.ts).' },
  { term: 'F3 distinguishable', definition: `A deployed or ceiling Δ is distinguishable from zero when its 95% interval excludes 0 and its Holm-adjusted McNemar p < ${ALPHA} (verdict.ts).` },
  {
    term: 'ceiling Δ beyond the decoy',
    definition:
      `Per question, the ceiling\'s change (trained − base) minus the decoy ceiling\'s change; its mean with a paired bootstrap 95% interval (${RETAINED_GAIN_BOOTSTRAP.resamples} resamples, seed ${RETAINED_GAIN_BOOTSTRAP.seed}; compare.ts ceiling_beyond_decoy). ` +
      'A distinguishable ceiling change counts as a change of reach only when this interval excludes 0 in the same direction (verdict.ts ceilingChange).',
  },
  {
    term: 'opening',
    definition: `Two sentences computed from the verdicts: what the study shows (reach against the decoy, F1\'s guidance comparisons, F3\'s deployed Δ) and where it cuts against the paper (route reach not above decoy reach; a search beating its walks; a repair rate below the paper\'s ${PAPER_REPAIR_RANGE} or smaller than its collateral share; training that does not raise the deployed score, or a ceiling that rises) (verdict.ts).`,
  },
];

/** A definition without its references to the code (`(summary.ts summarize)`, `; compare.ts …`):
 *  what a screen shows beside the number. */
export function plainDefinition(d: Definition): string {
  return d.definition.replace(/\s*\([\w/-]+\.ts\b[^()]*\)/g, '').replace(/;\s*[\w/-]+\.ts\b[^()]*(?=\))/g, '');
}

/** The definition of `term`, as a screen shows it; throws naming the term when there is none. */
export function definitionOf(term: string): string {
  const d = DEFINITIONS.find((x) => x.term === term);
  if (!d) throw new Error(`no definition of ${JSON.stringify(term)} in src/audit/definitions.ts`);
  return plainDefinition(d);
}

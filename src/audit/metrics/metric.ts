// One number a per-probe summary reports (docs/ARCHITECTURE.md "Metrics"): what it is called, what
// it means in words, how it is computed from the probe's records, its interval and how screens show
// it. The summary, the study report, the audit CLI, Results, the study tables, the definitions and
// the CSV exports iterate over the registry (registry.ts METRICS); none names a metric's field.

import type { QuestionRecord } from '../types';

/** What a metric is computed from: one probe's records under one condition, and deployment's. */
export interface MetricInput {
  /** The probe's records, one per question. */
  records: readonly QuestionRecord[];
  /** Those of them whose question has a deployment record (the questions of realized and ceiling). */
  joined: readonly QuestionRecord[];
  /** Deployment's record per doc_id. */
  deployment: ReadonlyMap<string, QuestionRecord>;
}

/** An estimate with its interval: a value over `n` questions, null when none counts. */
export interface Estimate {
  value: number | null;
  ci: { lo: number; hi: number } | null;
  n: number;
}

/** How screens print a value: `share` (k of n with a Wilson interval; null without decoys),
 *  `paired` (a PairedDelta in points), `mean` (a plain number), `estimate` (an Estimate). */
export type MetricShow = 'share' | 'paired' | 'mean' | 'estimate';

/** A metric's value in the summary, and for shares the count k behind it (null where the value is). */
export interface MetricResult {
  value: unknown;
  count?: number | null;
}

export interface Metric {
  /** Its field in ProbeSummary (and, unless `keys` says otherwise, in the study and CLI outputs). */
  id: string;
  /** As definitions and screens name it ("reachable@B"). */
  term: string;
  /** The term at a probe's budget, as a table row or column says it ("reachable@16"). */
  label(budget: number): string;
  /** What it means, naming the function that computes it. */
  definition: string;
  compute(input: MetricInput): MetricResult;
  show: MetricShow;
  /** A share's n: every record of the probe, or the joined ones. */
  over?: 'records' | 'joined';
  /** Its column in the study's settings table, after the probe's label ("" for the probe's own
   *  column, " (decoy)", …); absent: not a column there. */
  column?: string;
  /** Shown in brackets in the probe's own column of the study's settings table instead. */
  aside?: string;
  /** The key the study's setting report and the audit CLI's headline have always used for it. */
  keys?: { report?: string; cli?: string };
}

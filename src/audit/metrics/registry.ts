// Every per-probe metric, in the order tables, reports and the CLI list them. A new metric is one
// file of this folder and one line here (docs/ARCHITECTURE.md "Metrics").

import { MEAN_ATTEMPTS } from './attempts';
import { COVER } from './cover';
import { FIRST_SUCCESS_MEDIAN } from './first-success';
import type { ProbeSummary } from '../types';
import type { Metric, MetricInput, MetricResult } from './metric';
import { CEILING, CEILING_DECOY, GOLD_MINUS_DECOY, REACHABLE, REACHABLE_DECOY } from './reach';

export const METRICS: readonly Metric[] = [
  REACHABLE,
  REACHABLE_DECOY,
  GOLD_MINUS_DECOY,
  COVER,
  CEILING,
  CEILING_DECOY,
  MEAN_ATTEMPTS,
  FIRST_SUCCESS_MEDIAN,
];

/** Adds a metric of a test's own to METRICS; returns its removal. Lists other modules derive when
 *  loaded (Results' rate rows) see it when it is registered before they load. Tests only. */
export function registerMetric(metric: Metric): () => void {
  if (METRICS.some((m) => m.id === metric.id)) throw new Error(`a metric "${metric.id}" is registered already`);
  (METRICS as Metric[]).push(metric);
  return () => void (METRICS as Metric[]).splice(METRICS.indexOf(metric), 1);
}

/** Each metric's result for one probe's records, by metric id. */
export function computeMetrics(input: MetricInput): Map<string, MetricResult> {
  return new Map(METRICS.map((m) => [m.id, m.compute(input)]));
}

/** A metric's value in a summary (the field named by its id). */
export const metricValue = (summary: object, m: Metric): unknown => (summary as Record<string, unknown>)[m.id];

/** A share metric's value in a summary (a number in [0, 1]); null where it is none (no decoys). */
export const shareValue = (summary: object, m: Metric): number | null => {
  const v = metricValue(summary, m);
  return typeof v === 'number' ? v : null;
};

/** The count k behind a share metric in a summary; null where the share is (a decoy share without
 *  decoys) or the metric is no share. */
export const metricCount = (summary: Pick<ProbeSummary, 'counts'>, m: Metric): number | null => summary.counts[m.id] ?? null;

/** The key a metric has in the study's setting report and in the audit CLI's headline. */
export const reportKey = (m: Metric) => m.keys?.report ?? m.id;
export const cliKey = (m: Metric) => m.keys?.cli ?? m.id;

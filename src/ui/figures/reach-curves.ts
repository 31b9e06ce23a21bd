// Reachability@k for random routes, MCTS and sampling on one axis; realized as a rule; answer-blind
// selectors as labelled points at the budget they chose from.

import * as Plot from '@observablehq/plot';
import type { CurvePoint, SelectorPoint } from '../lib/analysis';
import { OKABE_ITO, PROBE_COLOR, PROBE_DASH, PROBE_LABEL } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

export interface ReachCurvesData {
  curves: CurvePoint[];
  selectors: SelectorPoint[];
  /** Realized rate of the deployment, or null when unknown. */
  realized: number | null;
}

const SELECTOR_SYMBOLS = ['triangle', 'square', 'diamond', 'star', 'cross'];
/** Minimum vertical distance between labels, in data units of the [0, 1] axis. */
const LABEL_GAP = 0.06;

/** Label heights pushed apart (top down) so labels at the same x never overlap; labels that would
 *  fall below `floor` (the axis) move back up, still `gap` apart. */
export function spreadLabels(ys: readonly number[], gap = LABEL_GAP, floor = 0): number[] {
  const order = ys.map((y, i) => [y, i] as const).sort((a, b) => b[0] - a[0]);
  const placed: number[] = [];
  let prev = Infinity;
  for (const [y] of order) placed.push((prev = Math.min(y, prev - gap)));
  for (let j = placed.length - 1; j >= 0; j--) placed[j] = Math.max(placed[j], j === placed.length - 1 ? floor : placed[j + 1] + gap);
  const out = new Array<number>(ys.length);
  order.forEach(([, i], j) => (out[i] = placed[j]));
  return out;
}

/** Whole-number budgets to tick on the log axis: the powers of two up to maxK, and maxK itself. */
export function budgetTicks(maxK: number): number[] {
  const ticks: number[] = [];
  for (let k = 1; k <= maxK; k *= 2) ticks.push(k);
  // maxK too, unless it crowds the last power of two (within a factor 1.25 on the log axis)
  if (maxK >= 1 && ticks[ticks.length - 1] * 1.25 <= maxK) ticks.push(Math.floor(maxK));
  return ticks;
}

export function reachCurvesSpec(data: ReachCurvesData, style: FigureStyle): FigureSpec {
  const probes = [...new Set(data.curves.map((c) => c.probe))];
  const maxK = Math.max(1, ...data.curves.map((c) => c.k), ...data.selectors.map((s) => s.k));
  const selectorNames = [...new Set(data.selectors.map((s) => s.selector))].sort();
  const marks: Plot.Markish[] = [Plot.ruleY([0])];
  if (data.realized !== null) {
    marks.push(
      Plot.ruleY([data.realized], { stroke: OKABE_ITO.black, strokeDasharray: PROBE_DASH.deployment }),
      Plot.text([data.realized], { x: 1, y: (d: number) => d, text: () => 'realized', textAnchor: 'start', dy: -6, fill: OKABE_ITO.black }),
    );
  }
  for (const p of probes) {
    const pts = data.curves.filter((c) => c.probe === p);
    marks.push(Plot.lineY(pts, { x: 'k', y: 'reach', stroke: PROBE_COLOR[p], strokeWidth: style.large ? 3 : 2, strokeDasharray: PROBE_DASH[p] }));
  }
  const ends = probes.map((p) => data.curves.filter((c) => c.probe === p).at(-1)!);
  const endY = spreadLabels(ends.map((e) => e.reach));
  marks.push(
    // Direct labels in the right margin, at each curve's final height, pushed apart.
    Plot.text(ends, { x: () => maxK, y: (_: unknown, i: number) => endY[i], text: (d: CurvePoint) => PROBE_LABEL[d.probe], textAnchor: 'start', dx: 8, fill: (d: CurvePoint) => PROBE_COLOR[d.probe] }),
  );
  if (data.selectors.length) {
    const selY = new Array<number>(data.selectors.length);
    for (const k of new Set(data.selectors.map((s) => s.k))) {
      const idx = data.selectors.flatMap((s, i) => (s.k === k ? [i] : []));
      spreadLabels(idx.map((i) => data.selectors[i].accuracy)).forEach((y, j) => (selY[idx[j]] = y));
    }
    marks.push(
      Plot.dot(data.selectors, {
        x: 'k',
        y: 'accuracy',
        symbol: 'selector',
        stroke: (d: SelectorPoint) => PROBE_COLOR[d.probe],
        fill: 'white',
        strokeWidth: 2,
        r: style.large ? 7 : 5,
      }),
      Plot.text(data.selectors, {
        x: 'k',
        y: (_: unknown, i: number) => selY[i],
        text: (d: SelectorPoint) => `${d.selector} (${PROBE_LABEL[d.probe]})`,
        textAnchor: 'end',
        dx: -10,
        fill: (d: SelectorPoint) => PROBE_COLOR[d.probe],
      }),
    );
  }
  const names = probes.map((p) => PROBE_LABEL[p]).join(', ');
  return {
    id: 'reachability-at-k',
    title: 'Reachability@k',
    alt: `Share of questions reached within k attempts for ${names || 'no probe'}, k from 1 to ${maxK}` +
      (data.realized !== null ? `; realized rate ${(data.realized * 100).toFixed(1)}% as a dashed rule` : '') +
      (selectorNames.length ? `; answer-blind selectors (${selectorNames.join(', ')}) as points` : '') + '.',
    plot: {
      ...baseOptions(style),
      height: style.large ? 520 : 360,
      marginRight: style.large ? 170 : 120,
      x: { type: 'log', base: 2, domain: [1, maxK], ticks: budgetTicks(maxK), tickFormat: 'd', label: 'budget k (attempts)', grid: true },
      y: { domain: [0, 1], tickFormat: '%', label: 'reachable', grid: true },
      symbol: { domain: selectorNames, range: SELECTOR_SYMBOLS.slice(0, Math.max(1, selectorNames.length)) },
      marks,
    },
  };
}

// Reachability@k for each reach probe of a run on one axis; realized as a rule; selectors as
// labelled points at the budget they chose from (marked when not answer-blind).

import * as Plot from '@observablehq/plot';
import { DEPLOYMENT, styleOf } from '../../audit';
import type { CurvePoint, SelectorRow } from '../lib/analysis';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

export interface ReachCurvesData {
  curves: CurvePoint[];
  selectors: SelectorRow[];
  /** Realized rate of the deployment, or null when unknown. */
  realized: number | null;
}

const SELECTOR_SYMBOLS = ['triangle', 'square', 'diamond', 'star', 'cross'];
/** A white outline behind label text, so the realized rule (or a curve) never strikes through it. */
const HALO = { stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' } as const;
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

/** A selector's label beside its point: "majority", "majority (not blind)". */
function selectorLabel(d: Pick<SelectorRow, 'selector' | 'blind'>): string {
  return `${d.selector}${d.blind ? '' : ' (not blind)'}`;
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
  const keys = [...new Set(data.curves.map((c) => c.key))];
  const maxK = Math.max(1, ...data.curves.map((c) => c.k), ...data.selectors.map((s) => s.budget));
  const selectorNames = [...new Set(data.selectors.map((s) => s.selector))].sort();
  const marks: Plot.Markish[] = [Plot.ruleY([0])];
  if (data.realized !== null) {
    const deployed = styleOf({ probe: DEPLOYMENT });
    marks.push(
      Plot.ruleY([data.realized], { stroke: deployed.colour, strokeDasharray: deployed.dash }),
      Plot.text([data.realized], { x: 1, y: (d: number) => d, text: () => 'realized', textAnchor: 'start', dy: -6, fill: deployed.colour, ...HALO }),
    );
  }
  for (const key of keys) {
    const pts = data.curves.filter((c) => c.key === key);
    const { colour, dash } = styleOf(pts[0].spec);
    marks.push(Plot.lineY(pts, { x: 'k', y: 'reach', stroke: colour, strokeWidth: style.large ? 3 : 2, strokeDasharray: dash }));
  }
  const ends = keys.map((key) => data.curves.filter((c) => c.key === key).at(-1)!);
  const endY = spreadLabels(ends.map((e) => e.reach));
  const colorOf = (d: { spec: CurvePoint['spec'] }) => styleOf(d.spec).colour;
  marks.push(
    // Direct labels in the right margin, at each curve's final height, pushed apart.
    Plot.text(ends, { x: () => maxK, y: (_: unknown, i: number) => endY[i], text: (d: CurvePoint) => d.label, textAnchor: 'start', dx: 8, fill: colorOf }),
  );
  if (data.selectors.length) {
    // short labels (the probe is the point's colour; the full name is its title and in the alt
    // text), spread apart, on the side of their point with room: left of a point in the right half
    // of the log axis, right of one in the left half, so none runs over the reachable axis
    const selY = spreadLabels(data.selectors.map((s) => s.accuracy));
    const leftHalf = (d: SelectorRow) => d.budget <= Math.sqrt(maxK);
    const title = (d: SelectorRow) => `${d.selector} · ${d.probe}${d.blind ? '' : ' · not blind'}: ${(100 * d.accuracy).toFixed(1)}% at budget ${d.budget}`;
    const side = (left: boolean) => data.selectors.map((d, i) => ({ d, y: selY[i] })).filter(({ d }) => leftHalf(d) === left);
    marks.push(
      Plot.dot(data.selectors, { x: 'budget', y: 'accuracy', symbol: 'selector', stroke: colorOf, fill: 'white', strokeWidth: 2, r: style.large ? 7 : 5, title }),
      ...[true, false].map((left) =>
        Plot.text(side(left), { x: ({ d }) => d.budget, y: 'y', text: ({ d }) => selectorLabel(d), textAnchor: left ? 'start' : 'end', dx: left ? 10 : -10, fill: ({ d }) => colorOf(d), ...HALO }),
      ),
    );
  }
  const names = ends.map((e) => e.label).join(', ');
  const notBlind = [...new Set(data.selectors.filter((s) => !s.blind).map((s) => s.probe))];
  return {
    id: 'reachability-at-k',
    title: 'Reachability@k',
    alt: `Share of questions reached within k attempts for ${names || 'no probe'}, k from 1 to ${maxK}` +
      (data.realized !== null ? `; realized rate ${(data.realized * 100).toFixed(1)}% as a dashed rule` : '') +
      (selectorNames.length ? `; selectors (${selectorNames.join(', ')}) as points at the budget they chose from` : '') +
      (notBlind.length ? `; over ${notBlind.join(', ')} they are not answer-blind (they chose among gold-guided attempts)` : '') + '.',
    plot: {
      ...baseOptions(style),
      height: style.large ? 520 : 360,
      // room for the longest direct label (about 0.56 em per character)
      // about 0.6 em a character after the line end's 8 px offset
      marginRight: Math.max(style.large ? 170 : 120, 16 + Math.max(0, ...ends.map((e) => e.label.length)) * (style.large ? 10.8 : 6.8)),
      x: { type: 'log', base: 2, domain: [1, maxK], ticks: budgetTicks(maxK), tickFormat: 'd', label: 'budget k (attempts)', grid: true },
      y: { domain: [0, 1], tickFormat: '%', label: 'reachable', grid: true },
      symbol: { domain: selectorNames, range: SELECTOR_SYMBOLS.slice(0, Math.max(1, selectorNames.length)) },
      marks,
    },
  };
}

// Checkpoint comparison (audit core: compareRecords): the deployed Δ and the ceiling Δ, B − A in
// percentage points, each with its paired 95% interval and McNemar's p, against a zero line.

import * as Plot from '@observablehq/plot';
import type { CheckpointComparison, PairedDifference } from '../../audit';
import { formatP } from '../../audit/stats';
import { OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

interface Delta {
  measure: string;
  d: PairedDifference;
}

const pts = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(100 * x).toFixed(1)}`;

/** "+14.7 pts (95% CI +6.0 to +23.1), McNemar p = 0.002" (p as formatP prints it everywhere, "p < 0.001" below). */
export function deltaText(d: PairedDifference): string {
  const p = formatP(d.mcnemar.exactP);
  return `${pts(d.diff)} pts (95% CI ${pts(d.ci.lo)} to ${pts(d.ci.hi)}), McNemar p ${p.startsWith('<') ? p : `= ${p}`}`;
}

/** "+8.3 pts\n(−2.3 to +18.3)": a Δ and its 95% interval, as the figure labels it. */
const shortDelta = (d: PairedDifference) => deltaText(d).replace(/ \(95% CI (.+?)\).*$/, '\n($1)');

export function checkpointSpec(cmp: CheckpointComparison, labels: { A: string; B: string }, style: FigureStyle): FigureSpec {
  const rows: Delta[] = [
    { measure: 'deployed (realized)', d: cmp.deployed },
    { measure: 'ceiling', d: cmp.ceiling },
  ];
  // a symmetric axis, whole tens of points, wide enough for every interval
  const reach = Math.max(0.1, ...rows.flatMap((r) => [Math.abs(r.d.ci.lo), Math.abs(r.d.ci.hi)]));
  const lim = Math.min(100, Math.ceil((100 * reach) / 10) * 10);
  const font = style.large ? 18 : 12;
  const left = style.large ? 225 : 150;
  return {
    id: 'checkpoint-comparison',
    title: 'Checkpoint comparison: B − A',
    alt: `On ${cmp.n} questions audited in both runs (A = ${labels.A}; B = ${labels.B}): deployed Δ ${deltaText(cmp.deployed)}; ceiling Δ ${deltaText(cmp.ceiling)}.`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 360 : 260,
      marginLeft: left,
      // room right of the axis for a label centred on a Δ near its end
      marginRight: style.large ? 90 : 60,
      marginTop: style.large ? 40 : 30,
      // room under the axis for the run names, up to four wrapped lines
      marginBottom: style.large ? 150 : 110,
      x: { domain: [-lim, lim], label: 'B − A (percentage points)', labelAnchor: 'center', labelOffset: style.large ? 46 : 32, grid: true },
      y: { domain: rows.map((r) => r.measure), label: null },
      marks: [
        Plot.ruleX([0], { stroke: OKABE_ITO.black }),
        Plot.ruleY(rows, { y: 'measure', x1: (r: Delta) => 100 * r.d.ci.lo, x2: (r: Delta) => 100 * r.d.ci.hi, stroke: OKABE_ITO.blue, strokeWidth: style.large ? 4 : 3 }),
        Plot.dot(rows, { y: 'measure', x: (r: Delta) => 100 * r.d.diff, r: style.large ? 8 : 6, fill: OKABE_ITO.vermillion, stroke: OKABE_ITO.black }),
        // the Δ and its interval on two short lines (the McNemar p is in the alt and the table): one long line ran past a phone's width
        Plot.text(rows, { y: 'measure', x: (r: Delta) => 100 * r.d.diff, text: (r: Delta) => shortDelta(r.d), lineAnchor: 'bottom', dy: style.large ? -14 : -10 }),
        // Names once, under the axis label, wrapped to the figure's width (long repo ids do not fit as ticks).
        Plot.text([`A = ${labels.A}\nB = ${labels.B}`], {
          frameAnchor: 'bottom-left',
          lineAnchor: 'top',
          textAnchor: 'start',
          dx: 10 - left,
          dy: style.large ? 62 : 44,
          lineWidth: (baseOptions(style).width! - 20) / font,
        }),
      ],
    },
  };
}

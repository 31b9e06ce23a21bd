// Checkpoint comparison: realized and ceiling of runs A and B side by side, with Wilson 95% CIs.

import * as Plot from '@observablehq/plot';
import type { CheckpointComparison } from '../lib/analysis';
import { OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

const RUN_COLOR = { A: OKABE_ITO.skyBlue, B: OKABE_ITO.vermillion } as const;

type Bar = CheckpointComparison['bars'][number];

export function pairedBarsSpec(cmp: CheckpointComparison, labels: { A: string; B: string }, style: FigureStyle): FigureSpec {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const describe = cmp.bars.map((b) => `${labels[b.run]} ${b.measure} ${pct(b.rate)}`).join('; ');
  return {
    id: 'checkpoint-comparison',
    title: 'Checkpoint comparison',
    alt: `Realized and ceiling rates on ${cmp.shared} shared questions: ${describe || 'no shared questions'}.`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 460 : 320,
      marginTop: style.large ? 56 : 40,
      marginBottom: style.large ? 80 : 56,
      fx: { domain: ['realized', 'ceiling'], label: null },
      x: { domain: ['A', 'B'], label: null, padding: 0.1 },
      y: { domain: [0, 1], tickFormat: '%', label: 'questions', grid: true },
      marks: [
        Plot.barY(cmp.bars, { fx: 'measure', x: 'run', y: 'rate', fill: (d: Bar) => RUN_COLOR[d.run] }),
        Plot.ruleX(cmp.bars, { fx: 'measure', x: 'run', y1: (d: Bar) => d.ci.lo, y2: (d: Bar) => d.ci.hi, stroke: OKABE_ITO.black, strokeWidth: 2 }),
        Plot.text(cmp.bars, { fx: 'measure', x: 'run', y: (d: Bar) => d.ci.hi, text: (d: Bar) => pct(d.rate), dy: -8 }),
        Plot.ruleY([0]),
        // Names once, under the whole figure (long repo ids do not fit as ticks).
        Plot.text([`A = ${labels.A}    B = ${labels.B}`], { facet: 'super', frameAnchor: 'bottom-left', textAnchor: 'start', dy: style.large ? 60 : 42, lineWidth: 80 }),
      ],
    },
  };
}

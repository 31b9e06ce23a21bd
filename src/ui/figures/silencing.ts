// The MLP-silencing scan: per silenced layer, failure-set questions repaired (up) and realized
// questions broken (down), the best block marked.

import * as Plot from '@observablehq/plot';
import type { SilencingLayer, SilencingScan } from '../lib/analysis';
import { EFFECT_COLOR, OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

/** Whole-number ticks (questions are counted) spanning broken (negative) to repaired. */
function countTicks(scan: SilencingScan): number[] {
  const hi = Math.max(1, ...scan.layers.map((l) => l.repaired));
  const lo = Math.max(0, ...scan.layers.map((l) => l.broken));
  const step = Math.max(1, Math.ceil((hi + lo) / 8));
  const ticks: number[] = [];
  for (let t = -Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
  return ticks;
}

export function silencingSpec(scan: SilencingScan, style: FigureStyle): FigureSpec {
  const ticks = countTicks(scan);
  const best = scan.layers.find((l) => l.layer === scan.best);
  const rate = best && scan.nFailure ? ` repairs ${best.repaired}/${scan.nFailure} (${((100 * best.repaired) / scan.nFailure).toFixed(0)}%)` : '';
  return {
    id: 'mlp-silencing-scan',
    title: 'MLP-silencing scan',
    alt:
      `For each of ${scan.layers.length} layers, questions of the failure set (n = ${scan.nFailure}) repaired and realized questions (n = ${scan.nRealized}) broken when that layer's MLP is silenced.` +
      (best ? ` Best block: layer ${best.layer}${rate}, breaking ${best.broken}.` : ' No layer repairs anything.'),
    plot: {
      ...baseOptions(style),
      height: style.large ? 460 : 320,
      x: { domain: scan.layers.map((l) => l.layer), label: 'silenced MLP (layer)', padding: 0.15 },
      // an explicit domain: with no repair and no break the data alone spans [0, 0] and bars fill the plot
      y: { domain: [ticks[0], Math.max(1, ...scan.layers.map((l) => l.repaired))], label: '↑ repaired · broken ↓', grid: true, ticks, tickFormat: (d: number) => String(Math.abs(d)) },
      marks: [
        Plot.barY(scan.layers, { x: 'layer', y: 'repaired', fill: EFFECT_COLOR.repaired }),
        Plot.barY(scan.layers, { x: 'layer', y: (d: SilencingLayer) => -d.broken, fill: EFFECT_COLOR.broken }),
        Plot.ruleY([0], { stroke: OKABE_ITO.black }),
        ...(best
          ? [
              Plot.barY([best], { x: 'layer', y: 'repaired', fill: 'none', stroke: OKABE_ITO.black, strokeWidth: 2 }),
              Plot.text([best], { x: 'layer', y: 'repaired', text: () => `best${rate}`, dy: -10, fill: OKABE_ITO.black, fontWeight: 'bold' }),
            ]
          : []),
      ],
    },
  };
}

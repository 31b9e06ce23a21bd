// Which layer runs at which route position, counted over the routes that reached the answer.
// The default route (layer p at position p) is outlined for reference: black on a white ring, so
// the outline shows on dark (many) and light (few) cells alike.

import * as Plot from '@observablehq/plot';
import type { UsageCell } from '../lib/analysis';
import { OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

export function layerUsageSpec(cells: UsageCell[], numLayers: number, style: FigureStyle): FigureSpec {
  const maxPos = Math.max(numLayers - 1, ...cells.map((c) => c.position));
  const maxCount = Math.max(1, ...cells.map((c) => c.count));
  const positions = Array.from({ length: maxPos + 1 }, (_, i) => i);
  const layers = Array.from({ length: numLayers }, (_, i) => i);
  const diagonal = layers.map((l) => ({ position: l, layer: l }));
  const colour = { type: 'quantize' as const, n: Math.min(6, maxCount), domain: [0, maxCount], scheme: 'viridis' as const, label: 'correct routes' };
  return {
    id: 'layer-usage',
    title: 'Layer usage of routes that reached the answer',
    alt: `Counts of layer (0–${numLayers - 1}) by route position (0–${maxPos}) over ${cells.length ? 'correct route attempts' : 'no correct route attempts'}; the default route is outlined.`,
    legend: { color: colour, width: style.large ? 420 : 300, style: { fontSize: style.large ? '16px' : '11px', background: 'white' } },
    plot: {
      ...baseOptions(style),
      height: Math.max(200, numLayers * (style.large ? 28 : 18) + 60),
      padding: 0.05,
      x: { domain: positions, label: 'route position' },
      y: { domain: layers, label: 'layer', reverse: true },
      color: colour,
      marks: [
        Plot.cell(cells, { x: 'position', y: 'layer', fill: 'count' }),
        Plot.cell(diagonal, { x: 'position', y: 'layer', fill: 'none', stroke: 'white', strokeWidth: 4 }),
        Plot.cell(diagonal, { x: 'position', y: 'layer', fill: 'none', stroke: OKABE_ITO.black, strokeWidth: 1.5 }),
      ],
    },
  };
}

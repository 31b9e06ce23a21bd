// One route drawn as its path through the layers: route position across, layer down, the default
// route (layer p at position p) dashed beside it for reference. Used by the guided walk.

import * as Plot from '@observablehq/plot';
import { OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

export function routePathSpec(route: readonly number[], numLayers: number, style: FigureStyle): FigureSpec {
  const deflt = Array.from({ length: numLayers }, (_, layer) => ({ position: layer, layer, path: 'default route' }));
  const taken = route.map((layer, position) => ({ position, layer, path: 'this route' }));
  const positions = Array.from({ length: Math.max(route.length, numLayers) }, (_, i) => i);
  const same = route.length === numLayers && route.every((l, i) => l === i);
  return {
    id: 'route-path',
    title: same ? 'The default route through the layers' : 'This route through the layers, beside the default route',
    alt: same
      ? `The default route: layers 0 to ${numLayers - 1} in order, one per position.`
      : `The route runs layers ${route.join(', ')} at positions 0 to ${route.length - 1}; the default route runs layers 0 to ${numLayers - 1} in order (dashed).`,
    plot: {
      ...baseOptions(style),
      height: Math.max(180, numLayers * (style.large ? 30 : 22) + 60),
      // past 16 positions every other one is labelled: 28 two-digit labels do not fit a phone
      x: { domain: positions, label: 'route position', type: 'point', padding: 0.5, ...(positions.length > 16 ? { ticks: positions.filter((p) => p % 2 === 0) } : {}) },
      y: { domain: Array.from({ length: numLayers }, (_, i) => i), label: 'layer', reverse: true, type: 'point', padding: 0.5 },
      marks: [
        Plot.line(deflt, { x: 'position', y: 'layer', stroke: '#777', strokeDasharray: '4 4', strokeWidth: 1.5 }),
        ...(same ? [] : [Plot.line(taken, { x: 'position', y: 'layer', stroke: OKABE_ITO.blue, strokeWidth: 3 })]),
        Plot.dot(same ? deflt : taken, { x: 'position', y: 'layer', r: style.large ? 7 : 5, fill: same ? '#777' : OKABE_ITO.blue, stroke: 'white' }),
        Plot.text(same ? deflt : taken, { x: 'position', y: 'layer', text: (d: { layer: number }) => String(d.layer), dy: style.large ? -14 : -11, fill: 'black', stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }),
      ],
    },
  };
}

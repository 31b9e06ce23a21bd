// The MLP-silencing scan (audit core: scanFromRecords). Bars: per silenced layer, failure-set
// questions repaired (up) and realized questions broken (down) over the whole failure set, which is
// in-sample. The layer identified on one half of the failure set is outlined and labelled with its
// repair rate on the other, held-out half: the out-of-sample number.

import * as Plot from '@observablehq/plot';
import type { LayerRepair, SilencingScanResult } from '../../audit';
import { EFFECT_COLOR, OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

/** Whole-number ticks (questions are counted) spanning broken (negative) to repaired. */
function countTicks(layers: readonly Pick<LayerRepair, 'repaired' | 'collateral'>[]): number[] {
  const hi = Math.max(1, ...layers.map((l) => l.repaired));
  const lo = Math.max(0, ...layers.map((l) => l.collateral));
  const step = Math.max(1, Math.ceil((hi + lo) / 8));
  const ticks: number[] = [];
  for (let t = -Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
  return ticks;
}

/** "layer 4 repairs 3/5 held-out failures (60%, 95% CI 23–88%), breaks 1/7 realized". */
export function heldOutSummary(scan: SilencingScanResult): string {
  const { identification: id, evaluation: ev } = scan;
  if (id.layer === null) return `no layer repairs any of the ${id.doc_ids.length} identification failures`;
  return `layer ${id.layer} repairs ${ev.repaired}/${ev.failures} held-out failures (${pct(ev.rate)}, 95% CI ${pct(ev.ci.lo)}–${pct(ev.ci.hi)}), breaks ${ev.collateral}/${ev.realized} realized`;
}

type LayerBars = Pick<LayerRepair, 'layer' | 'repaired' | 'collateral'>;

/** The per-layer bars every silencing scan is drawn with (the walk, Results, the study report):
 *  failures repaired up, realized questions broken down, counts on the axis, the identified layer
 *  outlined (and labelled with `note` when given). One builder, so no figure turns them over. */
export function layerBars(layers: readonly LayerBars[], identified: number | null, note: string | null): Pick<Plot.PlotOptions, 'x' | 'y' | 'marks'> {
  const ticks = countTicks(layers);
  const picked = layers.find((l) => l.layer === identified);
  return {
    x: { domain: layers.map((l) => l.layer), label: 'silenced MLP (layer)', padding: 0.15 },
    // an explicit domain: with no repair and no break the data alone spans [0, 0] and bars fill the plot
    y: { domain: [ticks[0], Math.max(1, ...layers.map((l) => l.repaired))], label: '↑ repaired · broken ↓ (in-sample)', grid: true, ticks, tickFormat: (d: number) => String(Math.abs(d)) },
    marks: [
      Plot.barY(layers, { x: 'layer', y: 'repaired', fill: EFFECT_COLOR.repaired }),
      Plot.barY(layers, { x: 'layer', y: (d: LayerBars) => -d.collateral, fill: EFFECT_COLOR.broken }),
      Plot.ruleY([0], { stroke: OKABE_ITO.black }),
      ...(picked
        ? [
            Plot.barY([picked], { x: 'layer', y: 'repaired', fill: 'none', stroke: OKABE_ITO.black, strokeWidth: 2 }),
            ...(note ? [Plot.text([picked], { x: 'layer', y: 'repaired', text: () => note, dy: -10, fill: OKABE_ITO.black, fontWeight: 'bold' })] : []),
          ]
        : []),
    ],
  };
}

export function silencingSpec(scan: SilencingScanResult, style: FigureStyle): FigureSpec {
  const layers = scan.in_sample.layers;
  const held = `held out: ${scan.evaluation.repaired}/${scan.evaluation.failures} (${pct(scan.evaluation.rate)})`;
  return {
    id: 'mlp-silencing-scan',
    title: 'MLP-silencing scan (per-layer bars in-sample)',
    alt:
      `In-sample: for each of ${layers.length} layers, questions of the failure set (n = ${scan.failure_set.length}) repaired and realized questions (n = ${scan.realized_set.length}) broken when that layer's MLP is silenced. ` +
      `Out of sample: identified on ${scan.identification.doc_ids.length} failures, ${heldOutSummary(scan)}.`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 460 : 320,
      // room above the plot for the identified layer's label (it ran into the axis label)
      marginTop: style.large ? 44 : 34,
      ...layerBars(layers, scan.identification.layer, `identified · ${held}`),
    },
  };
}

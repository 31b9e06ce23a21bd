// The MLP-silencing scan (audit core: scanFromRecords). Bars: per silenced layer, the share of the
// failure set repaired (up) and the share of realized questions broken (down), in-sample. Shares,
// not counts: a failure set of 40 beside 300 realized questions would drown 7 repairs next to 152
// breaks on one count axis. The layer identified on one half of the failure set is outlined and labelled with its
// repair rate on the other, held-out half: the out-of-sample number.

import * as Plot from '@observablehq/plot';
import type { LayerRepair, SilencingScanResult } from '../../audit';
import { EFFECT_COLOR, OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

const share = (k: number, n: number) => (n > 0 ? k / n : 0);
const repairedShare = (l: LayerBars) => share(l.repaired, l.failures);
const brokenShare = (l: LayerBars) => share(l.collateral, l.realized);

/** The y extent: the largest broken share down, the largest repaired share up, rounded out to 10%
 *  (at least 10% each way, so bars of nothing never fill the plot). */
function shareDomain(layers: readonly LayerBars[]): [number, number] {
  const up = (x: number) => Math.max(0.1, Math.ceil(10 * x - 1e-9) / 10);
  return [-up(Math.max(0, ...layers.map(brokenShare))), up(Math.max(0, ...layers.map(repairedShare)))];
}

/** "layer 4 repairs 3/5 held-out failures (60%, 95% CI 23–88%), breaks 1/7 realized". */
export function heldOutSummary(scan: SilencingScanResult): string {
  const { identification: id, evaluation: ev } = scan;
  if (id.layer === null) return `no layer repairs any of the ${id.doc_ids.length} identification failures`;
  return `layer ${id.layer} repairs ${ev.repaired}/${ev.failures} held-out failures (${pct(ev.rate)}, 95% CI ${pct(ev.ci.lo)}–${pct(ev.ci.hi)}), breaks ${ev.collateral}/${ev.realized} realized`;
}

type LayerBars = Pick<LayerRepair, 'layer' | 'repaired' | 'failures' | 'collateral' | 'realized'>;

/** The per-layer bars every silencing scan is drawn with (the walk, Results, the study report):
 *  the share of failures repaired up, of realized questions broken down, on one % axis; the
 *  identified layer outlined (and labelled with `note` when given). One builder, so no figure turns
 *  them over. */
export function layerBars(layers: readonly LayerBars[], identified: number | null, note: string | null): Pick<Plot.PlotOptions, 'x' | 'y' | 'marks'> {
  const picked = layers.find((l) => l.layer === identified);
  const title = (l: LayerBars) => `layer ${l.layer}: repairs ${l.repaired} of ${l.failures} failures, breaks ${l.collateral} of ${l.realized} realized (in-sample)`;
  return {
    x: { domain: layers.map((l) => l.layer), label: 'silenced MLP (layer)', padding: 0.15 },
    // an explicit domain: with no repair and no break the data alone spans [0, 0] and bars fill the plot
    y: { domain: shareDomain(layers), label: '↑ % repaired · % broken ↓ (in-sample)', grid: true, tickFormat: (d: number) => `${Math.round(Math.abs(100 * d))}%` },
    marks: [
      Plot.barY(layers, { x: 'layer', y: repairedShare, fill: EFFECT_COLOR.repaired, title }),
      Plot.barY(layers, { x: 'layer', y: (d: LayerBars) => -brokenShare(d), fill: EFFECT_COLOR.broken, title }),
      Plot.ruleY([0], { stroke: OKABE_ITO.black }),
      ...(picked
        ? [
            Plot.barY([picked], { x: 'layer', y: repairedShare, fill: 'none', stroke: OKABE_ITO.black, strokeWidth: 2 }),
            // the note above the frame, from its left edge: beside a bar near an edge it was cut off
            ...(note ? [Plot.text([note], { frameAnchor: 'top-left', lineAnchor: 'bottom', dy: -6, textAnchor: 'start', fill: OKABE_ITO.black, fontWeight: 'bold', lineHeight: 1.15 })] : []),
          ]
        : []),
    ],
  };
}

export function silencingSpec(scan: SilencingScanResult, style: FigureStyle): FigureSpec {
  const layers = scan.in_sample.layers;
  const held = `held out: repairs ${scan.evaluation.repaired}/${scan.evaluation.failures} (${pct(scan.evaluation.rate)}), breaks ${scan.evaluation.collateral}/${scan.evaluation.realized}`;
  const note = scan.identification.layer === null ? null : `identified: layer ${scan.identification.layer} (outlined)\n${held}`;
  return {
    id: 'mlp-silencing-scan',
    title: 'MLP-silencing scan (per-layer bars in-sample)',
    alt:
      `In-sample: for each of ${layers.length} layers, questions of the failure set (n = ${scan.failure_set.length}) repaired and realized questions (n = ${scan.realized_set.length}) broken when that layer's MLP is silenced. ` +
      `Out of sample: identified on ${scan.identification.doc_ids.length} failures, ${heldOutSummary(scan)}.`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 460 : 320,
      // room above the plot for the identified layer's two-line note
      marginTop: style.large ? 64 : 44,
      ...layerBars(layers, scan.identification.layer, note),
    },
  };
}

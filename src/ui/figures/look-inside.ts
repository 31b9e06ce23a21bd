// The look inside one attempt (engine/readout.ts): the logit lens — the gold and the emitted
// token's probability after each route position — and each position's direct attribution of its
// attention and MLP to the (gold − emitted) logit difference. Positions are labelled "p:Lℓ"
// (route position p, 1-based, running layer ℓ): a repeated layer appears once per position.
import * as Plot from '@observablehq/plot';
import type { AttemptReadout } from '../../engine/readout';
import { OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';

/** The x label of lens point k (k = 0: the embedding) / of route position p. */
export function positionLabel(position: number, layer: number | null): string {
  return layer === null ? 'embed' : `${position + 1}:L${layer}`;
}

/** Where in the answer a read-out was taken: "At answer token 2, after “-”", or the first token. */
export function readoutPlace(r: Pick<AttemptReadout, 'position' | 'prefix' | 'versus'>): string {
  const whose = r.versus === 'deployed' ? "the deployment's answer" : 'the response';
  if (r.position > 0) return `At answer token ${r.position + 1}, after ${JSON.stringify(r.prefix)} (the first where ${whose} departs from the gold)`;
  return r.versus === 'deployed' ? "At the first answer token (where the deployment's answer departs from the gold)" : 'At the first answer token';
}

/** The name of the token compared with the gold's: the deployment's, or the attempt's own. */
export function emittedName(r: Pick<AttemptReadout, 'versus' | 'emittedToken'>): string {
  return `${r.versus === 'deployed' ? 'deployed' : 'emitted'} ${JSON.stringify(r.emittedToken)}`;
}

interface LensRow {
  at: string;
  token: string;
  prob: number;
  rank: number;
}

export function lensSpec(r: AttemptReadout, style: FigureStyle, caption: string): FigureSpec {
  const domain = r.lens.map((p) => positionLabel(p.position, p.layer));
  const gold = `gold ${JSON.stringify(r.goldToken)}`;
  const emitted = emittedName(r);
  const rows: LensRow[] = r.lens.flatMap((p) => {
    const at = positionLabel(p.position, p.layer);
    return [
      { at, token: gold, prob: p.gold.prob, rank: p.gold.rank },
      ...(r.gold === r.emitted ? [] : [{ at, token: emitted, prob: p.emitted.prob, rank: p.emitted.rank }]),
    ];
  });
  const last = r.lens[r.lens.length - 1];
  return {
    id: 'logit-lens',
    title: `Logit lens: ${caption}`,
    alt: `${readoutPlace(r)}: probability of the gold answer's token (${gold}) and of the token compared with it (${emitted}) after each of ${r.route.length} route positions; at the end the gold token has rank ${last.gold.rank} (p = ${last.gold.prob.toPrecision(2)}), the other rank ${last.emitted.rank}.`,
    plot: {
      ...baseOptions(style),
      // room for the line-end labels (about 0.6 em a character) beside the last position
      marginRight: 16 + Math.ceil(Math.max(gold.length, emitted.length) * (style.large ? 18 : 12) * 0.6),
      height: style.large ? 360 : 260,
      // turned past 5 labels: "embed" and "1:L0" side by side overlap on a phone
      // turned tick labels need room under them for the axis label, and left of the first one
      ...(domain.length > 5 ? { marginBottom: style.large ? 96 : 64, marginLeft: style.large ? 90 : 64 } : {}),
      x: { domain, label: 'after route position (position:layer)', tickRotate: domain.length > 5 ? -45 : 0 },
      y: { domain: [0, 1], label: '↑ probability', grid: true },
      color: { domain: [gold, emitted], range: [OKABE_ITO.bluishGreen, OKABE_ITO.vermillion], legend: false },
      marks: [
        Plot.line(rows.filter((d) => d.token === gold), { x: 'at', y: 'prob', stroke: 'token', strokeWidth: 2 }),
        Plot.line(rows.filter((d) => d.token !== gold), { x: 'at', y: 'prob', stroke: 'token', strokeWidth: 2, strokeDasharray: '6 3' }),
        Plot.dot(rows, { x: 'at', y: 'prob', fill: 'token', r: 3, title: (d: LensRow) => `${d.token} after ${d.at}: p = ${d.prob.toPrecision(3)}, rank ${d.rank}` }),
        Plot.text(rows.filter((d) => d.at === domain[domain.length - 1]), { x: 'at', y: 'prob', text: 'token', fill: 'token', dx: 6, textAnchor: 'start' }),
      ],
    },
  };
}

interface AttributionRow {
  at: string;
  part: 'attention' | 'MLP';
  value: number;
}

export function attributionSpec(r: AttemptReadout, style: FigureStyle, caption: string): FigureSpec {
  const rows: AttributionRow[] = r.attribution.flatMap((a) => {
    const at = positionLabel(a.position, a.layer);
    return [{ at, part: 'attention' as const, value: a.attn }, { at, part: 'MLP' as const, value: a.mlp }];
  });
  const domain = r.attribution.map((a) => positionLabel(a.position, a.layer));
  const worst = r.attribution.reduce((w, a) => (a.mlp < w.mlp ? a : w), r.attribution[0]);
  return {
    id: 'direct-attribution',
    title: `Direct attribution (blue: attention, orange: MLP): ${caption}`,
    alt: `Each route position's attention and MLP contribution to the logit difference gold − emitted (${r.logitDiff.toFixed(2)}); the embedding adds ${r.embed.toFixed(2)}; the MLP that pushes hardest toward the emitted token is at ${positionLabel(worst.position, worst.layer)} (${worst.mlp.toFixed(2)}).`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 360 : 260,
      ...(domain.length > 5 ? { marginBottom: style.large ? 96 : 64, marginLeft: style.large ? 90 : 64 } : {}),
      fx: { domain, label: 'route position (position:layer)', tickRotate: domain.length > 5 ? -45 : 0 },
      x: { domain: ['attention', 'MLP'], axis: null },
      y: { label: `↑ toward gold · toward ${r.versus === 'deployed' ? 'deployed' : 'emitted'} ↓`, grid: true },
      color: { domain: ['attention', 'MLP'], range: [OKABE_ITO.skyBlue, OKABE_ITO.orange] },
      marks: [
        Plot.barY(rows, { fx: 'at', x: 'part', y: 'value', fill: 'part', title: (d: AttributionRow) => `${d.part} at ${d.at}: ${d.value.toFixed(3)}` }),
        Plot.ruleY([0], { stroke: OKABE_ITO.black }),
      ],
    },
  };
}

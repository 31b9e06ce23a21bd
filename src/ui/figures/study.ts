// The findings report's figures (audit/study-report.ts studyReport): F1 random vs structured reachable,
// one dot per (setting, MCTS preset) with the diagonal; F2 held-out repair rate per case with its
// interval, and one case's per-layer scan (in-sample); F3 base → trained slope chart, deployed and
// ceilings.

import * as Plot from '@observablehq/plot';
import { wilson } from '../../audit/stats';
import type { ScanCase, StudyReport } from '../../audit/study-report';
import { caseSentence, studyVerdicts } from '../../audit/verdict';
import { OKABE_ITO } from '../lib/palette';
import { baseOptions, type FigureSpec, type FigureStyle } from './figure';
import { layerBars } from './silencing';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const short = (model: string) => model.replace(/^builtin:/, '');

interface F1Dot {
  setting: string;
  /** The setting's number in the figure's key (labels by number do not overlap as names do). */
  n: number;
  preset: string;
  random: number;
  structured: number;
  /** Wilson 95% intervals of the two rates over the setting's questions. */
  randomCi: { lo: number; hi: number };
  structuredCi: { lo: number; hi: number };
}

export function f1Dots(report: StudyReport): F1Dot[] {
  return report.settings.flatMap((s, i) =>
    Object.entries(s.random_minus_structured).map(([label, d]) => ({
      setting: `${short(s.model)} · ${s.task}`,
      n: i + 1,
      preset: label.endsWith('/blocks') ? 'CoLa MCTS (blocks)' : 'program-selection MCTS (neighborhood)',
      random: d.random_reachable,
      structured: d.structured_reachable,
      randomCi: wilson(Math.round(d.random_reachable * s.questions), s.questions),
      structuredCi: wilson(Math.round(d.structured_reachable * s.questions), s.questions),
    })),
  );
}

export function f1Spec(report: StudyReport, style: FigureStyle): FigureSpec {
  const dots = f1Dots(report);
  const ge = dots.filter((d) => d.random >= d.structured).length;
  // the count the F1 verdict states, so the figure never says another
  const { tally } = studyVerdicts(report).f1;
  const lo = Math.max(0, Math.floor(10 * Math.min(1, ...dots.flatMap((d) => [d.randomCi.lo, d.structuredCi.lo]))) / 10 - 0.1);
  const key = [...new Map(dots.map((d) => [d.n, `${d.n} = ${d.setting}`])).values()].join('\n');
  return {
    id: 'f1-random-vs-structured',
    title: 'F1: random routes vs structured search, reachable at matched attempts',
    alt: `${dots.length} comparisons (${report.f1.settings} settings). By the F1 rule (95% intervals, each search against its depth-matched walks where the run has them) the baseline reaches at least as much as the search in ${tally.support} of ${dots.length} comparisons; the points drawn are the uniform random routes' point estimates, at least the search's in ${ge} of ${dots.length}. Points below the diagonal favour random routes. Bars: Wilson 95% intervals of each rate. Settings are numbered: ${key.replaceAll('\n', '; ')}.`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 600 : 420,
      // large text: room above the frame for the y-axis label, clear of the key at the frame's top
      ...(style.large ? { marginTop: 36 } : {}),
      marginRight: style.large ? 220 : 160,
      x: { domain: [lo, 1], label: 'random routes reachable →', tickFormat: '%', grid: true },
      y: { domain: [lo, 1], label: '↑ MCTS reachable', tickFormat: '%', grid: true },
      color: { domain: ['CoLa MCTS (blocks)', 'program-selection MCTS (neighborhood)'], range: [OKABE_ITO.vermillion, OKABE_ITO.blue] },
      symbol: { domain: ['CoLa MCTS (blocks)', 'program-selection MCTS (neighborhood)'], range: ['circle', 'square'] },
      marks: [
        Plot.line([[lo, lo], [1, 1]], { stroke: OKABE_ITO.grey, strokeDasharray: '4,4' }),
        // error bars: each rate's Wilson interval, across for random routes, up for MCTS
        Plot.ruleY(dots, { y: 'structured', x1: (d: F1Dot) => d.randomCi.lo, x2: (d: F1Dot) => d.randomCi.hi, stroke: 'preset', strokeOpacity: 0.6, strokeWidth: style.large ? 2.5 : 1.5 }),
        Plot.ruleX(dots, { x: 'random', y1: (d: F1Dot) => d.structuredCi.lo, y2: (d: F1Dot) => d.structuredCi.hi, stroke: 'preset', strokeOpacity: 0.6, strokeWidth: style.large ? 2.5 : 1.5 }),
        Plot.dot(dots, { x: 'random', y: 'structured', fill: 'preset', symbol: 'preset', r: style.large ? 8 : 6, stroke: OKABE_ITO.black, tip: true, title: (d: F1Dot) => `${d.setting}\n${d.preset}\nrandom ${pct(d.random)} · MCTS ${pct(d.structured)}` }),
        Plot.text(dots, { x: 'random', y: 'structured', text: (d: F1Dot) => String(d.n), dx: style.large ? 13 : 10, dy: style.large ? -13 : -10, fontWeight: 700, fontSize: style.large ? 16 : 12, stroke: 'white', strokeWidth: 3, paintOrder: 'stroke' }),
        // the settings' key, beside the plot and below the probes' key (at 390 px the two met)
        Plot.text([key], { frameAnchor: 'top-right', dx: style.large ? 210 : 150, dy: style.large ? 100 : 72, textAnchor: 'end', lineAnchor: 'top', lineHeight: 1.3, fontSize: style.large ? 14 : 10 }),
        // the key, written in the plot (no colour-only legend): ● CoLa, ■ program selection
        // one entry a line: on one line it ran past a phone's width
        Plot.text(['● CoLa MCTS (blocks)\n■ program-selection MCTS\n   (neighborhood)\ndashed: random = MCTS'], { frameAnchor: 'top-left', dx: 6, dy: 6, textAnchor: 'start', lineAnchor: 'top', lineHeight: 1.2 }),
      ],
    },
  };
}

export function f2Spec(report: StudyReport, style: FigureStyle): FigureSpec {
  // only cases with a held-out rate are plotted; the others are stated in words (verdict.ts)
  const cases = report.f2.cases.flatMap((c) => (c.rate !== null && c.ci !== null ? [{ ...c, rate: c.rate, ci: c.ci, name: `${short(c.model)} · ${c.task}` }] : []));
  type Plotted = (typeof cases)[number];
  // each case sentence without its own full stop: the alt joins them and ends with one
  const others = report.f2.cases.filter((c) => c.rate === null).map((c) => `${short(c.model)} · ${c.task}: ${caseSentence(c).split(': ').slice(1).join(': ').replace(/\.$/, '')}`);
  return {
    id: 'f2-repair-rates',
    title: 'F2: held-out repair rate of the identified MLP, per case',
    alt: [...cases.map((c) => `${c.name}: layer ${c.layer} repairs ${c.repaired}/${c.evaluated} held-out failures (${pct(c.rate)}, 95% CI ${pct(c.ci.lo)}–${pct(c.ci.hi)}), breaks ${c.collateral}/${c.realized} realized`), ...others].join('; ') + '.',
    plot: {
      ...baseOptions(style),
      height: Math.max(160, cases.length * (style.large ? 70 : 50) + 80),
      marginLeft: style.large ? 260 : 190,
      // room for a "layer ℓ: k/n" label centred on a rate near 100%
      marginRight: style.large ? 80 : 56,
      x: { domain: [0, 1], label: 'repair rate on the held-out half →', tickFormat: '%', grid: true },
      y: { domain: cases.map((c) => c.name), label: null },
      marks: [
        Plot.ruleY(cases, { y: 'name', x1: (c: Plotted) => c.ci.lo, x2: (c: Plotted) => c.ci.hi, stroke: OKABE_ITO.blue, strokeWidth: style.large ? 4 : 3 }),
        Plot.dot(cases, { y: 'name', x: 'rate', r: style.large ? 8 : 6, fill: OKABE_ITO.vermillion, stroke: OKABE_ITO.black }),
        Plot.text(cases, { y: 'name', x: 'rate', text: (c: Plotted) => `layer ${c.layer}: ${c.repaired}/${c.evaluated}`, dy: style.large ? -18 : -13 }),
      ],
    },
  };
}

/** One case's per-layer scan over its whole failure set (in-sample), identified layer outlined. */
export function f2LayersSpec(c: ScanCase, style: FigureStyle): FigureSpec {
  return {
    id: 'f2-layer-scan',
    title: `F2: per-layer scan, ${short(c.model)} · ${c.task} (in-sample; repaired up, broken down)`,
    alt: `For each layer, failures repaired (up) and realized questions broken (down) over the whole failure set of ${c.failures}; in-sample, so the best bar overstates. The identified layer is ${c.layer ?? 'none'}.`,
    plot: {
      ...baseOptions(style),
      height: style.large ? 420 : 300,
      // the walk's and Results' bars, drawn by the same builder
      ...layerBars(c.in_sample, c.layer, null),
    },
  };
}

interface Slope {
  pair: string;
  measure: string;
  side: 'base' | 'trained';
  rate: number;
}

export function f3Slopes(report: StudyReport): Slope[] {
  return report.f3.pairs.flatMap((p) => {
    const pair = `${short(p.base)} → ${short(p.trained)} · ${p.task}`;
    const lines: [string, number, number][] = [
      ['deployed', p.base_realized, p.trained_realized],
      ...Object.entries(p.ceilings).map(([label, c]): [string, number, number] => [`ceiling (${label})`, c.base, c.trained]),
    ];
    return lines.flatMap(([measure, b, t]) => [
      { pair, measure, side: 'base' as const, rate: b },
      { pair, measure, side: 'trained' as const, rate: t },
    ]);
  });
}

/** Label heights for the trained end of the slopes, pushed apart to at least `gap` (greedy, in
 *  rate units) so no two labels overlap; keyed like the slopes. */
function spreadLabels(ends: readonly Slope[], gap: number): Map<Slope, number> {
  const out = new Map<Slope, number>();
  const byPair = new Map<string, Slope[]>();
  for (const s of ends) byPair.set(s.pair, [...(byPair.get(s.pair) ?? []), s]);
  for (const group of byPair.values()) {
    let last = -Infinity;
    for (const s of [...group].sort((a, b) => a.rate - b.rate)) {
      const y = Math.max(s.rate, last + gap);
      out.set(s, y);
      last = y;
    }
  }
  return out;
}

export function f3Spec(report: StudyReport, style: FigureStyle): FigureSpec {
  const slopes = f3Slopes(report);
  const measures = [...new Set(slopes.map((s) => s.measure))];
  const palette = [OKABE_ITO.black, OKABE_ITO.blue, OKABE_ITO.vermillion, OKABE_ITO.bluishGreen, OKABE_ITO.reddishPurple, OKABE_ITO.orange, OKABE_ITO.skyBlue];
  const lo = Math.max(0, Math.floor(10 * Math.min(1, ...slopes.map((s) => s.rate))) / 10 - 0.05);
  const ends = slopes.filter((s) => s.side === 'trained');
  const labelY = spreadLabels(ends, (1 - lo) * (style.large ? 0.045 : 0.05));
  const facet = report.f3.pairs.length > 1 ? { fx: 'pair' } : {};
  // the key above the plot, one measure a line in its colour, below the y-axis label's line: names
  // at the line ends took 260 px of a phone's 358 and left base and trained on one x
  const line = style.large ? 24 : 17;
  const top = 12 + line * (measures.length + 1);
  return {
    id: 'f3-base-to-trained',
    title: 'F3: base → trained, deployed and ceiling',
    alt: report.f3.pairs
      .map((p) => `${short(p.base)} → ${short(p.trained)} on ${p.task}: deployed ${pct(p.base_realized)} → ${pct(p.trained_realized)}; ` + Object.entries(p.ceilings).map(([l, c]) => `ceiling (${l}) ${pct(c.base)} → ${pct(c.trained)}`).join('; '))
      .join('. ') + '.',
    plot: {
      ...baseOptions(style),
      height: (style.large ? 560 : 420) + top,
      marginTop: top + 10,
      marginRight: style.large ? 80 : 56,
      x: { domain: ['base', 'trained'], label: null, type: 'point', inset: 20 },
      y: { domain: [lo, 1 + (1 - lo) * 0.05], label: '↑ share of questions', tickFormat: '%', grid: true },
      ...(report.f3.pairs.length > 1 ? { fx: { label: null } } : {}),
      color: { domain: measures, range: palette.slice(0, measures.length) },
      marks: [
        Plot.line(slopes, { x: 'side', y: 'rate', z: (s: Slope) => `${s.pair}|${s.measure}`, stroke: 'measure', strokeWidth: 2, marker: 'circle', ...facet }),
        Plot.text(ends, { x: 'side', y: (s: Slope) => labelY.get(s)!, text: (s: Slope) => pct(s.rate), dx: 10, textAnchor: 'start', fill: 'measure', ...facet }),
        ...measures.map((m, i) =>
          Plot.text([`━ ${m}`], { frameAnchor: 'top-left', lineAnchor: 'top', textAnchor: 'start', dx: -(style.large ? 66 : 46), dy: (i + 1) * line - top, fill: palette[i], fontWeight: 600 }),
        ),
      ],
    },
  };
}

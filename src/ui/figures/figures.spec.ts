// SVG snapshots of every figure spec (numbers rounded to 1 decimal so float noise does not churn).
// Rendered by Observable Plot into a jsdom document; the .svg files beside this test are viewable.

import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import type { CheckpointComparison, SilencingScanResult } from '../../audit';
import { compareRuns, curvePoints, layerUsage, numLayersOf, reachProbes, selectorRows, sharedProbes, silencingOf, summaryOf } from '../lib/analysis';
import { blocksSpace } from '../lib/presets';
import { TestBackend, auditedRun } from '../testing/test-backend';
import { checkpointSpec } from './checkpoint';
import { MIN_FIT_WIDTH, renderFigure } from './figure';
import { layerUsageSpec } from './layer-usage';
import { readoutPlace } from './look-inside';
import { budgetTicks, reachCurvesSpec, spreadLabels } from './reach-curves';
import { silencingSpec } from './silencing';
import { FIT_WIDTHS, fitProblems, svgSnapshot } from './testing/svg';

const { document } = new JSDOM('').window;
const small = { large: false };
const large = { large: true };

const run = await auditedRun();
const L = numLayersOf(run.manifest, run.records);

function curvesData() {
  const summary = summaryOf(run.records);
  const probes = reachProbes(summary, run.records);
  return { curves: curvePoints(probes), selectors: selectorRows(probes), realized: summary.realized };
}

function scanOf(records = run.records): SilencingScanResult {
  const view = silencingOf(records);
  if (!view || !('scan' in view)) throw new Error(`no scan: ${JSON.stringify(view)}`);
  return view.scan;
}

/** A scan result written by hand: `layers` as [layer, repaired, broken]. */
function handScan(layers: [number, number, number][], identified: number | null): SilencingScanResult {
  const repair = { rate: 0, lo: 0, hi: 1 };
  return {
    probe_key: 'random-routes:k', silencing_probe_key: 'mlp-silencing:k', condition_key: 'k', failure_set: ['a', 'b', 'c'], realized_set: ['d', 'e'], split_seed: 0,
    identification: { doc_ids: ['a', 'b'], realized_ids: ['d'], layer: identified, repaired: identified === null ? 0 : 1 },
    evaluation: { doc_ids: ['c'], failures: 1, repaired: 0, rate: 0, ci: { lo: 0, hi: 0.79 }, collateral: 0, realized: 1, realized_ids: ['e'] },
    in_sample: { layers: layers.map(([layer, repaired, collateral]) => ({ layer, repaired, failures: 3, repair, collateral, realized: 2, collateralRate: repair })), best: null },
  };
}

describe('figure specs', () => {
  it('reachability@k: three probes, realized rule, selector points', async () => {
    const spec = reachCurvesSpec(curvesData(), small);
    const svg = svgSnapshot(spec);
    for (const label of ['random routes', 'MCTS routes (CoLa)', 'sampling', 'realized', 'majority · random routes', 'max-logprob · sampling', 'majority · MCTS routes (CoLa) · not blind', 'majority (not blind)']) {
      expect(svg).toContain(label);
    }
    expect(spec.alt).toContain('selectors (fixed-route, majority, max-logprob) as points');
    expect(spec.alt).toContain('over MCTS routes (CoLa) they are not answer-blind (they chose among gold-guided attempts)');
    // selector labels and the realized label sit on a white halo: the realized rule never strikes through them
    const dom = renderFigure(spec, document);
    const labels = [...dom.querySelectorAll('g[aria-label="text"]')].filter((g) => /majority|realized/.test(g.textContent ?? ''));
    expect(labels.length).toBeGreaterThanOrEqual(2);
    for (const g of labels) expect([g.getAttribute('stroke'), g.getAttribute('paint-order')]).toEqual(['white', 'stroke']);
    await expect(svg).toMatchFileSnapshot('__snapshots__/reach-curves.svg');
  });

  it('keeps every selector label inside the plot, clear of the reachable axis, at 640 px and on a phone', () => {
    // the labels ran left from their point over the axis and past the figure's edge at 358 px
    const spec = reachCurvesSpec(curvesData(), small);
    for (const fitWidth of [640, 358]) {
      const dom = renderFigure(spec, document, { fitWidth });
      const left = spec.plot.marginLeft as number;
      const right = fitWidth - (spec.plot.marginRight as number);
      const texts = [...dom.querySelectorAll('g[aria-label="text"] text')].filter((t) => /fixed-route|majority|max-logprob/.test(t.textContent ?? ''));
      expect(texts.length).toBe(curvesData().selectors.length);
      for (const t of texts) {
        const g = t.parentElement!;
        const x = Number(/translate\(([-\d.]+)/.exec(t.getAttribute('transform') ?? '')![1]) + Number(/translate\(([-\d.]+)/.exec(g.getAttribute('transform') ?? 'translate(0')![1]);
        const width = (t.textContent ?? '').length * 6.8; // about 0.56 em per character at 12 px, as the margins assume
        const [from, to] = g.getAttribute('text-anchor') === 'end' ? [x - width, x] : [x, x + width];
        expect(from, `${t.textContent} at ${fitWidth} px starts right of the axis`).toBeGreaterThanOrEqual(left);
        expect(to, `${t.textContent} at ${fitWidth} px ends inside the plot`).toBeLessThanOrEqual(right + (spec.plot.marginRight as number));
      }
    }
  });

  it('lays a figure out at its on-screen width (never under MIN_FIT_WIDTH), exports at the spec width', () => {
    const spec = reachCurvesSpec(curvesData(), small);
    const widthOf = (svg: SVGSVGElement) => Number(svg.getAttribute('width'));
    expect(widthOf(renderFigure(spec, document))).toBe(640);
    expect(widthOf(renderFigure(spec, document, { fitWidth: 358.6 }))).toBe(358);
    expect(widthOf(renderFigure(spec, document, { fitWidth: 120 }))).toBe(MIN_FIT_WIDTH);
    expect(widthOf(renderFigure(spec, document, { fitWidth: 1200 }))).toBe(640);
    // the text keeps its size: the narrower layout is not a scaled-down drawing
    const fitted = renderFigure(spec, document, { fitWidth: 358 });
    expect(fitted.getAttribute('viewBox')).toMatch(/^0 0 358 /);
    expect(fitted.innerHTML).toContain('font-size: 12px');
  });

  it('reachability@k ticks whole budgets only', () => {
    expect(budgetTicks(2)).toEqual([1, 2]);
    expect(budgetTicks(4)).toEqual([1, 2, 4]);
    expect(budgetTicks(100)).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
    expect(budgetTicks(70)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    const spec = { probe: 'random-routes' as const, space: blocksSpace(4), budget: 2, seed: 1, shared: false };
    const curves = [1, 2].map((k) => ({ key: 'random-routes:k', label: 'random routes', spec, k, reach: k / 4 }));
    const svg = renderFigure(reachCurvesSpec({ curves, selectors: [], realized: 0 }, small), document);
    const xTicks = [...svg.querySelectorAll('g[aria-label="x-axis tick label"] text')].map((t) => t.textContent);
    expect(xTicks).toEqual(['1', '2']);
  });

  it('reachability@k in large-text mode is wider with bigger type', async () => {
    const svg = svgSnapshot(reachCurvesSpec(curvesData(), large));
    expect(svg).toContain('font-size: 18px');
    expect(svg).toMatch(/<svg[^>]*width="960"/);
    await expect(svg).toMatchFileSnapshot('__snapshots__/reach-curves-large.svg');
  });

  it('silencing scan: in-sample bars, the identified layer with its held-out rate', async () => {
    const scan = scanOf();
    expect(scan.identification.layer).toBe(L / 2); // the scripted culprit layer
    const spec = silencingSpec(scan, small);
    expect(spec.title).toContain('in-sample');
    expect(spec.alt).toContain(`Out of sample: identified on ${scan.identification.doc_ids.length} failures, layer ${L / 2} repairs ${scan.evaluation.repaired}/${scan.evaluation.failures} held-out failures`);
    const svg = svgSnapshot(spec);
    expect(svg).toContain(`identified: layer ${L / 2} (outlined)`);
    expect(svg).toContain(`held out: repairs ${scan.evaluation.repaired}/${scan.evaluation.failures}`);
    await expect(svg).toMatchFileSnapshot('__snapshots__/silencing.svg');
  });

  it('silencing scan with no layer identified says so and marks none', () => {
    const spec = silencingSpec(handScan([[0, 0, 2]], null), small);
    expect(spec.alt).toContain('no layer repairs any of the 2 identification failures');
    expect(svgSnapshot(spec)).not.toContain('identified:');
  });

  it('silencing scan: 7 repairs of 40 failures stay visible beside 152 breaks of 300 realized, on one share axis', () => {
    const scan = handScan([[0, 7, 152], [1, 2, 20]], 0);
    const rows = scan.in_sample.layers.map((l) => ({ ...l, failures: 40, realized: 300 }));
    const svg = renderFigure(silencingSpec({ ...scan, in_sample: { ...scan.in_sample, layers: rows } }, small), document);
    const bars = [...svg.querySelectorAll('g[aria-label="bar"]')].slice(0, 2).map((g) => [...g.querySelectorAll('rect')].map((r) => Number(r.getAttribute('height'))));
    const [repaired, broken] = bars;
    // 17.5% up against 50.7% down: the repaired bar is about a third of the broken one, not a 2% sliver
    expect(repaired[0] / broken[0]).toBeCloseTo(7 / 40 / (152 / 300), 1);
    expect(repaired[0]).toBeGreaterThan(20);
    const ticks = [...svg.querySelectorAll('g[aria-label="y-axis tick label"] text')].map((t) => t.textContent);
    expect(ticks.every((t) => /^\d+%$/.test(t ?? ''))).toBe(true);
  });

  it('silencing scan with nothing repaired or broken draws no bar height', () => {
    const layers: [number, number, number][] = [[0, 0, 0], [1, 0, 0], [2, 0, 0]];
    const svg = renderFigure(silencingSpec(handScan(layers, null), small), document);
    const heights = [...svg.querySelectorAll('g[aria-label="bar"] rect')].map((r) => Number(r.getAttribute('height') ?? 0));
    expect(heights.length).toBe(2 * layers.length);
    expect(heights.every((h) => h === 0)).toBe(true);
  });

  it('layer usage heatmap with a quantized legend and the default diagonal', async () => {
    const cells = layerUsage(run.records);
    const svg = svgSnapshot(layerUsageSpec(cells, L, small));
    expect(svg).toContain('correct routes');
    // the default route: a white ring under a black outline, visible on dark and light cells
    const outlines = [...renderFigure(layerUsageSpec(cells, L, small), document).querySelectorAll('g[aria-label="cell"]')]
      .filter((g) => g.getAttribute('fill') === 'none')
      .map((g) => [g.getAttribute('stroke'), g.querySelectorAll('rect').length]);
    expect(outlines).toEqual([['white', L], ['#000000', L]]);
    await expect(svg).toMatchFileSnapshot('__snapshots__/layer-usage.svg');
  });

  it('checkpoint comparison: deployed and ceiling deltas with paired intervals', async () => {
    const b = await auditedRun(24, new TestBackend({ fingerprint: 'fake-rl', skill: 0.6 }));
    const out = compareRuns(run, b, sharedProbes(run.records, b.records)[0]);
    if ('refused' in out) throw new Error(out.refused);
    expect(out.cmp.n).toBe(24);
    const spec = checkpointSpec(out.cmp, { A: 'base', B: 'RL' }, small);
    expect(spec.alt).toMatch(/^On 24 questions audited in both runs \(A = base; B = RL\): deployed Δ [+−]?\d+\.\d pts \(95% CI .+\), McNemar p = .+; ceiling Δ /);
    const svg = svgSnapshot(spec);
    for (const text of ['A = base', 'B = RL', 'deployed (realized)', 'ceiling', 'B − A (percentage points)']) expect(svg).toContain(text);
    await expect(svg).toMatchFileSnapshot('__snapshots__/checkpoint.svg');
  });

  it('renders untrusted labels as text, not markup', () => {
    const d = { n: 1, diff: 0, ci: { lo: -1, hi: 1 }, mcnemar: { b: 0, c: 0, exactP: 1, chiSquare: 0, chiSquareP: 1 } };
    const cmp = { n: 1, deployed: d, ceiling: d } as CheckpointComparison;
    const spec = checkpointSpec(cmp, { A: '<img src=x onerror=alert(1)>', B: 'b' }, small);
    const el = renderFigure(spec, document);
    expect(el.querySelector('img')).toBeNull();
    expect(el.textContent).toContain('<img src=x onerror=alert(1)>');
  });
});

describe('spreadLabels', () => {
  it('keeps labels at the bottom of the axis above it, still apart', () => {
    const ys = spreadLabels([0, 0.01, 0]);
    expect(Math.min(...ys)).toBe(0);
    const sorted = [...ys].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i] - sorted[i - 1]).toBeGreaterThanOrEqual(0.06 - 1e-12);
    expect(ys[1]).toBe(Math.max(...ys)); // the highest value keeps the top place
  });

  it('pushes close labels apart, keeps far ones, preserves order', () => {
    const ys = spreadLabels([0.75, 0.74, 0.2, 0.745]);
    expect(ys[0]).toBe(0.75);
    expect(ys[3]).toBeCloseTo(0.69, 12);
    expect(ys[1]).toBeCloseTo(0.63, 12);
    expect(ys[2]).toBe(0.2);
  });
});

describe('readoutPlace', () => {
  it('names the answer token a read-out compares and the text before it', () => {
    expect(readoutPlace({ position: 1, prefix: '-', versus: 'own' })).toBe('At answer token 2, after "-" (the first where the response departs from the gold)');
    expect(readoutPlace({ position: 1, prefix: '-', versus: 'deployed' })).toBe('At answer token 2, after "-" (the first where the deployment\'s answer departs from the gold)');
    expect(readoutPlace({ position: 0, prefix: '', versus: 'own' })).toBe('At the first answer token');
    expect(readoutPlace({ position: 0, prefix: '', versus: 'deployed' })).toBe('At the first answer token (where the deployment\'s answer departs from the gold)');
  });

  it('fits 390 and 1280 px: no clipped label, no collapsed axis', async () => {
    const scan = scanOf();
    const b = await auditedRun(24, new TestBackend({ fingerprint: 'fake-rl', skill: 0.6 }));
    const out = compareRuns(run, b, sharedProbes(run.records, b.records)[0]);
    if ('refused' in out) throw new Error(out.refused);
    const specs = (style: typeof small) => [
      reachCurvesSpec(curvesData(), style), silencingSpec(scan, style), layerUsageSpec(layerUsage(run.records), L, style), checkpointSpec(out.cmp, { A: 'base', B: 'RL' }, style),
    ];
    for (const spec of specs(small)) for (const w of FIT_WIDTHS) expect(fitProblems(spec, w), `${spec.id} at ${w} px`).toEqual([]);
    for (const spec of specs(large)) expect(fitProblems(spec, 1280), `${spec.id} at 1280 px, large text`).toEqual([]);
  });
});

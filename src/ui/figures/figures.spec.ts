// SVG snapshots of every figure spec (numbers rounded to 1 decimal so float noise does not churn).
// Rendered by Observable Plot into a jsdom document; the .svg files beside this test are viewable.

import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { compareRuns, groupByQuestion, layerUsage, numLayersOf, rateRows, reachCurve, selectorPoints, silencingScan } from '../lib/analysis';
import { scriptedRun } from '../testing/scripted-run';
import { pairedBarsSpec } from './checkpoint';
import { renderFigure, type FigureSpec } from './figure';
import { layerUsageSpec } from './layer-usage';
import { budgetTicks, reachCurvesSpec, spreadLabels } from './reach-curves';
import { silencingSpec } from './silencing';

const { document } = new JSDOM('').window;
const small = { large: false };
const large = { large: true };

function svgOf(spec: FigureSpec): string {
  return renderFigure(spec, document).outerHTML.replace(/-?\d+\.\d+/g, (x) => String(Math.round(Number(x) * 10) / 10));
}

const run = scriptedRun();
const questions = groupByQuestion(run.records);
const L = numLayersOf(run.manifest, run.records);

function curvesData() {
  const rows = rateRows(questions);
  return {
    curves: (['random-routes', 'mcts-routes', 'sampling'] as const).flatMap((p) => reachCurve(questions, p)),
    selectors: selectorPoints(rows),
    realized: rows[0].rate,
  };
}

describe('figure specs', () => {
  it('reachability@k: three probes, realized rule, selector points', async () => {
    const spec = reachCurvesSpec(curvesData(), small);
    const svg = svgOf(spec);
    for (const label of ['random routes', 'MCTS routes', 'sampling', 'realized', 'majority (random routes)', 'max-logprob (sampling)']) expect(svg).toContain(label);
    expect(spec.alt).toMatch(/answer-blind selectors \(majority, max-logprob\)/);
    await expect(svg).toMatchFileSnapshot('__snapshots__/reach-curves.svg');
  });

  it('reachability@k ticks whole budgets only', () => {
    expect(budgetTicks(2)).toEqual([1, 2]);
    expect(budgetTicks(4)).toEqual([1, 2, 4]);
    expect(budgetTicks(100)).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
    expect(budgetTicks(70)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    const curves = [1, 2].map((k) => ({ probe: 'random-routes' as const, k, reach: k / 4 }));
    const svg = renderFigure(reachCurvesSpec({ curves, selectors: [], realized: 0 }, small), document);
    const xTicks = [...svg.querySelectorAll('g[aria-label="x-axis tick label"] text')].map((t) => t.textContent);
    expect(xTicks).toEqual(['1', '2']);
  });

  it('reachability@k in large-text mode is wider with bigger type', async () => {
    const svg = svgOf(reachCurvesSpec(curvesData(), large));
    expect(svg).toContain('font-size: 18px');
    expect(svg).toMatch(/<svg[^>]*width="960"/);
    await expect(svg).toMatchFileSnapshot('__snapshots__/reach-curves-large.svg');
  });

  it('silencing scan marks the best block', async () => {
    const scan = silencingScan(questions);
    expect(scan.best).toBe(L / 2); // the scripted culprit layer
    const spec = silencingSpec(scan, small);
    expect(spec.alt).toContain(`Best block: layer ${L / 2}`);
    await expect(svgOf(spec)).toMatchFileSnapshot('__snapshots__/silencing.svg');
  });

  it('silencing scan with no repair says so', () => {
    const spec = silencingSpec({ layers: [{ layer: 0, repaired: 0, broken: 2 }], nFailure: 3, nRealized: 2, best: null }, small);
    expect(spec.alt).toMatch(/No layer repairs anything/);
    expect(svgOf(spec)).not.toContain('best');
  });

  it('silencing scan with nothing repaired or broken draws no bar height', () => {
    const layers = [0, 1, 2].map((layer) => ({ layer, repaired: 0, broken: 0 }));
    const svg = renderFigure(silencingSpec({ layers, nFailure: 3, nRealized: 0, best: null }, small), document);
    const heights = [...svg.querySelectorAll('g[aria-label="bar"] rect')].map((r) => Number(r.getAttribute('height') ?? 0));
    expect(heights.length).toBe(2 * layers.length);
    expect(heights.every((h) => h === 0)).toBe(true);
  });

  it('layer usage heatmap with a quantized legend and the default diagonal', async () => {
    const cells = layerUsage(questions);
    const svg = svgOf(layerUsageSpec(cells, L, small));
    expect(svg).toContain('correct routes');
    await expect(svg).toMatchFileSnapshot('__snapshots__/layer-usage.svg');
  });

  it('checkpoint comparison as paired bars with intervals', async () => {
    const b = scriptedRun({ id: 'fake-run-2', modelName: 'reachlab/micro-arith-rl', seed: 11, skill: 0.6 });
    const cmp = compareRuns(questions, groupByQuestion(b.records));
    expect(cmp.shared).toBe(24);
    const svg = svgOf(pairedBarsSpec(cmp, { A: 'base', B: 'RL' }, small));
    expect(svg).toContain('base');
    expect(svg).toContain('RL');
    await expect(svg).toMatchFileSnapshot('__snapshots__/checkpoint.svg');
  });

  it('renders untrusted labels as text, not markup', () => {
    const spec = pairedBarsSpec({ shared: 1, transitions: [], bars: [{ run: 'A', measure: 'realized', rate: 1, ci: { rate: 1, lo: 0.2, hi: 1 } }] }, { A: '<img src=x onerror=alert(1)>', B: 'b' }, small);
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

// The findings figures over a real study report (the built-in-like plan on scripted fake models):
// every figure renders to one <svg>, and its alt text carries the report's numbers.

import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { wilson } from '../../audit/stats';
import { loadTask } from '../../audit';
import { type StudyReport } from '../../audit/study-report';
import { normalizePlan } from '../../audit/study-plan';
import { caseSentence, studyVerdicts } from '../../audit/verdict';
import { FakeEngine } from '../../audit/testing/fake-engine';
import { routeToString } from '../../audit/routes';
import { studyTaskOptions } from '../../store/study';
import { runStudy } from '../../../scripts/study-cli';
import { renderFigure } from './figure';
import { f1Dots, f1Spec, f2LayersSpec, f2Spec, f3Slopes, f3Spec } from './study';
import { FIT_WIDTHS, fitProblems, svgSnapshot } from './testing/svg';
import { silencingSpec } from './silencing';
import { silencingOf } from '../lib/analysis';
import { EFFECT_COLOR } from '../lib/palette';
import { auditedRun } from '../testing/test-backend';

/** Where the repaired and the broken bars of a drawn scan lie against its zero rule. */
function barSides(svg: SVGSVGElement): { repaired: string[]; broken: string[] } {
  const zero = Number(svg.querySelector('g[aria-label="rule"] line')!.getAttribute('y1'));
  const side = (fill: string) =>
    [...svg.querySelectorAll('g[aria-label="bar"] rect')]
      .filter((r) => (r.getAttribute('fill') ?? r.parentElement!.getAttribute('fill'))?.toLowerCase() === fill.toLowerCase() && Number(r.getAttribute('height')) > 0)
      .map((r) => (Number(r.getAttribute('y')) + Number(r.getAttribute('height')) <= zero + 0.5 ? 'up' : Number(r.getAttribute('y')) >= zero - 0.5 ? 'down' : 'across'));
  return { repaired: side(EFFECT_COLOR.repaired), broken: side(EFFECT_COLOR.broken) };
}

const { document } = new JSDOM('').window;

async function report(): Promise<StudyReport> {
  const fake = (model: string) =>
    new FakeEngine({
      numLayers: 4,
      fingerprint: model,
      answer: (q) => {
        const m = /^(\d+)([+-])(\d+)=$/.exec(q.prompt)!;
        const v = m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
        if (q.silence.length) return q.silence[0] === 1 ? String(v) : '0';
        if (routeToString(q.route) === '0,1,2,3') return v % (model === 'A' ? 3 : 2) === 0 ? String(v) : 'x';
        return q.route.length > 4 ? String(v) : 'x';
      },
    });
  const plan = normalizePlan({
    models: ['A'],
    tasks: ['builtin:arith-2d'],
    probes: [{ probe: 'random-routes' }, { probe: 'mcts-routes' }, { probe: 'random-routes', space: 'neighborhood' }, { probe: 'mcts-routes', space: 'neighborhood' }],
    budget: 4,
    questions: 48,
    scan: true,
    pairs: [{ base: 'A', trained: 'B' }],
  });
  const { computed: _c, reused: _r, ...r } = await runStudy(plan, null, {
    openEngine: async (ref) => fake(ref),
    loadTask: (spec, p) => loadTask(spec, studyTaskOptions(p)),
    readRun: () => null,
    writeRun: () => {},
    log: () => {},
    appVersion: 'test',
  });
  return r;
}

describe('findings figures', () => {
  it('F1 puts one dot per (setting, MCTS preset) at (random, structured) reachable', async () => {
    const r = await report();
    const dots = f1Dots(r);
    expect(dots).toHaveLength(4); // 2 settings × 2 presets
    for (const s of r.settings) {
      const d = dots.find((x) => x.setting.startsWith(s.model) && x.preset.startsWith('CoLa'))!;
      expect([d.random, d.structured]).toEqual([s.random_minus_structured['mcts-routes/blocks'].random_reachable, s.random_minus_structured['mcts-routes/blocks'].structured_reachable]);
    }
    const svg = renderFigure(f1Spec(r, { large: false }), document);
    expect(svg.tagName).toBe('svg');
    expect(svg.querySelectorAll('g[aria-label="dot"] *').length).toBe(4);
    // error bars: each rate's Wilson interval over the setting's questions, both ways
    expect(svg.querySelectorAll('g[aria-label="rule"] line').length).toBe(8);
    for (const d of dots) {
      const s = r.settings.find((x) => d.setting.startsWith(x.model.replace(/^builtin:/, '')))!;
      expect(d.randomCi).toEqual(wilson(Math.round(d.random * s.questions), s.questions));
      expect(d.randomCi.lo).toBeLessThanOrEqual(d.random + 1e-12); // Wilson at 0 successes is 0 up to rounding
      expect(d.structuredCi.hi).toBeGreaterThanOrEqual(d.structured - 1e-12);
    }
    // settings are labelled by number, named once in the key
    expect([...svg.querySelectorAll('g[aria-label="text"] text')].map((t) => t.textContent)).toEqual(expect.arrayContaining(['1', '2']));
    expect(f1Spec(r, { large: false }).alt).toMatch(/Settings are numbered: 1 = .+; 2 = .+\.$/);
    await expect(svgSnapshot(f1Spec(r, { large: false }))).toMatchFileSnapshot('__snapshots__/f1.svg');
  });

  it("F1's figure states the count its verdict sentence states", async () => {
    const r = await report();
    const count = (s: string) => /at least as much as the search in (\d+) of (\d+) comparisons/.exec(s)?.slice(1);
    const said = count(studyVerdicts(r).f1.sentence);
    expect(said).toBeDefined();
    expect(count(f1Spec(r, { large: false }).alt)).toEqual(said);
  });

  it('F2 shows each case with its held-out rate and interval, and a case\'s per-layer scan', async () => {
    const r = await report();
    expect(r.f2.cases).toHaveLength(2);
    const spec = f2Spec(r, { large: false });
    // a case with a held-out rate is plotted; one without says why in words (verdict.ts)
    expect(r.f2.cases.some((c) => c.rate !== null)).toBe(true);
    for (const c of r.f2.cases) expect(spec.alt).toContain(c.rate === null ? caseSentence(c).split(': ').slice(1).join(': ') : `layer ${c.layer} repairs ${c.repaired}/${c.evaluated}`);
    expect(renderFigure(spec, document).tagName).toBe('svg');
    const layers = renderFigure(f2LayersSpec(r.f2.cases[0], { large: false }), document);
    expect(layers.querySelectorAll('g[aria-label="bar"]').length).toBeGreaterThan(0);
    await expect(svgSnapshot(spec)).toMatchFileSnapshot('__snapshots__/f2.svg');
    await expect(svgSnapshot(f2LayersSpec(r.f2.cases[0], { large: false }))).toMatchFileSnapshot('__snapshots__/f2-layers.svg');
  });

  it("draws the report's per-layer scan as the walk and Results do: repaired up, broken down", async () => {
    const r = await report();
    const view = silencingOf((await auditedRun()).records);
    const walk = barSides(renderFigure(silencingSpec(view && 'scan' in view ? view.scan : (null as never), { large: false }), document));
    const drawn = [walk, ...r.f2.cases.map((c) => barSides(renderFigure(f2LayersSpec(c, { large: false }), document)))];
    for (const d of drawn) {
      expect(d.repaired.length + d.broken.length).toBeGreaterThan(0);
      expect(new Set(d.repaired)).toEqual(new Set(d.repaired.length ? ['up'] : []));
      expect(new Set(d.broken)).toEqual(new Set(d.broken.length ? ['down'] : []));
    }
    expect(drawn.slice(1).some((d) => d.broken.length > 0)).toBe(true);
  });

  it('F3 draws base → trained for deployed and every ceiling', async () => {
    const r = await report();
    const p = r.f3.pairs[0];
    const slopes = f3Slopes(r);
    expect(slopes.filter((s) => s.measure === 'deployed').map((s) => s.rate)).toEqual([p.base_realized, p.trained_realized]);
    expect(new Set(slopes.map((s) => s.measure)).size).toBe(1 + Object.keys(p.ceilings).length);
    expect(renderFigure(f3Spec(r, { large: true }), document).tagName).toBe('svg');
    await expect(svgSnapshot(f3Spec(r, { large: false }))).toMatchFileSnapshot('__snapshots__/f3.svg');
  });

  it('fits 390 and 1280 px: no clipped label, no collapsed axis', async () => {
    const r = await report();
    for (const large of [false, true]) {
      const specs = [f1Spec(r, { large }), f2Spec(r, { large }), f2LayersSpec(r.f2.cases[0], { large }), f3Spec(r, { large })];
      for (const spec of specs) for (const w of large ? [1280] : FIT_WIDTHS) expect(fitProblems(spec, w), `${spec.id} at ${w} px${large ? ', large text' : ''}`).toEqual([]);
    }
  });
});

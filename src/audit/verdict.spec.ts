// The verdict rule against hand-made record sets: a tie at the floor, a significant and a
// non-significant Δ, a failure set too small to evaluate, and an empty one (0 of 0).

import { describe, expect, it } from 'vitest';
import { NO_DECOY } from './decoy';
import { blocksSpace, colaMcts } from './presets';
import { normalizePlan, studyReport, type StudyRunResult } from './study';
import type { Attempt, ProbeSpec, QuestionRecord } from './types';
import { f1Outcome, MIN_HELD_OUT_FAILURES, reportTests, studyVerdicts } from './verdict';

const L = 4;
const N = 60;
const D = [0, 1, 2, 3];
const SPECS = {
  deployment: { probe: 'deployment' },
  random: { probe: 'random-routes', space: blocksSpace(L), budget: 4, seed: 1, shared: false },
  mcts: colaMcts(L, 4, 1),
  silencing: { probe: 'mlp-silencing', layers: D },
} satisfies Record<string, ProbeSpec>;
type SpecName = keyof typeof SPECS;

function rec(model: string, q: number, name: SpecName, correct: boolean[]): QuestionRecord {
  const spec = SPECS[name];
  const doc = `q${q}`;
  const attempts: Attempt[] = correct.map((c, index) => ({ index, route: name === 'random' || name === 'mcts' ? [0, 1, 1, 2, 3] : D, silence: name === 'silencing' ? [index] : [], response: '', extracted: c ? 'g' : 'x', correct: c, meanLogprob: -1 }));
  const first = attempts.findIndex((a) => a.correct);
  const budget = name === 'deployment' ? 0 : 4;
  return {
    doc_id: doc, doc: { id: doc, text: `question ${q}`, target: 'g' }, target: 'g', arguments: { prompt: '' }, resps: [], filtered_resps: [], doc_hash: `h${q}`, prompt_hash: `p${q}`,
    probe: spec.probe, probe_key: `${spec.probe}:k`, probe_spec: spec, condition_key: 'k', model_fingerprint: model, task_id: 't', task_version: 1, attempts, budget,
    stop_reason: name === 'deployment' ? null : 'budget', first_success: first < 0 ? null : first, realized: name === 'deployment' ? correct[0] : null,
    reachable: name === 'deployment' ? null : first >= 0, ...NO_DECOY, invalid: 0, selection_saw_gold: name === 'mcts',
  };
}

const ids = Array.from({ length: N }, (_, i) => i);
const within = (lo: number, hi: number) => (q: number) => q >= lo && q <= hi;
const never = () => false;

/** A model's runs: which questions deployment realizes, which each probe reaches (at its second
 *  attempt), and which layer's silencing makes a question right. */
function model(name: string, realized: (q: number) => boolean, random: (q: number) => boolean, mcts: (q: number) => boolean, repairs: (q: number, layer: number) => boolean): StudyRunResult[] {
  const deployment = ids.map((q) => rec(name, q, 'deployment', [realized(q)]));
  const probe = (s: 'random' | 'mcts', reach: (q: number) => boolean) => ids.map((q) => rec(name, q, s, [false, reach(q), false, false]));
  const run = (label: string, records: QuestionRecord[]): StudyRunResult => ({ model: name, task: 't', label, run_key: `${name}-${label}`.padEnd(64, '0'), records });
  const scanned = ids.filter((q) => realized(q) || random(q));
  return [
    run('random-routes/blocks', [...deployment, ...probe('random', random)]),
    run('mcts-routes/blocks', [...deployment, ...probe('mcts', mcts)]),
    run('mlp-silencing', scanned.map((q) => rec(name, q, 'silencing', D.map((l) => (realized(q) ? true : repairs(q, l)))))),
  ];
}

const plan = normalizePlan({
  models: ['A', 'B', 'C'],
  tasks: ['t'],
  probes: [{ probe: 'random-routes' }, { probe: 'mcts-routes' }],
  scan: true,
  pairs: [{ base: 'A', trained: 'B' }],
});
const results = [
  // A: nothing realized; both probes reach q0 only (1.7% each: a tie at the floor); a failure set of one
  ...model('A', never, within(0, 0), within(0, 0), never),
  // B: realizes q0–q9; random routes reach q10–q49, MCTS q10–q14 (significant Δ); silencing layer 2 repairs every failure
  ...model('B', within(0, 9), within(10, 49), within(10, 14), (_q, l) => l === 2),
  // C: realizes every question (empty failure set, 0 of 0); random q0–q29 vs MCTS q5–q33 (non-significant Δ)
  ...model('C', () => true, within(0, 29), within(5, 33), never),
];

describe('study verdicts', async () => {
  const report = await studyReport(plan, results);
  const v = studyVerdicts(report);
  const setting = (m: string) => report.settings.find((s) => s.model === m)!.random_minus_structured['mcts-routes/blocks'];

  it('F1: a tie at the floor is uninformative, a significant Δ is support, a non-significant one with a wide interval is not', () => {
    expect([setting('A').random_reachable, setting('A').structured_reachable]).toEqual([1 / N, 1 / N]);
    expect(v.f1.evidence[0]).toMatch(/^A · t, .*: uninformative\.$/);
    expect(setting('B').mcnemar_p).toBeLessThan(0.001);
    expect(v.f1.evidence[1]).toMatch(/McNemar p < 0\.001 \(Holm-adjusted < 0\.001\): random higher\.$/);
    expect(setting('C').ci.lo).toBeLessThan(-0.05);
    expect(v.f1.evidence[2]).toMatch(/: inconclusive\.$/);
    expect(v.f1.settings).toEqual({ support: 1, uninformative: 1, inconclusive: 1, against: 0 });
    expect(v.f1.sentence).toMatch(/^Random routes reach at least as much as MCTS in 1 of 3 settings .* 1 uninformative .* 1 inconclusive, 0 where MCTS reaches more\.$/);
    // the point estimates alone would have counted all three
    expect(report.f1.random_ge_structured).toBe(3);
  });

  it('F1 rule: floor and ceiling ties, the margin, and Holm-adjusted significance', () => {
    expect(f1Outcome({ random: 0.04, structured: 0.05, ci: { lo: 0.001, hi: 0.02 }, holm: 0.001 })).toBe('uninformative');
    expect(f1Outcome({ random: 0.96, structured: 0.99, ci: { lo: -0.06, hi: -0.01 }, holm: 0.01 })).toBe('uninformative');
    expect(f1Outcome({ random: 0.5, structured: 0.4, ci: { lo: 0.02, hi: 0.2 }, holm: 0.2 })).toBe('random not worse');
    expect(f1Outcome({ random: 0.4, structured: 0.5, ci: { lo: -0.2, hi: -0.02 }, holm: 0.01 })).toBe('MCTS higher');
    expect(f1Outcome({ random: 0.4, structured: 0.42, ci: { lo: -0.049, hi: 0.01 }, holm: 0.5 })).toBe('random not worse');
  });

  it('F2: one failure is no case (no rate, no layer), an empty failure set has no failures to repair, 40 failures are a case', () => {
    const byModel = Object.fromEntries(report.f2.cases.map((c) => [c.model, c]));
    expect(byModel.A).toMatchObject({ status: 'no-case', failures: 1, layer: null, rate: null, ci: null });
    expect(byModel.A.evaluated).toBeLessThan(MIN_HELD_OUT_FAILURES);
    expect(byModel.C).toMatchObject({ status: 'no-failures', failures: 0, evaluated: 0, layer: null, rate: null, ci: null });
    expect(byModel.B).toMatchObject({ status: 'case', failures: 40, evaluated: 20, layer: 2, repaired: 20, rate: 1, collateral: 0 });
    expect(v.f2.evidence).toEqual([
      'A · t: no case — the failure set has 1 question, leaving 0 held out (fewer than 10), so no layer is identified and no repair rate is stated.',
      expect.stringMatching(/^B · t: silencing layer 2's MLP repairs 20 of 20 held-out failures \(100\.0%, 95% CI 83\.9% to 100\.0%; its 95% interval excludes 0\) and breaks 0 of 5 held-out realized questions\.$/),
      'C · t: no failures to repair — no question is reachable under random-routes/blocks without being realized, so there is nothing for silencing to repair.',
    ]);
    expect(v.f2.sentence).toBe('Silencing one MLP block is evaluated out of sample in 1 of 3 settings; 1 has no failures to repair, 1 has too few held-out failures (fewer than 10) to state a rate.');
    expect(JSON.stringify(v)).not.toMatch(/0\/0|0\.000|NaN|0\.0% \(/);
  });

  it('F3: states whether the deployed and each ceiling Δ are distinguishable from zero, with the deployed McNemar p', () => {
    const p = report.f3.pairs[0];
    expect(p.deployed_mcnemar_p).toBeCloseTo(2 / 1024, 12); // 10 discordant pairs, all one way
    expect(v.f3.evidence[0]).toMatch(/^A → B on t \(60 questions\): deployed 0\.0% → 16\.7%, Δ \+16\.7 points \(95% CI .*McNemar p 0\.002 \(Holm-adjusted 0\.0\d\d\)\): distinguishable from zero: up\.$/);
    expect(v.f3.evidence).toHaveLength(3);
    expect(v.f3.sentence).toMatch(/^A → B on t: the deployed accuracy rises; the ceiling: random-routes\/blocks up, mcts-routes\/blocks up\.$/);
  });

  it('counts every McNemar test and states the Holm adjustment', () => {
    const tests = reportTests(report);
    expect(tests).toHaveLength(6); // three F1 comparisons, F3 deployed and two ceilings
    for (const t of tests) expect(t.holm).toBeGreaterThanOrEqual(t.p);
    expect(v.multiplicity.sentence).toBe(
      'This report makes 6 McNemar tests (F1 and F3); each p is shown raw and Holm-adjusted over all 6, and a difference counts as distinguishable only when its Holm-adjusted p is below 0.05.',
    );
  });

  it('says in words when a finding has nothing to judge', async () => {
    const empty = studyVerdicts(await studyReport(normalizePlan({ models: ['A'], tasks: ['t'], probes: [{ probe: 'sampling' }] }), []));
    expect(empty.f1.sentence).toMatch(/No setting compares random routes with MCTS/);
    expect(empty.f2.sentence).toMatch(/No silencing scan was run/);
    expect(empty.f3.sentence).toMatch(/no base\/trained pairs/);
    expect(empty.multiplicity.sentence).toBe('This report makes no McNemar test.');
  });
});

// The verdict rule against hand-made record sets: a tie at the floor, a significant and a
// non-significant Δ, a failure set too small to evaluate, and an empty one (0 of 0).

import { describe, expect, it } from 'vitest';
import { NO_DECOY } from './decoy';
import { blocksSpace, colaMcts } from './presets';
import { studyReport, type StudyRunResult } from './study-report';
import { normalizePlan } from './study-plan';
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
    // no depth-matched walks in these runs: each search against the uniform routes, both spaces named
    expect(v.f1.evidence[0]).toMatch(/^A · t, CoLa's search \(mcts-routes\/blocks, space cola\) vs uniform random-routes\/blocks \(space blocks\): .*; uninformative\.$/);
    expect(setting('B').mcnemar_p).toBeLessThan(0.001);
    expect(v.f1.evidence[1]).toMatch(/McNemar p < 0\.001 \(Holm-adjusted < 0\.001\); .*; uniform routes higher\.$/);
    expect(setting('C').ci.lo).toBeLessThan(-0.05);
    expect(v.f1.evidence[2]).toMatch(/; inconclusive\.$/);
    expect(v.f1.tally).toEqual({ support: 1, no_reach: 0, uninformative: 1, inconclusive: 1, against: 0 });
    expect(v.f1.sentence).toMatch(/^Each search against its depth-matched walks where the run has them, else against uniform routes — .* The baseline reaches at least as much as the search in 1 of 3 comparisons; 1 uninformative .* and 1 inconclusive\.$/);
    expect(v.f1.uniform).toBeNull();
    // the point estimates alone would have counted all three
    expect(report.f1.random_ge_structured).toBe(3);
  });

  it('F1 rule: floor and ceiling ties, the margin, and Holm-adjusted significance', () => {
    expect(f1Outcome({ random: 0.04, structured: 0.05, ci: { lo: 0.001, hi: 0.02 }, holm: 0.001 })).toBe('uninformative');
    expect(f1Outcome({ random: 0.96, structured: 0.99, ci: { lo: -0.06, hi: -0.01 }, holm: 0.01 })).toBe('uninformative');
    expect(f1Outcome({ random: 0.5, structured: 0.4, ci: { lo: 0.02, hi: 0.2 }, holm: 0.2 })).toBe('random not worse');
    expect(f1Outcome({ random: 0.4, structured: 0.5, ci: { lo: -0.2, hi: -0.02 }, holm: 0.01 })).toBe('MCTS higher');
    expect(f1Outcome({ random: 0.4, structured: 0.42, ci: { lo: -0.049, hi: 0.01 }, holm: 0.5 })).toBe('random not worse');
    // a side that does not reach beyond its decoy makes the comparison say nothing, whatever its Δ
    expect(f1Outcome({ random: 0.6, structured: 0.2, ci: { lo: 0.3, hi: 0.5 }, holm: 0.001, reaches: { random: false, structured: true } })).toBe('no reach');
    expect(f1Outcome({ random: 0.6, structured: 0.2, ci: { lo: 0.3, hi: 0.5 }, holm: 0.001, reaches: { random: true, structured: false } })).toBe('no reach');
    expect(f1Outcome({ random: 0.6, structured: 0.2, ci: { lo: 0.3, hi: 0.5 }, holm: 0.001, reaches: { random: true, structured: null } })).toBe('random higher');
  });

  it('F2: one failure is no case (no rate, no layer), an empty failure set has no failures to repair, 40 failures are a case', () => {
    const byModel = Object.fromEntries(report.f2.cases.map((c) => [c.model, c]));
    expect(byModel.A).toMatchObject({ status: 'no-case', failures: 1, layer: null, rate: null, ci: null });
    expect(byModel.A.evaluated).toBeLessThan(MIN_HELD_OUT_FAILURES);
    expect(byModel.C).toMatchObject({ status: 'no-failures', failures: 0, evaluated: 0, layer: null, rate: null, ci: null });
    expect(byModel.B).toMatchObject({ status: 'case', failures: 40, evaluated: 20, layer: 2, repaired: 20, rate: 1, collateral: 0 });
    expect(v.f2.evidence).toEqual([
      'A · t: no case — the failure set has 1 question, leaving 0 held out (fewer than 10), so no layer is identified and no repair rate is stated.',
      expect.stringMatching(/^B · t: silencing layer 2's MLP \(chosen as the layer that repairs the most of the other 20 failures\) repairs 20 of 20 held-out failures \(100\.0%, 95% CI 83\.9% to 100\.0%; its 95% interval excludes 0\) and breaks 0 of 5 held-out realized questions\.$/),
      'C · t: no failures to repair — no question is reachable under random-routes/blocks without being realized, so there is nothing for silencing to repair.',
    ]);
    expect(v.f2.sentence).toBe('Silencing one MLP block is evaluated out of sample in 1 of 3 settings; 1 has no failures to repair, 1 has too few held-out failures (fewer than 10) to state a rate. The same silencing breaks 0 of 5 held-out realized questions.');
    expect(JSON.stringify(v)).not.toMatch(/0\/0|0\.000|NaN|0\.0% \(/);
  });

  it('F3: states whether the deployed and each ceiling Δ are distinguishable from zero, with the deployed McNemar p', () => {
    const p = report.f3.pairs[0];
    expect(p.deployed_mcnemar_p).toBeCloseTo(2 / 1024, 12); // 10 discordant pairs, all one way
    expect(v.f3.evidence[0]).toMatch(/^A → B on t \(60 questions\): deployed 0\.0% → 16\.7%, Δ \+16\.7 points \(95% CI .*McNemar p 0\.002 \(Holm-adjusted 0\.0\d\d\)\): distinguishable from zero: up\.$/);
    expect(v.f3.evidence).toHaveLength(3);
    expect(v.f3.sentence).toMatch(/^A → B on t: the deployed accuracy rises \(Δ \+16\.7 points, 95% CI .*\); the ceiling: random-routes\/blocks up \(no decoy to compare its change with\), mcts-routes\/blocks up \(no decoy to compare its change with\)\.$/);
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

describe('study verdicts with the decoy control', async () => {
  /** A record whose attempts answer the gold "g", the decoy "d" or something else "x". */
  function answered(model: string, q: number, name: SpecName, answers: string[]): QuestionRecord {
    const r = rec(model, q, name, answers.map((a) => a === 'g'));
    const attempts = r.attempts.map((a, i) => ({ ...a, extracted: answers[i] }));
    const first = answers.indexOf('d');
    const hit = first < 0 ? null : first;
    return { ...r, attempts, decoy: 'd', decoy_first_success: hit, realized_decoy: name === 'deployment' ? hit === 0 : null, reachable_decoy: name === 'deployment' ? null : hit !== null };
  }
  /** Deployment realizes `realized`; random routes reach the gold on `random` and the decoy there too
   *  (so no more gold than decoy); MCTS reaches the gold on `mcts` and never the decoy; silencing
   *  layer 2 repairs every failure and breaks every realized question. */
  function decoyModel(name: string, realized: (q: number) => boolean, random: (q: number) => boolean, mcts: (q: number) => boolean): StudyRunResult[] {
    const deployment = ids.map((q) => answered(name, q, 'deployment', [realized(q) ? 'g' : 'x']));
    const run = (label: string, records: QuestionRecord[]): StudyRunResult => ({ model: name, task: 't', label, run_key: `${name}-${label}`.padEnd(64, '0'), records });
    return [
      run('random-routes/blocks', [...deployment, ...ids.map((q) => answered(name, q, 'random', random(q) ? ['x', 'g', 'd', 'x'] : ['x', 'x', 'x', 'x']))]),
      run('mcts-routes/blocks', [...deployment, ...ids.map((q) => answered(name, q, 'mcts', mcts(q) ? ['x', 'g', 'x', 'x'] : ['x', 'x', 'x', 'x']))]),
      run('mlp-silencing', ids.filter((q) => realized(q) || random(q)).map((q) => rec(name, q, 'silencing', D.map((l) => (realized(q) ? l !== 2 : l === 2))))),
    ];
  }
  const decoyPlan = normalizePlan({ models: ['D'], tasks: ['t'], probes: [{ probe: 'random-routes' }, { probe: 'mcts-routes' }], scan: true, pairs: [{ base: 'D', trained: 'E' }] });
  const report = await studyReport(decoyPlan, [
    ...decoyModel('D', within(0, 19), within(20, 39), within(20, 29)),
    ...decoyModel('E', within(0, 29), within(30, 49), within(30, 39)),
  ]);
  const v = studyVerdicts(report);

  it('reports each probe\'s gold − decoy reach with its interval, and a probe no better than its decoy does not reach', () => {
    const d = report.settings.find((s) => s.model === 'D')!;
    expect(d.gold_minus_decoy['random-routes/blocks']).toMatchObject({ diff: 0, mcnemar_p: 1 });
    expect(d.gold_minus_decoy['mcts-routes/blocks']!.diff).toBeCloseTo(10 / N, 12);
    expect(d.gold_minus_decoy['mcts-routes/blocks']!.ci.lo).toBeGreaterThan(0);
    expect(v.reach.sentence).toBe(
      "Against the decoy answer (a wrong answer of the gold's kind), in each of the 2 settings unless a count says otherwise, mcts-routes/blocks reaches the gold beyond it; " +
        "random-routes/blocks is indistinguishable from producing many answers (gold − decoy reach's 95% interval does not exclude 0) and counts as reaching nowhere in this report.",
    );
    expect(v.reach.evidence[0]).toMatch(/^D · t, random-routes\/blocks: gold 33\.3% vs decoy 33\.3%, gold − decoy \+0\.0 points \(95% CI −\d+\.\d to \+\d+\.\d points\): indistinguishable from producing many answers\.$/);
  });

  it('F1: a significant Δ over a side that does not reach says nothing', () => {
    const c = report.settings[0].random_minus_structured['mcts-routes/blocks'];
    expect(c.ci.lo).toBeGreaterThan(0); // random routes reach more questions than the search…
    expect(v.f1.tally).toEqual({ support: 0, no_reach: 2, uninformative: 0, inconclusive: 0, against: 0 }); // …but no more than their decoy
    expect(v.f1.evidence[0]).toMatch(/; uniform routes is indistinguishable from producing many answers\.$/);
  });

  it('F2 carries the collateral and the failure set\'s probe; F3 says whether a ceiling change exceeds the decoy\'s', () => {
    expect(v.f2.sentence).toMatch(/ The same silencing breaks 10 of 10 and 15 of 15 held-out realized questions\. The failure sets come from random-routes\/blocks, which is indistinguishable from producing many answers\.$/);
    const ceiling = report.f3.pairs[0].ceilings['random-routes/blocks'];
    expect([ceiling.base_decoy, ceiling.trained_decoy]).toEqual([20 / N, 20 / N]);
    expect(ceiling.beyond_decoy!.diff).toBeCloseTo(ceiling.diff, 12); // the decoy ceiling did not move
    expect(v.f3.sentence).toMatch(/random-routes\/blocks up, beyond the decoy's change/);
  });

  it('opens with what the study shows and where it cuts against the paper, from the verdicts', () => {
    const [shows, cuts] = v.opening.sentence.split(/(?<=\.) (?=It )/);
    expect(shows).toBe(
      'This study shows that mcts-routes/blocks reaches the gold answer beyond its decoy, while random-routes/blocks is indistinguishable from producing many answers; ' +
        'no search can be judged against its walks, since in every comparison a side does not reach; training D → E raises the deployed accuracy (Δ +16.7 points).',
    );
    // silencing repairs every held-out failure (100%, within the paper's range) and breaks every realized one: as large a share, not larger
    expect(cuts).toBe(
      'It cuts against the paper where route reach here does not exceed decoy reach, so it does not show answers the model holds (Finding 1 reads it as reachability); ' +
        'the ceiling under mcts-routes/blocks rises with training (Finding 3: flat or falling).',
    );
    // random-routes/blocks counts as reaching nowhere: its ceiling is not said to rise
    expect(cuts).not.toMatch(/random-routes\/blocks[^;]*rises/);
  });

  it('says each finding in one plain sentence without run ids or test names, from the same rules', () => {
    const plain = [v.reach.plain, v.f1.plain, v.f2.plain, v.f3.plain];
    for (const p of plain) {
      expect(p).toMatch(/^[A-Z](?:[^.]|\.\d)*\.$/); // one sentence (a full stop only at its end)
      expect(p).not.toMatch(/\/|Holm|McNemar|mcts-routes|random-routes|CI/);
    }
    expect(v.reach.plain).toBe(
      'MCTS routes (blocks) found the right answer more often than a planted wrong one, so it reaches it; random routes (blocks) found both about as often, which shows only that the model can be made to say many answers.',
    );
    expect(v.f1.plain).toBe('In 0 of 2 comparisons, routes chosen without seeing the answer found the right answer at least as often as a search that was told whether it was right; in 2 a side finds wrong answers as often as right ones.');
    expect(v.f2.plain).toMatch(/^Switching off one MLP block \(the one that fixed the most failures on one half, tested on the other half\): for D, layer 2 fixes \d+ of \d+ wrong answers it was not chosen on and breaks 10 of 10 right ones and for E, layer 2 fixes/);
    expect(v.f3.plain).toBe('Training D into E raises the score as deployed (+16.7 points), while the best score a probe can reach rises.');
  });
});

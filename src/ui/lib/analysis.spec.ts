// The screens' numbers for a small hand-built run. Every expected value below is computed by hand
// from the fixture (comments show the arithmetic), not by calling the audit core.

import { describe, expect, it } from 'vitest';
import { NO_DECOY } from '../../audit/decoy';
import { colaMcts } from '../../audit/presets';
import type { Attempt, ProbeSpec, QuestionRecord, RunManifest, SelectorPick } from '../../audit/types';
import type { StoredRun } from '../backend';
import {
  compareRuns, curvePoints, groupByQuestion, layerUsage, numLayersOf, outcomeCounts, probeSeeds, randomVersusStructured, rateRows, reachProbes, runLabel, selectorRows, sharedProbes,
  silencingEffects, silencingOf, summaryOf,
} from './analysis';
import { DEFAULT_CONDITION, blocksSpace } from './presets';

const L = 4;
const D = [0, 1, 2, 3];
const SPECS = {
  deployment: { probe: 'deployment' },
  random: { probe: 'random-routes', space: blocksSpace(L), budget: 4, seed: 1, shared: false },
  mcts: colaMcts(L, 3, 1),
  silencing: { probe: 'mlp-silencing', layers: [0, 1, 2, 3] },
} satisfies Record<string, ProbeSpec>;
type SpecName = keyof typeof SPECS;

const manifest: RunManifest = {
  id: 'run-a',
  appVersion: '0',
  model: { fingerprint: 'fp-a', name: 'model-a', source: 'builtin' },
  task: { id: 't', version: 1, questions: 5, question_seed: 1 },
  condition: DEFAULT_CONDITION,
  condition_key: 'k',
  probes: Object.values(SPECS),
  engine: { ep: 'wasm', dtype: 'f32' },
  startedAt: '',
  status: 'finished',
};

/** attempts given as [route, silence, correct]; selector picks as [name, correct, blind]. */
function rec(doc: string, name: SpecName, attempts: [number[] | null, number[], boolean][], picks: [string, boolean, boolean][] = [], o: Partial<QuestionRecord> = {}): QuestionRecord {
  const spec = SPECS[name];
  const as: Attempt[] = attempts.map(([route, silence, correct], index) => ({ index, route, silence, response: '', extracted: correct ? 'g' : 'x', correct, meanLogprob: -1 }));
  const first = as.findIndex((a) => a.correct);
  const budget = name === 'deployment' ? 0 : name === 'silencing' ? 4 : (spec as { budget: number }).budget;
  const selectors = Object.fromEntries(picks.map(([s, correct, blind]): [string, SelectorPick] => [s, { extracted: correct ? 'g' : 'x', correct, blind, attempt: 0 }]));
  return {
    doc_id: doc, doc: { id: doc, text: `q ${doc}`, target: 'g' }, target: 'g', arguments: { prompt: '' }, resps: [], filtered_resps: [],
    doc_hash: `h-${doc}`, prompt_hash: `p-${doc}`, probe: spec.probe, probe_key: `${spec.probe}:k`, probe_spec: spec, condition_key: 'k', model_fingerprint: 'fp-a',
    task_id: 't', task_version: 1, attempts: as, budget, stop_reason: name === 'deployment' ? null : as.length < budget ? 'space-exhausted' : 'budget',
    first_success: first < 0 ? null : first, realized: name === 'deployment' ? as[0].correct : null, reachable: name === 'deployment' ? null : first >= 0 && first < budget,
    ...NO_DECOY, invalid: 0, selection_saw_gold: name === 'mcts', ...(picks.length ? { selectors } : {}), ...o,
  };
}
const x = (n: number): [number[], number[], boolean][] => Array.from({ length: n }, () => [D, [], false]);
const sil = (correct: boolean[]): [number[], number[], boolean][] => correct.map((c, l) => [D, [l], c]);

const records: QuestionRecord[] = [
  // q1: realized; random routes 2/4 (indexes 0, 2); MCTS first success at 2; silencing layer 2 breaks it
  rec('q1', 'deployment', [[D, [], true]]),
  rec('q1', 'random', [[[0, 1, 3], [], true], [D, [], false], [[0, 1, 1, 2, 3], [], true], [D, [], false]], [['majority', true, true]]),
  rec('q1', 'mcts', [[D, [], false], [D, [], false], [[0, 2, 3], [], true]], [['majority', true, false]]),
  rec('q1', 'silencing', sil([true, true, false, true])),
  // q2: realized; random routes 1/4 (index 1); MCTS nothing
  rec('q2', 'deployment', [[D, [], true]]),
  rec('q2', 'random', [[D, [], false], [[0, 2, 3], [], true], [D, [], false], [D, [], false]], [['majority', true, true]]),
  rec('q2', 'mcts', x(3), [['majority', false, false]]),
  rec('q2', 'silencing', sil([true, true, true, true])),
  // q3: not realized; random routes 1/4 (index 3); MCTS first success at 1; only layer 1 repairs it
  rec('q3', 'deployment', [[D, [], false]]),
  rec('q3', 'random', [[D, [], false], [D, [], false], [D, [], false], [[0, 1, 2, 2, 3], [], true]], [['majority', true, true]]),
  rec('q3', 'mcts', [[D, [], false], [[0, 1, 3], [], true], [D, [], false]], [['majority', true, false]]),
  rec('q3', 'silencing', sil([false, true, false, false])),
  // q4: not realized; random routes 2/4 (indexes 0, 1); MCTS nothing in 2 attempts (its tree ran out); layer 1 repairs it
  rec('q4', 'deployment', [[D, [], false]]),
  rec('q4', 'random', [[[1, 2, 3], [], true], [[0, 1, 2], [], true], [D, [], false], [D, [], false]], [['majority', false, true]]),
  rec('q4', 'mcts', x(2), [['majority', false, false]]),
  rec('q4', 'silencing', sil([false, true, false, false])),
  // q5: not realized and unreachable; silencing layer 3 makes it right, but it is not in the failure set
  rec('q5', 'deployment', [[D, [], false]]),
  rec('q5', 'random', x(4), [['majority', false, true]]),
  rec('q5', 'mcts', x(3), [['majority', false, false]]),
  rec('q5', 'silencing', sil([false, false, false, true])),
];
const run: StoredRun = { manifest, records };
const summary = summaryOf(records);
const probes = reachProbes(summary, records);

describe('question views', () => {
  const questions = groupByQuestion(records);
  it('groups records per question with the deployed answer', () => {
    expect(questions.map((q) => [q.doc_id, q.realized, q.deployed, q.records.length])).toEqual([
      ['q1', true, 'g', 4], ['q2', true, 'g', 4], ['q3', false, 'x', 4], ['q4', false, 'x', 4], ['q5', false, 'x', 4],
    ]);
  });
  it('counts realized, reachable-only and unreachable, under any probe or one', () => {
    expect(outcomeCounts(questions).map((o) => o.count)).toEqual([2, 2, 1]); // q1 q2 | q3 q4 | q5
    expect(outcomeCounts(questions, 'mcts-routes:k').map((o) => o.count)).toEqual([2, 1, 2]); // q1 q2 | q3 | q4 q5
    expect(outcomeCounts(questions, 'sampling:k').map((o) => o.count)).toEqual([2, 0, 3]); // the run has no such probe
  });
});

describe('rates (summarize)', () => {
  it('gives realized, reachable@B and ceiling@B with Wilson intervals', () => {
    const rows = rateRows(summary, probes);
    expect(rows.map((r) => [r.probe, r.measure, r.k, r.n])).toEqual([
      ['deployment', 'realized', 2, 5], // q1 q2
      ['random routes', 'reachable@4', 4, 5], // q1–q4
      ['random routes', 'cover@0.5', 2, 5], // q1 and q4 right on 2 of 4 attempts; q2 and q3 on 1 of 4
      ['random routes', 'ceiling@4', 4, 5],
      ['MCTS routes (CoLa)', 'reachable@3', 2, 5], // q1 q3
      ['MCTS routes (CoLa)', 'cover@0.5', 0, 5], // q1 and q3 right on 1 of 3 attempts
      ['MCTS routes (CoLa)', 'ceiling@3', 3, 5], // q1 q2 realized, q3
    ]);
    // Wilson 95% for 2/5: centre (0.4 + z²/10)/(1 + z²/5) = 0.4435, half-width 0.3258
    expect(rows[0].ci.lo).toBeCloseTo(0.1176, 4);
    expect(rows[0].ci.hi).toBeCloseTo(0.7693, 4);
  });
  it('puts reachable@B and ceiling@B against the decoy beside them, where the questions have decoys', () => {
    // by hand: the deployment attempt says the decoy on q3; random routes first say it at index 1
    // on q1 and at index 3 on q5; MCTS never does
    const firstDecoy: Record<string, number> = { 'q3/deployment': 0, 'q1/random-routes': 1, 'q5/random-routes': 3 };
    const withDecoys = records.map((r): QuestionRecord => {
      const first = firstDecoy[`${r.doc_id}/${r.probe}`] ?? null;
      return { ...r, decoy: 'd', decoy_first_success: first, realized_decoy: r.probe === 'deployment' ? first === 0 : null, reachable_decoy: r.probe === 'deployment' ? null : first !== null && first < r.budget };
    });
    const s = summaryOf(withDecoys);
    const rows = rateRows(s, reachProbes(s, withDecoys));
    expect(rows.map((r) => [r.probe, r.measure, r.k, r.n])).toEqual([
      ['deployment', 'realized', 2, 5],
      ['random routes', 'reachable@4', 4, 5],
      ['random routes', 'reachable@4 (decoy)', 2, 5], // q1 q5
      ['random routes', 'cover@0.5', 2, 5],
      ['random routes', 'ceiling@4', 4, 5],
      ['random routes', 'ceiling@4 (decoy)', 3, 5], // q1 q5, q3 as deployed
      ['MCTS routes (CoLa)', 'reachable@3', 2, 5],
      ['MCTS routes (CoLa)', 'reachable@3 (decoy)', 0, 5],
      ['MCTS routes (CoLa)', 'cover@0.5', 0, 5],
      ['MCTS routes (CoLa)', 'ceiling@3', 3, 5],
      ['MCTS routes (CoLa)', 'ceiling@3 (decoy)', 1, 5], // q3 as deployed
    ]);
    // at matched attempts (3, q4: 2) random says the decoy within them on q1 only (q5's is at 3)
    const [v] = randomVersusStructured(withDecoys, reachProbes(s, withDecoys));
    expect([v.cmp.a.reachable_decoy, v.cmp.b.reachable_decoy]).toEqual([1 / 5, 0]);
    // without decoys (exact-match answers) there are no decoy rows at all
    expect(rows.length - rateRows(summary, probes).length).toBe(4);
    expect([v.cmp.a.reachable_decoy, randomVersusStructured(records, probes)[0].cmp.a.reachable_decoy]).toEqual([0.2, null]);
  });
  it('counts only questions whose deployment record is in', () => {
    const early = rec('q9', 'random', [[[0, 1, 3], [], true], ...x(3)]);
    expect(rateRows(summaryOf([...records, early]), reachProbes(summaryOf([...records, early]), records))).toEqual(rateRows(summary, probes));
  });
  it('reports each selector with accuracy, blindness and retained gain', () => {
    const rows = selectorRows(probes);
    expect(rows.map((s) => [s.probe, s.selector, s.k, s.n, s.blind])).toEqual([
      ['random routes', 'majority', 3, 5, true], // q1 q2 q3
      // not stored: picked at read time; every attempt has log-prob −1, so the first: right on q1 q4
      ['random routes', 'max-logprob', 2, 5, true],
      ['MCTS routes (CoLa)', 'majority', 2, 5, false], // q1 q3, chosen among gold-guided attempts
      ['MCTS routes (CoLa)', 'max-logprob', 0, 5, false], // no MCTS first attempt is right
    ]);
    // (0.6 − 0.4) / (0.8 − 0.4): the selector keeps half of the random routes' gain over realized
    expect(rows[0].retained_gain).toBeCloseTo(0.5, 12);
    // MCTS reaches 0.4 = realized 0.4, but not the same questions: its gain is the questions it
    // reaches that deployment misses (ceiling − realized), and majority, right as often as
    // deployment, keeps none of it
    expect(rows[2].retained_gain).toBe(0);
    // the interval and the note are the summary's (stats.ts retainedGainEstimate, retainedGainNote), as the report shows them
    const sel = summary.probes.map((p) => p.selectors!);
    expect(rows.map((r) => [r.retained_gain_ci, r.retained_gain_note])).toEqual([
      [sel[0].majority.retained_gain_ci, sel[0].majority.retained_gain_note],
      [sel[0]['max-logprob'].retained_gain_ci, sel[0]['max-logprob'].retained_gain_note],
      [sel[1].majority.retained_gain_ci, sel[1].majority.retained_gain_note],
      [sel[1]['max-logprob'].retained_gain_ci, sel[1]['max-logprob'].retained_gain_note],
    ]);
    expect(rows[0].retained_gain_ci!.lo).toBeLessThanOrEqual(0.5);
    expect(rows[0].retained_gain_note).toBe("the selector answers 3 questions correctly, 1 more than deployment's 2, of the 2 the probe reaches beyond deployment");
    // below 0 said as the questions lost
    expect(rows[3].retained_gain).toBeLessThan(0);
    expect(rows[3].retained_gain_note).toMatch(/^below 0: the selector answers 0 questions correctly, 2 fewer than deployment's 2 — choosing blindly among the probe's attempts loses more realized questions than it wins of the \d the probe reaches beyond deployment$/);
  });
  it('reports attempts actually made and exhausted spaces', () => {
    expect(probes.map((p) => [p.label, p.summary.mean_attempts, p.summary.space_exhausted])).toEqual([
      ['random routes', 4, 0],
      ['MCTS routes (CoLa)', (3 + 3 + 3 + 2 + 3) / 5, 1],
    ]);
  });
  it('compares random routes with MCTS at matched attempts', () => {
    // matched attempts = min of the two: q1–q3, q5: 3; q4: 2 (MCTS ran out) → mean 2.8.
    // random reaches within them q1 (0), q2 (1), q4 (0) — q3's first success (3) is past 3 → 3/5;
    // MCTS q1 (2), q3 (1) → 2/5; discordant: random only q2 q4, MCTS only q3
    const [v] = randomVersusStructured(records, probes);
    expect([v.a, v.b]).toEqual(['random routes', 'MCTS routes (CoLa)']);
    expect(v.cmp).toMatchObject({ n: 5, matched_attempts: 2.8, a: { reachable: 3 / 5 }, b: { reachable: 2 / 5 } });
    expect(v.cmp.diff.diff).toBeCloseTo(1 / 5, 12);
    expect(v.cmp.diff.mcnemar).toMatchObject({ b: 1, c: 2 });
  });
  it('draws reachability@k: pass@k over random draws, first success for MCTS', () => {
    const at = (label: string, k: number) => curvePoints(probes).find((p) => p.label === label && p.k === k)!.reach;
    // per question (c of 4 correct): pass@1 = c/4; pass@2 = 1 − C(4−c, 2)/6 → c=2: 5/6, c=1: 1/2
    expect(at('random routes', 1)).toBeCloseTo((0.5 + 0.25 + 0.25 + 0.5 + 0) / 5, 12);
    expect(at('random routes', 2)).toBeCloseTo((5 / 6 + 0.5 + 0.5 + 5 / 6) / 5, 12);
    expect(at('random routes', 4)).toBeCloseTo(4 / 5, 12);
    expect([1, 2, 3].map((k) => at('MCTS routes (CoLa)', k))).toEqual([0, 1 / 5, 2 / 5]);
  });
});

describe('silencing scan (failureSet + scanFromRecords)', () => {
  it('takes reachable-and-not-realized questions only, identifies the layer on one half and judges it on the other', () => {
    const view = silencingOf(records);
    if (!view || !('scan' in view)) throw new Error(`no scan: ${JSON.stringify(view)}`);
    const { scan } = view;
    expect(view.failureProbe).toBe('random routes');
    expect(scan.failure_set.sort()).toEqual(['q3', 'q4']); // q5 is unrealized but unreachable
    expect(scan.realized_set.sort()).toEqual(['q1', 'q2']);
    // whichever failure lands in the identification half, layer 1 alone repairs it
    expect(scan.identification.layer).toBe(1);
    expect(scan.evaluation).toMatchObject({ failures: 1, repaired: 1, rate: 1, collateral: 0, realized: 1 });
    // Wilson 95% for 1/1: lo = (1 + z²/2 − z·z/2)/(1 + z²) = 0.2065
    expect(scan.evaluation.ci.lo).toBeCloseTo(0.2065, 4);
    // in-sample, whole failure set: layer 3 repairs nothing (q5's right answer is not a repair); layer 2 breaks q1
    expect(scan.in_sample.layers.map((l) => [l.layer, l.repaired, l.collateral])).toEqual([[0, 0, 0], [1, 2, 0], [2, 0, 1], [3, 0, 0]]);
  });
  it('takes the failure set from the chosen probe', () => {
    const view = silencingOf(records, 'mcts-routes:k');
    expect(view && 'scan' in view ? view.scan.failure_set : view).toEqual(['q3']);
  });
  it("calls a question repaired or broken only as the scan of the same probe's failure set counts it", () => {
    const q4 = groupByQuestion(records).find((q) => q.doc_id === 'q4')!;
    // q4 is reachable under random routes, not under MCTS: layer 1 repairs a failure of the first
    // scan, and the second does not count it (the question screen used to say "repaired" for both)
    expect(silencingEffects(q4, 'random-routes:k').map((e) => e.effect)).toEqual(['still wrong', 'repaired', 'still wrong', 'still wrong']);
    expect(silencingEffects(q4, 'mcts-routes:k')[1].effect).toBe('correct (not in the failure set: unreachable under MCTS routes (CoLa))');
    // per layer, the questions the screen calls repaired (broken) are the scan's repairs (collateral)
    for (const key of ['random-routes:k', 'mcts-routes:k']) {
      const view = silencingOf(records, key);
      if (!view || !('scan' in view)) throw new Error(`no scan: ${JSON.stringify(view)}`);
      const effects = groupByQuestion(records).map((q) => silencingEffects(q, key));
      const count = (layer: number, effect: string) => effects.filter((e) => e[layer].effect === effect).length;
      expect(view.scan.in_sample.layers.map((l) => [l.repaired, l.collateral])).toEqual(D.map((l) => [count(l, 'repaired'), count(l, 'broken')]));
    }
  });
  it('says what is missing', () => {
    expect(silencingOf(records.filter((r) => r.probe !== 'mlp-silencing'))).toBeNull();
    expect(silencingOf(records.filter((r) => r.probe === 'deployment' || r.probe === 'mlp-silencing'))).toEqual({
      missing: 'The silencing scan needs a reachability probe (random routes, MCTS or sampling) in the same run: its failure set is the questions reachable and not realized.',
    });
    expect(silencingOf(records.filter((r) => !(r.probe === 'mlp-silencing' && r.doc_id === 'q4')))).toEqual({
      missing: 'The silencing scan needs MLP-silencing records of all 2 failure-set and 2 realized questions; 1 have none yet (q4).',
    });
  });
});

describe('routes', () => {
  it('counts layer use per route position over correct route attempts', () => {
    const cells = layerUsage(records);
    const at = (p: number, l: number) => cells.find((c) => c.position === p && c.layer === l)?.count ?? 0;
    // correct routes: 013, 01123, 023, 01223, 123, 012 (random) and 023, 013 (MCTS)
    expect([at(0, 0), at(0, 1), at(1, 1), at(1, 2), at(2, 3), at(2, 2), at(3, 2), at(4, 3)]).toEqual([7, 1, 5, 3, 5, 2, 2, 2]);
    expect(cells.reduce((s, c) => s + c.count, 0)).toBe(3 + 5 + 3 + 5 + 3 + 3 + 3 + 3);
  });
  it('skips attempts whose route is unknown (imported)', () => {
    const imported = rec('q1', 'random', [[null, [], true], [[0, 2], [], true]]);
    expect(layerUsage([imported])).toEqual([{ position: 0, layer: 0, count: 1 }, { position: 1, layer: 2, count: 1 }]);
  });
  it('reads the layer count from a route space, else from known routes and silenced layers', () => {
    expect(numLayersOf(manifest, records)).toBe(4);
    const bare = { ...manifest, probes: [{ probe: 'deployment' } as const] };
    expect(numLayersOf(bare, [rec('q1', 'deployment', [[null, [], true]]), rec('q1', 'silencing', [[null, [5], true]])])).toBe(6);
  });
});

describe('run header', () => {
  it('states one probe seed, or each', () => {
    expect(probeSeeds(manifest.probes)).toBe('1');
    expect(probeSeeds([SPECS.random, colaMcts(L, 3, 2)])).toBe('random routes 1, MCTS routes (CoLa) 2');
    expect(probeSeeds([SPECS.deployment])).toBe('—');
  });
});

describe('checkpoint comparison (conditionDiff + compareRecords)', () => {
  // B: another model. q1 now wrong and unreachable, q3 realized; q5 has other content (other
  // doc_hash) and q6 exists only in B: neither is matched.
  const b = (doc: string, name: SpecName, attempts: [number[], number[], boolean][], o: Partial<QuestionRecord> = {}) => rec(doc, name, attempts, [], { model_fingerprint: 'fp-b', ...o });
  const recordsB = [
    b('q1', 'deployment', [[D, [], false]]), b('q1', 'random', x(4)),
    b('q2', 'deployment', [[D, [], true]]), b('q2', 'random', x(4)),
    b('q3', 'deployment', [[D, [], true]]), b('q3', 'random', x(4)),
    b('q4', 'deployment', [[D, [], false]]), b('q4', 'random', [...x(3), [[0, 1, 3], [], true]]),
    b('q5', 'deployment', [[D, [], true]], { doc_hash: 'h-q5-edited' }), b('q5', 'random', x(4), { doc_hash: 'h-q5-edited' }),
    b('q6', 'deployment', [[D, [], true]]), b('q6', 'random', x(4)),
  ];
  const runB: StoredRun = { manifest: { ...manifest, id: 'run-b', model: { fingerprint: 'fp-b', name: 'model-b', source: 'builtin' } }, records: recordsB };
  const pairs = sharedProbes(records, recordsB);

  it('pairs the reach probes both runs hold', () => {
    expect(pairs).toEqual([{ label: 'random routes', keyA: 'random-routes:k', keyB: 'random-routes:k' }]);
  });
  it('matches questions by doc_id and doc_hash and gives the paired deltas', () => {
    const out = compareRuns(run, runB, pairs[0]);
    if ('refused' in out) throw new Error(out.refused);
    const { cmp } = out;
    expect(cmp.n).toBe(4); // q1–q4
    // deployed: A q1 q2, B q2 q3 → Δ 0, discordant 1 and 1; ceiling: A 4/4, B q2 q3 q4 → Δ −1/4, discordant 1 and 0
    expect([cmp.deployed.diff, cmp.deployed.mcnemar.b, cmp.deployed.mcnemar.c]).toEqual([0, 1, 1]);
    expect([cmp.ceiling.diff, cmp.ceiling.mcnemar.b, cmp.ceiling.mcnemar.c]).toEqual([-0.25, 1, 0]);
    expect(cmp.ceiling.ci.lo).toBeLessThan(-0.25);
    expect(cmp.ceiling.ci.hi).toBeGreaterThan(-0.25);
    expect(cmp.transitions.realized).toEqual({ realized: 1, 'reachable-only': 0, unreachable: 1 });
    expect(cmp.transitions['reachable-only']).toEqual({ realized: 1, 'reachable-only': 1, unreachable: 0 });
    expect(out.labels).toEqual({
      A: 'model-a · f32 · random routes ×4 · blocks · probe seed 1 · question seed 1',
      B: 'model-b · f32 · random routes ×4 · blocks · probe seed 1 · question seed 1',
    });
  });
  it('compares reachable and ceiling against the decoy too, at the same matched attempts', () => {
    // by hand: A's random routes say the decoy first at index 2 on q1; B's deployment says it on q4
    const decoys = (rs: QuestionRecord[], first: Record<string, number>) =>
      rs.map((r): QuestionRecord => {
        const f = first[`${r.doc_id}/${r.probe}`] ?? null;
        return { ...r, decoy: 'd', decoy_first_success: f, realized_decoy: r.probe === 'deployment' ? f === 0 : null, reachable_decoy: r.probe === 'deployment' ? null : f !== null && f < r.budget };
      });
    const out = compareRuns({ ...run, records: decoys(records, { 'q1/random-routes': 2 }) }, { ...runB, records: decoys(recordsB, { 'q4/deployment': 0 }) }, pairs[0]);
    if ('refused' in out) throw new Error(out.refused);
    const { a, b, diff } = out.cmp;
    // over q1–q4: A reaches the decoy on q1 (1/4), its ceiling the same; B reaches it nowhere, its ceiling on q4
    expect([a.reachable_decoy, a.ceiling_decoy, b.reachable_decoy, b.ceiling_decoy]).toEqual([0.25, 0.25, 0, 0.25]);
    expect([diff.reachable_decoy, diff.ceiling_decoy]).toEqual([-0.25, 0]);
    // without decoys: unknown, not zero
    const plain = compareRuns(run, runB, pairs[0]);
    if ('refused' in plain) throw new Error(plain.refused);
    expect([plain.cmp.a.reachable_decoy, plain.cmp.b.ceiling_decoy, plain.cmp.diff.reachable_decoy]).toEqual([null, null, null]);
  });
  it('refuses runs under different conditions, naming the fields', () => {
    const other = { ...runB, manifest: { ...runB.manifest, condition: { ...DEFAULT_CONDITION, maxNewTokens: 99, stopSequences: [] } } };
    expect(compareRuns(run, other, pairs[0])).toEqual({ refused: 'The runs were audited under different conditions: max new tokens, stop sequences differ. A comparison needs one condition.' });
  });
  it('refuses an imported run whose condition is unknown', () => {
    const imported = { ...runB, manifest: { ...runB.manifest, condition: null, engine: null } };
    expect(compareRuns(run, imported, pairs[0])).toEqual({ refused: 'Run B is imported, condition unknown: a comparison needs both runs under one known condition.' });
  });
  it('refuses runs without a probe in common', () => {
    expect(compareRuns(run, runB, undefined)).toEqual({ refused: 'The runs share no reachability probe (random routes, MCTS or sampling of the same kind).' });
  });
  it('tells two runs of one model apart by their id', () => {
    const out = compareRuns(run, { ...run, manifest: { ...manifest, id: 'run-a2' } }, pairs[0]);
    expect('labels' in out && out.labels.B).toBe('model-a · f32 · random routes ×4 · blocks · probe seed 1 · question seed 1 · run run-a2');
  });
  it('names a run by model, dtype, probe, budget and seeds', () => {
    expect(runLabel({ ...run, manifest: { ...manifest, engine: null, task: { ...manifest.task, question_seed: undefined } } }, 'mcts-routes:k')).toBe('model-a · f32 · MCTS routes (CoLa) ×3 · cola · probe seed 1');
  });
});

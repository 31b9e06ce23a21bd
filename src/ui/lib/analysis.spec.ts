import { describe, expect, it } from 'vitest';
import type { Attempt, ProbeName, QuestionRecord, RunManifest } from '../../audit/types';
import { compareRuns, groupByQuestion, layerUsage, numLayersOf, outcomeCounts, rateRows, reachCurve, selectorPoints, silencingScan } from './analysis';
import { DEFAULT_CONDITION, blocksSpace } from './presets';

const L = 4;
const manifest: RunManifest = {
  id: 'r',
  appVersion: '0',
  model: { fingerprint: 'f', name: 'm', source: 'builtin' },
  task: { id: 't', version: 1, questions: 3 },
  condition: DEFAULT_CONDITION,
  condition_key: 'k',
  probes: [
    { probe: 'deployment' },
    { probe: 'random-routes', space: blocksSpace(L), budget: 4, seed: 1, shared: false },
    { probe: 'mcts-routes', space: blocksSpace(L), budget: 3, seed: 1, preset: 'cola', exploration: 1.4, lengthPenalty: 5, randomChildProb: 0.1, simulations: 3, rootBlockEdits: true },
    { probe: 'mlp-silencing', layers: [0, 1, 2, 3] },
  ],
  engine: { ep: 'wasm', dtype: 'f32' },
  startedAt: '',
  status: 'finished',
};

/** attempts given as [route, silence, correct]. */
function rec(doc: string, probe: ProbeName, attempts: [number[], number[], boolean][], extra: Partial<QuestionRecord> = {}): QuestionRecord {
  const as: Attempt[] = attempts.map(([route, silence, correct], index) => ({ index, route, silence, response: '', extracted: correct ? 'g' : 'x', correct, meanLogprob: 0 }));
  const first = as.findIndex((a) => a.correct);
  const spec = manifest.probes.find((p) => p.probe === probe)!;
  const budget = probe === 'deployment' ? 0 : probe === 'mlp-silencing' ? 4 : (spec as { budget: number }).budget;
  return {
    doc_id: doc, doc: { id: doc, text: `q ${doc}`, target: 'g' }, target: 'g', arguments: { prompt: '' }, resps: [], filtered_resps: [],
    doc_hash: `h-${doc}`, prompt_hash: '', probe, probe_key: `${probe}:t`, probe_spec: spec, condition_key: 'k', model_fingerprint: 'f',
    task_id: 't', task_version: 1, attempts: as, budget, first_success: first < 0 ? null : first,
    realized: probe === 'deployment' ? as[0].correct : null, reachable: probe === 'deployment' ? null : first >= 0 && first < budget,
    invalid: 0, selection_saw_gold: probe === 'mcts-routes', ...extra,
  };
}
const D = [0, 1, 2, 3];
const records: QuestionRecord[] = [
  // q1: realized; random routes 2/4 correct; silencing layer 2 breaks it
  rec('q1', 'deployment', [[D, [], true]]),
  rec('q1', 'random-routes', [[[0, 1, 3], [], true], [D, [], false], [[0, 1, 1, 2, 3], [], true], [D, [], false]], { selectors: { majority: { extracted: 'g', correct: true, attempt: 0 } } }),
  rec('q1', 'mlp-silencing', [[D, [0], true], [D, [1], true], [D, [2], false], [D, [3], true]]),
  // q2: not realized, reachable by random routes (1/4, at index 3) and by MCTS at index 1; layer 1 repairs
  rec('q2', 'deployment', [[D, [], false]]),
  rec('q2', 'random-routes', [[D, [], false], [D, [], false], [D, [], false], [[0, 2, 3], [], true]], { selectors: { majority: { extracted: 'x', correct: false, attempt: 0 } } }),
  rec('q2', 'mcts-routes', [[D, [], false], [[0, 1, 3], [], true], [D, [], false]]),
  rec('q2', 'mlp-silencing', [[D, [0], false], [D, [1], true], [D, [2], false], [D, [3], false]]),
  // q3: unreachable
  rec('q3', 'deployment', [[D, [], false]]),
  rec('q3', 'random-routes', [[D, [], false], [D, [], false], [D, [], false], [D, [], false]], { selectors: { majority: { extracted: 'x', correct: false, attempt: 0 } } }),
  rec('q3', 'mcts-routes', [[D, [], false], [D, [], false], [D, [], false]]),
];
const questions = groupByQuestion(records);

describe('analysis', () => {
  it('groups records per question with the deployed answer', () => {
    expect(questions.map((q) => [q.doc_id, q.realized, q.deployed])).toEqual([['q1', true, 'g'], ['q2', false, 'x'], ['q3', false, 'x']]);
  });
  it('counts realized, reachable-only and unreachable', () => {
    expect(outcomeCounts(questions).map((o) => o.count)).toEqual([1, 1, 1]);
    expect(outcomeCounts(questions, 'mcts-routes').map((o) => o.count)).toEqual([1, 1, 1]);
  });
  it('gives rates with Wilson intervals per probe and selector', () => {
    const rows = rateRows(questions);
    expect(rows.map((r) => [r.measure, r.probe, r.k, r.n])).toEqual([
      ['realized', 'deployment', 1, 3],
      ['reachable@4', 'random-routes', 2, 3],
      ['ceiling@4', 'random-routes', 2, 3],
      ['selector: majority', 'random-routes', 1, 3],
      ['reachable@3', 'mcts-routes', 1, 2],
      ['ceiling@3', 'mcts-routes', 1, 2],
    ]);
    expect(rows[0].ci.lo).toBeCloseTo(0.0615, 4);
    expect(rows[0].ci.hi).toBeCloseTo(0.7923, 4);
    expect(selectorPoints(rows)).toEqual([{ probe: 'random-routes', selector: 'majority', k: 4, accuracy: 1 / 3 }]);
  });
  it('estimates reachability@k: pass@k for random routes, first success for MCTS', () => {
    // q1: n=4, c=2 → pass@1 = .5, pass@2 = 1 − 1/6, pass@3 = 1; q2: c=1 → k/4; q3: 0.
    const rr = reachCurve(questions, 'random-routes').map((p) => p.reach);
    expect(rr[0]).toBeCloseTo((0.5 + 0.25) / 3, 12);
    expect(rr[1]).toBeCloseTo((5 / 6 + 0.5) / 3, 12);
    expect(rr[3]).toBeCloseTo(2 / 3, 12);
    expect(reachCurve(questions, 'mcts-routes').map((p) => p.reach)).toEqual([0, 0.5, 0.5]);
    expect(reachCurve(questions, 'sampling')).toEqual([]);
  });
  it('scans silencing: repairs on the failure set, breaks on realized questions, best block', () => {
    const scan = silencingScan(questions);
    expect(scan).toEqual({
      layers: [
        { layer: 0, repaired: 0, broken: 0 },
        { layer: 1, repaired: 1, broken: 0 },
        { layer: 2, repaired: 0, broken: 1 },
        { layer: 3, repaired: 0, broken: 0 },
      ],
      nFailure: 1,
      nRealized: 1,
      best: 1,
    });
  });
  it('counts layer use per route position over correct route attempts', () => {
    const cells = layerUsage(questions);
    const at = (p: number, l: number) => cells.find((c) => c.position === p && c.layer === l)?.count ?? 0;
    // correct routes: [0,1,3], [0,1,1,2,3], [0,2,3] (random), [0,1,3] (mcts)
    expect(at(0, 0)).toBe(4);
    expect(at(1, 1)).toBe(3);
    expect(at(1, 2)).toBe(1);
    expect(at(2, 3)).toBe(3);
    expect(at(4, 3)).toBe(1);
    expect(cells.reduce((s, c) => s + c.count, 0)).toBe(3 + 5 + 3 + 3);
  });
  it('reads the layer count from a route space', () => {
    expect(numLayersOf(manifest, records)).toBe(4);
    expect(numLayersOf({ ...manifest, probes: [{ probe: 'deployment' }] }, records)).toBe(4);
  });
  it('compares checkpoints question by question', () => {
    // B: q1 now unreachable (deployment wrong, nothing reaches), q2 realized, q3 unchanged.
    const b = groupByQuestion([
      rec('q1', 'deployment', [[D, [], false]]),
      rec('q2', 'deployment', [[D, [], true]]),
      rec('q3', 'deployment', [[D, [], false]]),
      rec('q4', 'deployment', [[D, [], true]]),
    ]);
    const cmp = compareRuns(questions, b);
    expect(cmp.shared).toBe(3);
    const t = (from: string, to: string) => cmp.transitions.find((x) => x.from === from && x.to === to)!.count;
    expect([t('realized', 'unreachable'), t('reachable-only', 'realized'), t('unreachable', 'unreachable')]).toEqual([1, 1, 1]);
    expect(cmp.transitions.reduce((s, x) => s + x.count, 0)).toBe(3);
    expect(cmp.bars.map((x) => [x.run, x.measure, x.rate])).toEqual([
      ['A', 'realized', 1 / 3], ['A', 'ceiling', 2 / 3], ['B', 'realized', 1 / 3], ['B', 'ceiling', 1 / 3],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../condition';
import { colaMcts, colaSpace, neighborhoodSpace, programSelectionMcts, randomRoutes } from '../presets';
import { inRouteSpace, routeToString } from '../routes';
import { runAudit } from '../run';
import { seedFor } from '../seeds';
import { FakeEngine } from '../testing/fake-engine';
import type { LoadedTask, QuestionRecord, RouteSpace } from '../types';
import { searchFor, type MctsSpec } from './mcts';

/** Runs one search to its end against a reward oracle; the charged attempts (the default route,
 *  which a program-selection revert may reach, is the deployment attempt), correct ones marked. */
function search(spec: MctsSpec, docId: string, correct: (route: number[]) => boolean, feedReward = true) {
  const s = searchFor(spec, docId);
  const attempts: { route: number[]; correct: boolean }[] = [];
  const deployment = routeToString(Array.from({ length: spec.space.numLayers }, (_, i) => i));
  for (let r = s.propose(); r; r = s.propose()) {
    const ok = correct(r);
    if (routeToString(r) !== deployment) attempts.push({ route: r, correct: ok });
    s.observe(feedReward && ok ? 1 : 0);
  }
  return { s, attempts };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

// Regions of the route space where a scripted engine is right (on a hashed half of the routes
// there, so the search cannot stop learning after one hit).
const L = 24;
const BAND = (l: number) => l >= 8 && l <= 15;
/** cola: every skipped or repeated layer lies in 8..15; neighborhood: every changed position does. */
const bandCola = (r: number[]) => {
  const uses = new Array<number>(L).fill(0);
  for (const l of r) uses[l]++;
  return uses.every((n, l) => n === 1 || BAND(l));
};
const bandNeighborhood = (r: number[]) => r.every((l, p) => l === p || BAND(p));
/** cola: layer 12 is skipped; neighborhood: position 12 runs another layer. */
const skip12 = (r: number[]) => !r.includes(12);
const moved12 = (r: number[]) => r[12] !== 12;
const half = (r: number[], salt: string) => seedFor(routeToString(r), salt) % 2 === 0;

const PRESETS: [string, (B: number, seed: number) => MctsSpec, RouteSpace, { band: (r: number[]) => boolean; edit12: (r: number[]) => boolean }][] = [
  ['CoLa', (B, seed) => colaMcts(L, B, seed) as MctsSpec, colaSpace(L), { band: bandCola, edit12: skip12 }],
  ['program selection', (B, seed) => programSelectionMcts(L, B, seed) as MctsSpec, neighborhoodSpace(L), { band: bandNeighborhood, edit12: moved12 }],
];

describe('MCTS spends exactly its budget in distinct attempts', () => {
  it.each([
    ['CoLa', colaMcts(8, 64, 3) as MctsSpec],
    ['program selection', programSelectionMcts(8, 64, 3) as MctsSpec],
  ])('%s on an 8-layer model: B = 64 distinct routes of its space, stop reason "budget", whatever the rewards', (_, spec) => {
    for (const reward of [() => false, () => true, (r: number[]) => r.length % 2 === 0]) {
      const { s, attempts } = search(spec, 'q1', reward);
      const keys = attempts.map((a) => routeToString(a.route));
      expect(keys).toHaveLength(64);
      expect(new Set(keys).size).toBe(64);
      expect(attempts.every((a) => inRouteSpace(spec.space, a.route))).toBe(true);
      expect(s.stopReason).toBe('budget');
    }
  });
});

describe('MCTS at realistic depth (24 layers): the reward steers, non-root nodes are evaluated', () => {
  const questions = Array.from({ length: 40 }, (_, i) => `q${i}`);

  it.each(PRESETS)('%s evaluates routes below the root (not only single edits)', (_, make, space) => {
    const spec = make(100, 1);
    const { s, attempts } = search(spec, 'q1', () => false);
    expect(s.depths.some((d) => d >= 2)).toBe(true);
    expect(attempts.every((a) => inRouteSpace(space, a.route))).toBe(true);
  });

  // The same search fed the gold reward vs fed 0 everywhere: only the reward differs, so more
  // correct attempts with it means the reward moved the search.
  it.each(PRESETS)('%s: fed the gold reward it makes more correct attempts than the same search fed none', (_, make, __, regions) => {
    for (const region of [regions.edit12, regions.band]) {
      const spec = make(100, 1);
      const correct = (q: string) => (r: number[]) => region(r) && half(r, q);
      const guided = mean(questions.map((q) => search(spec, q, correct(q)).attempts.filter((a) => a.correct).length));
      const blind = mean(questions.map((q) => search(spec, q, correct(q), false).attempts.filter((a) => a.correct).length));
      expect(guided).toBeGreaterThan(blind);
    }
  });
});

describe('MCTS vs random routes when the reward is informative (24 layers)', () => {
  // Right only on a hashed half of the band region. A binary gold reward is 0 everywhere until
  // the first hit, so it cannot speed up that hit; it steers what the search does after it.
  // "Finding the region" is therefore measured as attempts until the 3rd correct answer (B + 1
  // when fewer), averaged over 40 questions and two probe seeds.
  const docs = Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, text: `${i % 10}+0=`, target: String(i % 10) }));
  const task: LoadedTask = {
    spec: { id: 'test:region', name: 'region', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 40, numTrain: 0 },
    test: docs,
    train: [],
  };
  const cond = defaultCondition({ ...task.spec, id: 'builtin:region' }, 'f32');
  const thirdSuccess = (r: QuestionRecord) => r.attempts.filter((a) => a.correct)[2]?.index ?? r.budget;

  it.each(PRESETS)('%s reaches its 3rd correct answer in fewer attempts, and makes more correct attempts', async (_, make, space, regions) => {
    const answer = (q: { prompt: string; route: number[] }) => (regions.band(q.route) && half(q.route, q.prompt) ? q.prompt[0] : 'x');
    const B = 100;
    const at3 = { mcts: [] as number[], random: [] as number[] };
    const hits = { mcts: [] as number[], random: [] as number[] };
    for (const seed of [1, 2]) {
      for (const [name, spec] of [['mcts', make(B, seed)], ['random', randomRoutes(space, B, seed)]] as const) {
        const res = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes: [spec] });
        for (const r of res.records) {
          expect(r.attempts).toHaveLength(B);
          at3[name].push(thirdSuccess(r) + 1);
          hits[name].push(r.attempts.filter((a) => a.correct).length);
        }
      }
    }
    expect(mean(at3.mcts)).toBeLessThan(mean(at3.random));
    expect(mean(hits.mcts)).toBeGreaterThan(mean(hits.random));
  });
});

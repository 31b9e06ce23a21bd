import { describe, expect, it } from 'vitest';
import { bindFewShotPool, defaultCondition, recordKey } from './condition';
import { colaMcts, colaSpace, depthMatchedRoutes } from './presets';
import { depthProfile } from './probes/mcts';
import { inRouteSpace, routeToString } from './routes';
import { auditRecords, runAudit } from './run';
import { questionRoutes } from './probes/random-routes';
import { sharedRoutes } from './probes/route-draws';
import { seedFor } from './seeds';
import { summarize } from './summary';
import { FakeEngine, type FakeQuery } from './testing/fake-engine';
import { EngineError } from '../engine/types';
import type { Doc, LoadedTask, ProbeSpec, RouteSpace } from './types';

const L = 4;
const docs: Doc[] = [
  { id: 'q1', text: '1+1=', target: '2' },
  { id: 'q2', text: '2+2=', target: '4' },
  { id: 'q3', text: '3+3=', target: '6' },
];
const train: Doc[] = Array.from({ length: 6 }, (_, i) => ({ id: `t${i}`, text: `${i}+0=`, target: String(i) }));
const task: LoadedTask = {
  spec: { id: 'test:toy', name: 'toy', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 3, numTrain: 6 },
  test: docs,
  train,
};
const cond = defaultCondition({ ...task.spec, id: 'builtin:toy' }, 'f32');
// 14 routes: skip 1 or 2 adjacent layers (4 + 3), repeat 1 or 2 (4 + 3)
const space: RouteSpace = { kind: 'blocks', numLayers: L, minLen: 1, maxLen: 8, maxBlock: 2, maxEdits: 1 };
const REPEAT1 = '0,1,1,2,3';
const gold = (prompt: string) => String(2 * Number(prompt[0]));
const isDefault = (q: FakeQuery) => routeToString(q.route) === '0,1,2,3' && q.silence.length === 0;

describe('deployment and random-routes', () => {
  it('charges B distinct routes, keeps realized apart, and gives k/14 reachability for one good route in 14', async () => {
    // deployment right only for q2; any question is right under the route repeating layer 1
    const engine = new FakeEngine({
      numLayers: L,
      answer: (q) => (isDefault(q) ? (q.prompt === '2+2=' ? '4' : '0') : routeToString(q.route) === REPEAT1 ? gold(q.prompt) : '9'),
    });
    const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 14, seed: 5, shared: false }];
    const res = await runAudit(engine, { task, condition: cond, probes, questions: 2 });
    expect(engine.rowsRequested).toBe(2 + 2 * 14);
    // one call for deployment, one for both questions' 28 routes (group of floor(64/14) = 4 questions)
    expect(engine.calls.map((c) => c.rows)).toEqual([2, 28]);
    const [d1, d2, r1, r2] = res.records;
    expect([d1.probe, d1.budget, d1.realized, d1.reachable, d1.attempts.length]).toEqual(['deployment', 0, false, null, 1]);
    expect(d2.realized).toBe(true);
    for (const r of [r1, r2]) {
      expect(r.budget).toBe(14);
      expect(r.attempts).toHaveLength(14);
      expect(new Set(r.attempts.map((a) => routeToString(a.route!))).size).toBe(14);
      expect(r.attempts.every((a) => inRouteSpace(space, a.route!))).toBe(true);
      expect(r.realized).toBeNull();
      expect(r.reachable).toBe(true);
      expect(r.first_success).toBe(r.attempts.findIndex((a) => routeToString(a.route!) === REPEAT1));
      expect(r.selection_saw_gold).toBe(false);
      expect(r.route_draw).toBe('per-question');
    }
    // per-question draws differ between questions (same set: the space has 14 routes; order differs)
    expect(r1.attempts.map((a) => routeToString(a.route!))).not.toEqual(r2.attempts.map((a) => routeToString(a.route!)));
    const s = res.summary;
    expect(s.realized).toBe(0.5);
    const p = s.probes[0];
    expect(p.reachable).toBe(1);
    expect(p.ceiling).toBe(1);
    expect(p.reach_at_k).toHaveLength(14);
    p.reach_at_k.forEach((v, k) => expect(v).toBeCloseTo((k + 1) / 14, 12));
  });

  it('a shared route set runs route-major across questions and is recorded as shared', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: (q) => (q.route[0] === 1 ? gold(q.prompt) : 'x') });
    const spec: ProbeSpec = { probe: 'random-routes', space, budget: 5, seed: 2, shared: true };
    const res = await runAudit(engine, { task, condition: cond, probes: [spec] });
    const routes = sharedRoutes(spec).map(routeToString);
    // rows: route 0 for q1,q2,q3, then route 1 for q1,q2,q3, ...
    expect(engine.generated.map((g) => `${routeToString(g.route)}|${g.prompt}`)).toEqual(routes.flatMap((r) => docs.map((d) => `${r}|${d.text}`)));
    for (const r of res.records) {
      expect(r.route_draw).toBe('shared');
      expect(r.attempts.map((a) => routeToString(a.route!))).toEqual(routes);
      // skip-layer-0 routes ("1,2,3", "1,1,2,3"? no: skips start at 0 → route starts with 1 or 2)
      const c = routes.filter((x) => x.startsWith('1')).length;
      expect(r.attempts.filter((a) => a.correct).length).toBe(c);
    }
    // a question's shared draw does not depend on the question
    expect(questionRoutes(spec, 'anything').map(routeToString)).toEqual(routes);
  });

  it('a budget larger than the space draws the whole space once and says the space was exhausted', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: () => '0' });
    const probes: ProbeSpec[] = [{ probe: 'random-routes', space, budget: 15, seed: 1, shared: false }];
    const res = await runAudit(engine, { task, condition: cond, probes, questions: 1 });
    const [r] = res.records;
    expect(r.budget).toBe(15);
    expect(r.attempts).toHaveLength(14);
    expect(new Set(r.attempts.map((a) => routeToString(a.route!))).size).toBe(14);
    expect(r.stop_reason).toBe('space-exhausted');
    expect(res.summary.probes[0]).toMatchObject({ mean_attempts: 14, space_exhausted: 1 });
    const exact = await runAudit(engine, { task, condition: cond, probes: [{ ...probes[0], budget: 14 } as ProbeSpec], questions: 1 });
    expect(exact.records[0].stop_reason).toBe('budget');
  });
});

describe('sampling', () => {
  it('draws k = B seeded samples on the default route and matches the hand-computed pass@k', async () => {
    const spec: ProbeSpec = { probe: 'sampling', budget: 4, temperature: 0.6, topP: 0.95, seed: 9 };
    const sampleIndex = new Map<number, number>();
    for (const d of docs) for (let i = 0; i < 4; i++) sampleIndex.set(seedFor(9, d.id, i), i);
    // q1: samples say 5, 5, 2 (right), 7 with log-probs making the right one the most likely; q2: all wrong
    const engine = new FakeEngine({
      numLayers: L,
      answer: (q) => {
        if (q.sampling.kind !== 'sample') throw new Error('sampling probe must sample');
        expect([q.sampling.temperature, q.sampling.topP]).toEqual([0.6, 0.95]);
        expect(isDefault(q)).toBe(true);
        const i = sampleIndex.get(q.sampling.seed)!;
        if (q.prompt === '1+1=') return [{ text: '5', logprob: -2 }, { text: '5', logprob: -2 }, { text: '2', logprob: -0.1 }, { text: '7', logprob: -3 }][i];
        return { text: 'nope', logprob: -1 };
      },
    });
    const res = await runAudit(engine, { task, condition: cond, probes: [spec], questions: 2, selectors: ['majority', 'max-logprob'] });
    const [r1, r2] = res.records;
    expect(r1.attempts.map((a) => a.sample)).toEqual([0, 1, 2, 3]);
    expect(r1.first_success).toBe(2);
    expect(r2.first_success).toBeNull();
    expect(r2.invalid).toBe(4);
    expect(r1.selectors).toEqual({
      majority: { extracted: '5', correct: false, blind: true, attempt: 0 },
      'max-logprob': { extracted: '2', correct: true, blind: true, attempt: 2 },
    });
    expect(r1.stop_reason).toBe('budget');
    // q1: c=1, n=4 → 1/4, 1/2, 3/4, 1; q2: 0 → mean
    const want = [1 / 8, 1 / 4, 3 / 8, 1 / 2];
    res.summary.probes[0].reach_at_k.forEach((v, k) => expect(v).toBeCloseTo(want[k], 12));
    // no deployment records in this run: no realized to measure a gain against
    expect(res.summary.probes[0].selectors).toEqual({
      majority: { accuracy: 0, blind: true, retained_gain: null, retained_gain_ci: null, retained_gain_reason: 'no deployment record to compare against', retained_gain_note: 'no deployment record to compare against', n: 2, correct: 0 },
      'max-logprob': { accuracy: 0.5, blind: true, retained_gain: null, retained_gain_ci: null, retained_gain_reason: 'no deployment record to compare against', retained_gain_note: 'no deployment record to compare against', n: 2, correct: 1 },
    });
  });

  it("retained gain = (selector − realized) / (reachable − realized) over the probe's questions", async () => {
    // deployment right on q1 only; samples: q1, q2 all right; q3 [right, 7, 7]; q4 never right
    // → realized 1/4, reachable 3/4, majority right on q1, q2 → 2/4, retained (2/4 − 1/4)/(3/4 − 1/4) = 1/2
    const four: LoadedTask = { ...task, test: [...docs, { id: 'q4', text: '4+4=', target: '8' }] };
    const sampleIndex = new Map<number, number>();
    for (const d of four.test) for (let i = 0; i < 3; i++) sampleIndex.set(seedFor(4, d.id, i), i);
    const engine = new FakeEngine({
      numLayers: L,
      answer: (q) => {
        const id = Number(q.prompt[0]);
        if (q.sampling.kind === 'greedy') return id === 1 ? gold(q.prompt) : 'x';
        const i = sampleIndex.get(q.sampling.seed)!;
        if (id === 3) return i === 0 ? gold(q.prompt) : '7';
        return id === 4 ? 'y' : gold(q.prompt);
      },
    });
    const res = await runAudit(engine, {
      task: four,
      condition: cond,
      probes: [{ probe: 'deployment' }, { probe: 'sampling', budget: 3, temperature: 1, topP: 1, seed: 4 }],
      selectors: ['majority'],
    });
    const p = res.summary.probes[0];
    expect(p).toMatchObject({ realized: 0.25, reachable: 0.75, ceiling: 0.75, joined: 4, counts: { realized: 1, reachable: 3, ceiling: 3 } });
    expect(p.selectors!.majority).toMatchObject({ accuracy: 0.5, blind: true, retained_gain: 0.5, retained_gain_reason: null, n: 4, correct: 2 });
    // its paired bootstrap interval holds the estimate
    const ci = p.selectors!.majority.retained_gain_ci!;
    expect(ci.lo).toBeLessThanOrEqual(0.5);
    expect(ci.hi).toBeGreaterThanOrEqual(0.5);
  });
});

describe('mcts-routes', () => {
  const space2 = colaSpace(L); // lengths 3..5
  const TARGET = '1,2,3,3'; // skip layer 0 and repeat layer 3: two actions, depth 2 in the tree
  const mcts = (budget: number): ProbeSpec => colaMcts(L, budget, 4);

  it('evaluates distinct routes, finds a depth-2 route, and records the first-success curve', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: (q) => (routeToString(q.route) === TARGET ? gold(q.prompt) : '0') });
    const res = await runAudit(engine, { task, condition: cond, probes: [mcts(40)] });
    expect(engine.rowsRequested).toBe(res.records.reduce((s, r) => s + r.attempts.length, 0));
    // lockstep: every engine call carries one route per question still searching
    expect(engine.calls[0].rows).toBe(3);
    for (const r of res.records) {
      const keys = r.attempts.map((a) => routeToString(a.route!));
      expect(new Set(keys).size).toBe(keys.length);
      expect(r.attempts.every((a) => inRouteSpace(space2, a.route!))).toBe(true);
      expect(r.selection_saw_gold).toBe(true);
      // CoLa leaves a node unevaluated once it has children, so the tree may pass TARGET by
      const at = keys.indexOf(TARGET);
      expect(r.first_success).toBe(at < 0 ? null : at);
      if (at >= 0) expect(r.attempts[at].depth).toBe(2);
    }
    expect(res.records.some((r) => r.reachable)).toBe(true);
    // the empirical curve: question i contributes 1 from k = first_success + 1 on
    const fs = res.records.map((r) => r.first_success ?? Infinity);
    res.summary.probes[0].reach_at_k.forEach((v, k) => expect(v).toBeCloseTo(fs.filter((f) => f < k + 1).length / 3, 12));
  });

  it('a reward that differs on one question (a near-tied greedy token read differently by another engine build) changes that question\'s search only', async () => {
    // the bound of where-it-ran differences: each question's tree has its own seeded RNG and its own
    // rewards, so a flipped reward diverges one question's attempts, never another's
    const base = (q: FakeQuery) => (routeToString(q.route) === TARGET ? gold(q.prompt) : '0');
    const a = await runAudit(new FakeEngine({ numLayers: L, answer: base }), { task, condition: cond, probes: [mcts(12)] });
    const q2 = a.records.find((r) => r.doc_id === 'q2')!;
    const flipped = routeToString(q2.attempts[1].route!); // its second attempt, wrong in run a, right in run b
    const b = await runAudit(new FakeEngine({ numLayers: L, answer: (q) => (q.prompt.startsWith('2') && routeToString(q.route) === flipped ? gold(q.prompt) : base(q)) }), {
      task,
      condition: cond,
      probes: [mcts(12)],
    });
    const attempts = (r: (typeof a.records)[number]) => r.attempts.map((x) => [routeToString(x.route!), x.correct, x.depth]);
    for (const id of ['q1', 'q3']) expect(attempts(b.records.find((r) => r.doc_id === id)!)).toEqual(attempts(a.records.find((r) => r.doc_id === id)!));
    expect(attempts(b.records.find((r) => r.doc_id === 'q2')!)).not.toEqual(attempts(q2));
  });

  it('spends exactly its budget whatever it finds, and says so', async () => {
    for (const answer of [() => '0', (q: FakeQuery) => gold(q.prompt)]) {
      const res = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes: [mcts(9)] });
      for (const r of res.records) {
        expect(r.attempts).toHaveLength(9);
        expect(r.stop_reason).toBe('budget');
      }
    }
  });

  it('selectors over its gold-guided attempts are reported as not answer-blind; the fixed route stays blind', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: (q) => (routeToString(q.route) === TARGET ? gold(q.prompt) : '0') });
    const res = await runAudit(engine, { task, condition: cond, probes: [{ probe: 'deployment' }, mcts(6)], selectors: ['majority', 'max-logprob', 'fixed-route'] });
    for (const r of res.records.filter((x) => x.probe === 'mcts-routes')) {
      expect(r.selectors!.majority.blind).toBe(false);
      expect(r.selectors!['max-logprob'].blind).toBe(false);
      expect(r.selectors!['fixed-route'].blind).toBe(true);
    }
    const sel = res.summary.probes[0].selectors!;
    expect([sel.majority.blind, sel['max-logprob'].blind, sel['fixed-route'].blind]).toEqual([false, false, true]);
    expect(res.summary.probes[0].selection_saw_gold).toBe(true);
  });
});

describe('depth-matched-routes', () => {
  const answer = (q: FakeQuery) => (routeToString(q.route) === '1,2,3,3' ? gold(q.prompt) : '0');
  const mcts = colaMcts(L, 6, 4) as Extract<ProbeSpec, { probe: 'mcts-routes' }>;

  it("walks at the run's pooled MCTS depths, never sees the gold answer, and is bound to that MCTS probe and question set", async () => {
    const res = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes: [{ probe: 'deployment' }, depthMatchedRoutes(mcts), mcts] });
    const tree = res.records.filter((r) => r.probe === 'mcts-routes');
    const walks = res.records.filter((r) => r.probe === 'depth-matched-routes');
    expect(walks).toHaveLength(3);
    const profile = depthProfile(tree.flatMap((r) => r.attempts.map((a) => a.depth!)));
    for (const r of walks) {
      expect(r.depth_profile).toEqual(profile);
      expect(r.selection_saw_gold).toBe(false);
      expect(r.attempts.every((a) => inRouteSpace(space2Of(L), a.route!) && a.depth! >= 1)).toBe(true);
      expect(r.probe_spec).toMatchObject({ probe: 'depth-matched-routes', preset: 'cola', matched: { mcts_probe_key: tree[0].probe_key } });
    }
    // another question set is another depth profile, so another probe key
    const two = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes: [mcts, depthMatchedRoutes(mcts)], questions: 2 });
    expect(two.records.find((r) => r.probe === 'depth-matched-routes')!.probe_key).not.toBe(walks[0].probe_key);
  });

  it('reads the depths of stored MCTS records it skips, and draws the same walks', async () => {
    const probes = [mcts, depthMatchedRoutes(mcts)];
    const fresh = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes });
    const stored = new Map(fresh.records.filter((r) => r.probe === 'mcts-routes').map((r) => [recordKey(r), r]));
    const resumed = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes, skip: (k) => stored.has(k), stored: (k) => stored.get(k) });
    expect(resumed.skipped).toBe(3);
    expect(resumed.records).toEqual(fresh.records.filter((r) => r.probe === 'depth-matched-routes'));
    await expect(runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes, skip: (k) => stored.has(k) })).rejects.toThrow(/reads the stored mcts-routes record of question q1/);
  });

  it('needs an MCTS probe of its preset and space in the same audit', async () => {
    await expect(runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes: [depthMatchedRoutes(mcts)] })).rejects.toThrow(/add mcts-routes with preset cola/);
  });
});

const space2Of = (layers: number) => colaSpace(layers);

describe('mlp-silencing probe and loglik multiple choice', () => {
  it('silences one layer per attempt under deployment', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: (q) => (q.silence[0] === 2 ? gold(q.prompt) : '0') });
    const res = await runAudit(engine, { task, condition: cond, probes: [{ probe: 'mlp-silencing', layers: [0, 1, 2, 3] }], questions: 1 });
    const [r] = res.records;
    expect(r.attempts.map((a) => [routeToString(a.route!), a.silence, a.correct])).toEqual([
      ['0,1,2,3', [0], false],
      ['0,1,2,3', [1], false],
      ['0,1,2,3', [2], true],
      ['0,1,2,3', [3], false],
    ]);
    expect(r.first_success).toBe(2);
  });

  it('scores option letters and picks the most likely one', async () => {
    const mcTask: LoadedTask = {
      spec: { id: 'test:mc', name: 'mc', answerFormat: 'mc-letter', mcMode: 'loglik', promptTemplate: '{{question}}\n{{choices}}\nAnswer:', metadata: { version: 1 }, numTest: 1, numTrain: 0 },
      test: [{ id: 'm1', text: 'Pick 2+2', target: 'C', choices: ['3', '5', '4'] }],
      train: [],
    };
    const mcCond = defaultCondition({ ...mcTask.spec }, 'f32');
    expect(mcCond.mcMode).toBe('loglik');
    const seen: string[] = [];
    const engine = new FakeEngine({
      numLayers: L,
      answer: () => 'unused',
      score: (q) => {
        seen.push(q.continuation);
        // default route prefers B; the route skipping layer 0 prefers C
        const want = q.route[0] === 0 ? ' B' : ' C';
        return q.continuation === want ? -0.2 : -3;
      },
    });
    const res = await runAudit(engine, {
      task: mcTask,
      condition: mcCond,
      probes: [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 14, seed: 1, shared: false }],
    });
    expect(seen.slice(0, 3)).toEqual([' A', ' B', ' C']);
    // " B" is two fake tokens: its mean token log-prob is −0.2 / 2
    expect(res.records[0].attempts[0]).toMatchObject({ response: 'loglik', extracted: 'B', correct: false, meanLogprob: -0.1 });
    const routes = res.records[1].attempts;
    expect(routes.filter((a) => a.correct).map((a) => a.route![0] !== 0)).toEqual(routes.filter((a) => a.route![0] !== 0).map(() => true));
    expect(engine.calls.every((c) => c.method === 'score')).toBe(true);
    await expect(
      runAudit(engine, { task: mcTask, condition: mcCond, probes: [{ probe: 'sampling', budget: 2, temperature: 1, topP: 1, seed: 1 }] }),
    ).rejects.toThrow(/sampling probe needs generated answers/);
  });
});

describe('fixed-route selector', () => {
  it('chooses the best route on train with gold and applies it blind on test', async () => {
    const spec: ProbeSpec = { probe: 'random-routes', space, budget: 6, seed: 3, shared: true };
    const routes = sharedRoutes(spec).map(routeToString);
    const good = routes[4];
    // train: `good` right on every train question, routes[1] on half; test: `good` right on q1 only
    const engine = new FakeEngine({
      numLayers: L,
      answer: (q) => {
        const r = routeToString(q.route);
        const t = q.prompt.endsWith('+0=');
        const right = t ? q.prompt[0] : gold(q.prompt);
        if (t) return r === good || (r === routes[1] && Number(q.prompt[0]) % 2 === 0) ? right : 'x';
        return r === good && q.prompt === '1+1=' ? right : 'x';
      },
    });
    const res = await runAudit(engine, { task, condition: cond, probes: [spec], selectors: ['fixed-route', 'majority'] });
    const cal = Object.values(res.calibration)[0];
    expect(routeToString(cal.route)).toBe(good);
    expect(cal).toMatchObject({ accuracy: 1, n: 6 });
    expect(res.records.map((r) => r.selectors!['fixed-route'])).toEqual([
      { extracted: '2', correct: true, blind: true, attempt: 4, route: cal.route },
      { extracted: '[invalid]', correct: false, blind: true, attempt: 4, route: cal.route },
      { extracted: '[invalid]', correct: false, blind: true, attempt: 4, route: cal.route },
    ]);
    expect(res.summary.probes[0].selectors!['fixed-route'].accuracy).toBeCloseTo(1 / 3, 12);
    // calibration rows (6 routes × 6 train) are not charged to any record's budget
    expect(res.records.every((r) => r.attempts.length === 6)).toBe(true);
    expect(engine.rowsRequested).toBe(36 + 18);
  });
});

describe('reproducibility, skipping and cancelling', () => {
  const probes: ProbeSpec[] = [
    { probe: 'deployment' },
    { probe: 'random-routes', space, budget: 8, seed: 11, shared: false },
    { probe: 'sampling', budget: 3, temperature: 0.7, topP: 0.9, seed: 2 },
  ];
  const answer = (q: FakeQuery) => String((q.route.length * 7 + (q.sampling.kind === 'sample' ? q.sampling.seed % 5 : 0)) % 9);

  it('same inputs and seeds give byte-identical records', async () => {
    const a = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes });
    const b = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes, rowsPerCall: 5 });
    expect(JSON.stringify(b.records)).toBe(JSON.stringify(a.records));
    // a subset of questions gets the same per-question records
    const c = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes, docs: [docs[2]] });
    expect(JSON.stringify(c.records)).toBe(JSON.stringify(a.records.filter((r) => r.doc_id === 'q3')));
  });

  it('skips stored keys and emits the rest as they complete', async () => {
    const first = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes });
    const stored = new Set(first.records.filter((r) => r.doc_id !== 'q2').map(recordKey));
    const engine = new FakeEngine({ numLayers: L, answer });
    const seen: string[] = [];
    const res = await runAudit(engine, { task, condition: cond, probes, skip: (k) => stored.has(k), onRecord: (r) => void seen.push(`${r.probe}/${r.doc_id}`) });
    expect(seen).toEqual(['deployment/q2', 'random-routes/q2', 'sampling/q2']);
    expect(res.skipped).toBe(6);
    expect(engine.rowsRequested).toBe(1 + 8 + 3);
    expect(JSON.stringify(res.records)).toBe(JSON.stringify(first.records.filter((r) => r.doc_id === 'q2')));
  });

  it('records and runs are addressed by content: a same-named task with other questions shares nothing', async () => {
    const first = await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes });
    // same task id, same doc ids, one question's text changed
    const other: LoadedTask = { ...task, test: docs.map((d) => (d.id === 'q2' ? { ...d, text: '5+5=', target: '10' } : d)) };
    const stored = new Set(first.records.map(recordKey));
    const engine = new FakeEngine({ numLayers: L, answer });
    const second = await runAudit(engine, { task: other, condition: cond, probes, skip: (k) => stored.has(k) });
    expect(second.run_key).not.toBe(first.run_key);
    expect(second.records.map((r) => `${r.probe}/${r.doc_id}`)).toEqual(['deployment/q2', 'random-routes/q2', 'sampling/q2']);
    expect(second.records[0].doc.text).toBe('5+5=');
    // the unchanged questions are the same content: reused under the same keys
    expect(second.skipped).toBe(6);
    expect(second.questions.map((q) => q.doc_id)).toEqual(['q1', 'q2', 'q3']);
    // the same content gives the same run key
    expect((await runAudit(new FakeEngine({ numLayers: L, answer }), { task, condition: cond, probes })).run_key).toBe(first.run_key);
  });

  it('an n-shot condition must name its few-shot pool, and the pool must be the task\'s train split', async () => {
    const engine = new FakeEngine({ numLayers: L, answer });
    const twoShot = { ...cond, fewShot: { ...cond.fewShot, n: 2 } };
    await expect(runAudit(engine, { task, condition: twoShot, probes })).rejects.toThrow(/does not name their pool/);
    const bound = await bindFewShotPool(twoShot, train.slice(0, 4));
    await expect(runAudit(engine, { task, condition: bound, probes })).rejects.toThrow(/not this task's train split/);
    const ok = await runAudit(engine, { task, condition: await bindFewShotPool(twoShot, train), probes: [{ probe: 'deployment' }] });
    expect(ok.records).toHaveLength(3);
  });

  it('the generator yields records one at a time; an aborted signal stops with "cancelled"', async () => {
    const engine = new FakeEngine({ numLayers: L, answer });
    const gen = auditRecords(engine, { task, condition: cond, probes: [{ probe: 'deployment' }], rowsPerCall: 1 });
    const r1 = await gen.next();
    expect((r1.value as { doc_id: string }).doc_id).toBe('q1');
    expect(engine.rowsRequested).toBe(1);
    await gen.return(undefined);
    const ac = new AbortController();
    ac.abort();
    await expect(runAudit(engine, { task, condition: cond, probes, signal: ac.signal })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('names bad setups', async () => {
    const engine = new FakeEngine({ numLayers: L, answer });
    await expect(runAudit(engine, { task, condition: { ...cond, engineDtype: 'q4' }, probes })).rejects.toThrow(/engine dtype q4 but the engine runs f32/);
    await expect(runAudit(engine, { task, condition: cond, probes: [{ probe: 'deployment' }, { probe: 'deployment' }] })).rejects.toThrow(/listed twice/);
    await expect(
      runAudit(engine, { task, condition: cond, probes: [{ probe: 'random-routes', space: { ...space, numLayers: 6 } as RouteSpace, budget: 2, seed: 1, shared: false }] }),
    ).rejects.toThrow(/route space has 6 layers; the model has 4/);
    await expect(runAudit(engine, { task, condition: { ...cond, promptTemplate: 'Q:' }, probes })).rejects.toThrow("condition.promptTemplate: expected a string of at most 20000 characters containing {{question}}, got \"Q:\"");
    await expect(runAudit(engine, { task, condition: cond, probes: [{ probe: 'mlp-silencing', layers: [4] }] })).rejects.toThrow(/layer 4 is outside 0..3/);
  });

  it('summaries refuse mixed conditions', () => {
    expect(() =>
      summarize([
        { condition_key: 'a' } as never,
        { condition_key: 'b' } as never,
      ]),
    ).toThrow(/2 conditions/);
  });
});

describe('progress within a question', () => {
  it('reports attempts decoded after each engine call, before the record is made', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: () => '0' });
    const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'sampling', budget: 10, temperature: 0.6, topP: 0.95, seed: 1 }];
    const seen: string[] = [];
    await runAudit(engine, {
      task,
      condition: cond,
      probes,
      questions: 1,
      rowsPerCall: 4,
      onAttempts: (p) => seen.push(`${p.probe} ${p.done}/${p.of} (${p.questions})`),
      onRecord: (r) => void seen.push(`record ${r.probe}`),
    });
    expect(seen).toEqual(['deployment 1/1 (1)', 'record deployment', 'sampling 4/10 (1)', 'sampling 8/10 (1)', 'sampling 10/10 (1)', 'record sampling']);
  });
});

describe('a question the model cannot take is named as an input problem', () => {
  const hostile: LoadedTask = {
    spec: { ...task.spec, id: 'file:mine.jsonl', name: 'mine.jsonl' },
    test: [docs[0], { id: 'empty', text: '', target: '1' }, { id: 'newlines', text: '\n'.repeat(100_000), target: '1' }],
    train,
    rows: new Map([['q1', 1], ['empty', 3], ['newlines', 4]]),
  };
  const probes: ProbeSpec[] = [{ probe: 'deployment' }];
  const answer = () => '2';

  it('a prompt that encodes to no tokens: the question, its file row and what is wrong', async () => {
    const run = runAudit(new FakeEngine({ numLayers: L, answer }), { task: hostile, condition: cond, probes, docs: hostile.test.slice(0, 2) });
    await expect(run).rejects.toMatchObject({ name: 'AuditError', code: 'bad-task', message: 'question "empty" (row 3 of "mine.jsonl"): its prompt encodes to no tokens (the question is empty or holds only text the tokenizer drops)' });
  });

  it('a prompt longer than the model takes: its length, the model\'s and what to do', async () => {
    const run = runAudit(new FakeEngine({ numLayers: L, answer }), { task: hostile, condition: cond, probes, docs: [hostile.test[0], hostile.test[2]] });
    await expect(run).rejects.toMatchObject({
      code: 'bad-task',
      message: expect.stringMatching(/^question "newlines" \(row 4 of "mine\.jsonl"\): its prompt is 100,000 tokens, and with the \d+ new tokens the condition allows it needs [\d,]+ positions; the model takes at most 4,096 \(maxSeqLen\)/),
    });
  });

  it('NaN or Inf logits in one row of a batch name that row\'s question and route, not the batch row', async () => {
    class NanEngine extends FakeEngine {
      override async generate(rows: Parameters<FakeEngine['generate']>[0], o: Parameters<FakeEngine['generate']>[1]) {
        if (rows.length > 1) throw new EngineError('nan-logits', 'row 1, step 0: the logits hold NaN or Inf (greedy token 0) in fake: the hidden state first holds NaN or Inf after layer 2', 1);
        return super.generate(rows, o);
      }
    }
    const run = runAudit(new NanEngine({ numLayers: L, answer }), { task, condition: cond, probes, questions: 2 });
    await expect(run).rejects.toMatchObject({
      code: 'nan-logits',
      message: 'question "q2" on route [0, 1, 2, 3], step 0: the logits hold NaN or Inf (greedy token 0) in fake: the hidden state first holds NaN or Inf after layer 2',
    });
  });
});

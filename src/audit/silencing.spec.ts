import { describe, expect, it } from 'vitest';
import { compareCheckpoints, compareProbes, compareRecords, conditionDiff, questionState, reachedBy } from './compare';
import { defaultCondition } from './condition';
import { routeToString } from './routes';
import { runAudit } from './run';
import { failureSet, scanRole, silencingEffect, silencingScan } from './silencing';
import { FakeEngine, type FakeQuery } from './testing/fake-engine';
import type { Doc, LoadedTask, ProbeSpec, RouteSpace } from './types';

const L = 4;
const docs: Doc[] = Array.from({ length: 6 }, (_, i) => ({ id: `q${i + 1}`, text: `${i + 1}*1=`, target: String(i + 1) }));
const task: LoadedTask = {
  spec: { id: 'test:toy', name: 'toy', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 6, numTrain: 0 },
  test: docs,
  train: [],
};
const cond = defaultCondition({ ...task.spec, id: 'builtin:toy' }, 'f32');
const space: RouteSpace = { kind: 'blocks', numLayers: L, minLen: 1, maxLen: 8, maxBlock: 2, maxEdits: 1 };
const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 3, seed: 1, shared: true }];
const qid = (q: FakeQuery) => `q${q.prompt[0]}`;
const right = (q: FakeQuery) => q.prompt[0];
const isDefaultRoute = (q: FakeQuery) => routeToString(q.route) === '0,1,2,3';

/** realized / reachable-only / unreachable per question, and which silenced layers repair or break. */
function scripted(realized: string[], reachableOnly: string[], silenced: Record<number, { fixes: string[]; breaks: string[] }> = {}, fingerprint?: string) {
  return new FakeEngine({
    numLayers: L,
    fingerprint,
    answer: (q) => {
      const id = qid(q);
      if (q.silence.length) {
        const s = silenced[q.silence[0]] ?? { fixes: [], breaks: [] };
        const ok = (realized.includes(id) && !s.breaks.includes(id)) || s.fixes.includes(id);
        return ok ? right(q) : '0';
      }
      if (isDefaultRoute(q)) return realized.includes(id) ? right(q) : '0';
      return reachableOnly.includes(id) || realized.includes(id) ? right(q) : '0';
    },
  });
}

describe('MLP-silencing scan', () => {
  const silenced = {
    1: { fixes: ['q3'], breaks: [] },
    2: { fixes: ['q3', 'q4'], breaks: ['q1'] },
    3: { fixes: ['q3', 'q4'], breaks: [] },
  };

  it('takes reachable ∧ ¬realized as the failure set and reports the in-sample per-layer table', async () => {
    // q6 is neither realized nor reachable: not a failure of the set (a silenced layer "repairing" it does not count)
    const engine = scripted(['q1', 'q2'], ['q3', 'q4', 'q5'], { ...silenced, 1: { fixes: ['q3', 'q6'], breaks: [] } });
    const run = await runAudit(engine, { task, condition: cond, probes });
    const fs = failureSet(run.records);
    expect(fs.failures.map((d) => d.id)).toEqual(['q3', 'q4', 'q5']);
    expect(fs.realized.map((d) => d.id)).toEqual(['q1', 'q2']);
    const rowsBefore = engine.rowsRequested;
    const { scan, audit } = await silencingScan(engine, { task, condition: cond, records: run.records });
    // 5 questions (3 failures + 2 realized) × 4 layers, under deployment
    expect(engine.rowsRequested - rowsBefore).toBe(20);
    expect(audit.records.every((r) => r.probe === 'mlp-silencing')).toBe(true);
    expect(scan.in_sample.layers.map((l) => [l.layer, l.repaired, l.failures, l.collateral, l.realized])).toEqual([
      [0, 0, 3, 0, 2],
      [1, 1, 3, 0, 2],
      [2, 2, 3, 1, 2],
      [3, 2, 3, 0, 2],
    ]);
    // Wilson 95% for 2/3: [0.2077, 0.9385]
    expect(scan.in_sample.layers[3].repair.rate).toBeCloseTo(2 / 3, 12);
    expect(scan.in_sample.layers[3].repair.lo).toBeCloseTo(0.20765, 4);
    expect(scan.in_sample.layers[3].repair.hi).toBeCloseTo(0.93851, 4);
    expect(scan.in_sample.layers[2].collateralRate.rate).toBe(0.5);
    // layers 2 and 3 repair two each; layer 3 breaks nothing
    expect(scan.in_sample.best?.layer).toBe(3);
  });

  it('identifies the layer on one seeded half and measures it only on the other', async () => {
    // 8 failures (q3..q10), 2 realized (q1 q2). Layer 1 repairs q3..q6, layer 2 q7..q10, layer 3
    // q3 q7 and breaks q1. The rule, written here independently of the code: on the
    // identification half the most repairs win; ties go to less collateral on that half's
    // realized questions, then to the lower layer; with no repair, nothing is identified.
    const ids = Array.from({ length: 10 }, (_, i) => `q${i + 1}`);
    const big: LoadedTask = { ...task, test: ids.map((id, i) => ({ id, text: `${i + 1}*1=`, target: String(i + 1) })) };
    const fixes: Record<number, string[]> = { 0: [], 1: ['q3', 'q4', 'q5', 'q6'], 2: ['q7', 'q8', 'q9', 'q10'], 3: ['q3', 'q7'] };
    const breaks: Record<number, string[]> = { 0: [], 1: [], 2: [], 3: ['q1'] };
    const qidOf = (q: FakeQuery) => `q${/^(\d+)\*/.exec(q.prompt)![1]}`;
    const engine = new FakeEngine({
      numLayers: L,
      answer: (q) => {
        const id = qidOf(q);
        const n = id.slice(1);
        const realized = id === 'q1' || id === 'q2';
        if (q.silence.length) return (realized && !breaks[q.silence[0]].includes(id)) || fixes[q.silence[0]].includes(id) ? n : '0';
        return isDefaultRoute(q) ? (realized ? n : '0') : n;
      },
    });
    const run = await runAudit(engine, { task: big, condition: cond, probes: [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 2, seed: 1, shared: true }] });
    const splits = new Set<string>();
    for (let seed = 0; seed < 12; seed++) {
      const { scan } = await silencingScan(engine, { task: big, condition: cond, records: run.records, splitSeed: seed });
      const { identification: id, evaluation: ev } = scan;
      expect(scan.failure_set.sort()).toEqual(ids.slice(2).sort());
      expect(id.doc_ids).toHaveLength(4);
      expect(ev.doc_ids).toHaveLength(4);
      expect([...id.doc_ids, ...ev.doc_ids].sort()).toEqual(ids.slice(2).sort());
      expect([...id.realized_ids, ...ev.realized_ids].sort()).toEqual(['q1', 'q2']);
      splits.add(id.doc_ids.slice().sort().join());
      const score = (l: number) => ({ l, rep: id.doc_ids.filter((d) => fixes[l].includes(d)).length, col: id.realized_ids.filter((d) => breaks[l].includes(d)).length });
      const want = [0, 1, 2, 3].map(score).sort((a, b) => b.rep - a.rep || a.col - b.col || a.l - b.l)[0];
      const layer = want.rep > 0 ? want.l : null;
      expect(id.layer).toBe(layer);
      const repaired = layer === null ? 0 : ev.doc_ids.filter((d) => fixes[layer].includes(d)).length;
      const collateral = layer === null ? 0 : ev.realized_ids.filter((d) => breaks[layer].includes(d)).length;
      expect(ev).toMatchObject({ failures: 4, repaired, rate: repaired / 4, collateral, realized: ev.realized_ids.length });
    }
    // the seed moves the split
    expect(splits.size).toBeGreaterThan(1);
  });

  it('a layer chosen and scored on the same questions overstates; the held-out half does not', async () => {
    // every layer repairs one distinct failure: in-sample the best layer "repairs" 1 of 4; held out,
    // the layer identified on one half repairs nothing of the other
    const fixes: Record<number, { fixes: string[]; breaks: string[] }> = {
      0: { fixes: ['q3'], breaks: [] },
      1: { fixes: ['q4'], breaks: [] },
      2: { fixes: ['q5'], breaks: [] },
      3: { fixes: ['q6'], breaks: [] },
    };
    const engine = scripted(['q1', 'q2'], ['q3', 'q4', 'q5', 'q6'], fixes);
    const run = await runAudit(engine, { task, condition: cond, probes });
    const { scan } = await silencingScan(engine, { task, condition: cond, records: run.records, splitSeed: 5 });
    expect(scan.in_sample.best).toMatchObject({ repaired: 1, failures: 4 });
    expect(scan.identification.repaired).toBe(1);
    expect(scan.evaluation).toMatchObject({ failures: 2, repaired: 0, rate: 0 });
  });

  it('refuses a stored run of another condition or model, and never borrows silencing records of another scan', async () => {
    const engine = scripted(['q1', 'q2'], ['q3', 'q4', 'q5'], silenced);
    const run = await runAudit(engine, { task, condition: cond, probes });
    await expect(silencingScan(engine, { task, condition: { ...cond, maxNewTokens: 9 }, records: run.records })).rejects.toThrow(/audited under condition .* the scan would run under/);
    await expect(silencingScan(scripted([], [], {}, 'other'), { task, condition: cond, records: run.records })).rejects.toThrow(/another model/);
    // silencing records of layers 0..1 only (another probe key) are in the stored run: the full
    // scan computes its own rather than reading them
    const partial = await runAudit(engine, { task, condition: cond, probes: [{ probe: 'mlp-silencing', layers: [0, 1] }] });
    const rowsBefore = engine.rowsRequested;
    const { scan } = await silencingScan(engine, { task, condition: cond, records: [...run.records, ...partial.records] });
    expect(engine.rowsRequested - rowsBefore).toBe(5 * 4);
    expect(scan.in_sample.layers).toHaveLength(4);
  });

  it('needs a stored run with deployment and one probe', async () => {
    const engine = scripted(['q1'], []);
    const onlyDeploy = await runAudit(engine, { task, condition: cond, probes: [{ probe: 'deployment' }] });
    expect(() => failureSet(onlyDeploy.records)).toThrow(/no probe records/);
    const withProbe = await runAudit(engine, { task, condition: cond, probes });
    expect(() => failureSet(withProbe.records.filter((r) => r.probe !== 'deployment'))).toThrow(/no deployment records/);
  });
});

describe('checkpoint comparison', () => {
  it('reports both sides, their differences, the transition table and McNemar', async () => {
    // A: realized q1 q2 q3, reachable-only q4, unreachable q5 q6
    // B: realized q1 q4 q5 q6, reachable-only q2, unreachable q3
    const a = scripted(['q1', 'q2', 'q3'], ['q4'], {}, 'A');
    const b = scripted(['q1', 'q4', 'q5', 'q6'], ['q2'], {}, 'B');
    const { comparison: c } = await compareCheckpoints(a, b, { task, condition: cond, probes: () => probes });
    expect(c.n).toBe(6);
    expect(c.a).toMatchObject({ model_fingerprint: 'A', realized: 3 / 6, reachable: 4 / 6, ceiling: 4 / 6 });
    expect(c.b).toMatchObject({ model_fingerprint: 'B', realized: 4 / 6, reachable: 5 / 6, ceiling: 5 / 6 });
    expect(c.diff.realized).toBeCloseTo(1 / 6, 12);
    expect(c.diff.ceiling).toBeCloseTo(1 / 6, 12);
    expect(c.transitions).toEqual({
      realized: { realized: 1, 'reachable-only': 1, unreachable: 1 },
      'reachable-only': { realized: 1, 'reachable-only': 0, unreachable: 0 },
      unreachable: { realized: 2, 'reachable-only': 0, unreachable: 0 },
    });
    // realized: b = |A only| = 2 (q2 q3), c = |B only| = 3 → exact p = min(1, 2·(1+5+10)/32) = 1
    expect(c.mcnemar.realized).toMatchObject({ b: 2, c: 3, exactP: 1 });
    // ceiling: b = 1 (q3), c = 2 (q5 q6) → exact p = min(1, 2·(1+3)/8) = 1; chi² = 0
    expect(c.mcnemar.ceiling).toMatchObject({ b: 1, c: 2, exactP: 1, chiSquare: 0 });
    // deployed Δ and ceiling Δ with Newcombe's paired intervals (values from an independent
    // Python implementation of Newcombe 1998, method 10)
    expect(c.deployed.diff).toBeCloseTo(1 / 6, 12);
    expect(c.deployed.ci.lo).toBeCloseTo(-0.461044, 5);
    expect(c.deployed.ci.hi).toBeCloseTo(0.674656, 5);
    expect(c.ceiling.diff).toBeCloseTo(1 / 6, 12);
    expect(c.ceiling.ci.lo).toBeCloseTo(-0.355648, 5);
    expect(c.ceiling.ci.hi).toBeCloseTo(0.596543, 5);
    expect(c.matched_attempts).toBe(3);
  });

  it('matches questions by id and content: a same-id question with other text is not paired', async () => {
    const a = await runAudit(scripted(['q1', 'q2'], [], {}, 'A'), { task, condition: cond, probes });
    const changed: LoadedTask = { ...task, test: docs.map((d) => (d.id === 'q3' ? { ...d, text: '3*1= ' } : d)) };
    const b = await runAudit(scripted(['q1'], [], {}, 'B'), { task: changed, condition: cond, probes });
    const c = compareRecords(a.records, b.records);
    expect(c.n).toBe(5);
    expect(c.questions.map((q) => q.doc_id)).toEqual(['q1', 'q2', 'q4', 'q5', 'q6']);
  });

  it('refuses two checkpoints probed with different budgets', async () => {
    const a = await runAudit(scripted(['q1'], [], {}, 'A'), { task, condition: cond, probes });
    const other: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 4, seed: 1, shared: true }];
    const b = await runAudit(scripted(['q1'], [], {}, 'B'), { task, condition: cond, probes: other });
    expect(() => compareRecords(a.records, b.records)).toThrow(/probed differently: budget \(A: 3, B: 4\) differs/);
  });

  it('refuses records from two conditions', async () => {
    const a = await runAudit(scripted(['q1'], [], {}, 'A'), { task, condition: cond, probes });
    const b = await runAudit(scripted(['q1'], [], {}, 'B'), { task, condition: { ...cond, maxNewTokens: 9 }, probes });
    expect(() => compareRecords(a.records, b.records)).toThrow(/under 2 conditions/);
    // the fields that differ, by name
    expect(conditionDiff(cond, { ...cond, maxNewTokens: 9, fewShot: { ...cond.fewShot, seed: 2 } })).toEqual(['fewShot.seed', 'maxNewTokens']);
    expect(conditionDiff(cond, cond)).toEqual([]);
    expect(conditionDiff(cond, null)).toEqual(['condition (unknown for an imported run)']);
  });
});

describe('probe comparison at matched attempts', () => {
  it('judges both probes on the attempts both made and gives the paired difference', async () => {
    // random routes (budget 3) vs sampling (budget 1): compared at 1 attempt each. Random routes'
    // first route is a non-default one: right on q1..q4; sampling runs the default route: q1 only
    const engine = scripted(['q1'], ['q2', 'q3', 'q4']);
    const res = await runAudit(engine, {
      task,
      condition: cond,
      probes: [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 3, seed: 1, shared: true }, { probe: 'sampling', budget: 1, temperature: 1, topP: 1, seed: 1 }],
    });
    const [rr, sp] = [...new Set(res.records.filter((r) => r.probe !== 'deployment').map((r) => r.probe_key))];
    const cmp = compareProbes(res.records, rr, sp);
    expect(cmp).toMatchObject({ n: 6, matched_attempts: 1, a: { reachable: 4 / 6, mean_attempts: 3 }, b: { reachable: 1 / 6, mean_attempts: 1 } });
    expect(cmp.diff.diff).toBeCloseTo(3 / 6, 12);
    // discordant pairs: random only on q2 q3 q4, sampling only on none
    expect(cmp.diff.mcnemar).toMatchObject({ b: 0, c: 3 });
  });
});

describe('one question, as the screens ask about it', () => {
  it('has one state (realized, reachable-only, unreachable) under any reach probe, one, or k attempts', async () => {
    const run = await runAudit(scripted(['q1'], ['q3']), { task, condition: cond, probes });
    const of = (id: string) => run.records.filter((r) => r.doc_id === id);
    const key = run.records.find((r) => r.probe === 'random-routes')!.probe_key;
    expect(['q1', 'q3', 'q6'].map((id) => questionState(of(id)))).toEqual(['realized', 'reachable-only', 'unreachable']);
    expect(reachedBy(of('q1'))).toBe(true); // realized and reachable both
    expect(questionState(of('q3'), { probeKey: key })).toBe('reachable-only');
    expect(questionState(of('q3'), { probeKey: 'another' })).toBe('unreachable');
    expect(questionState(of('q3'), { within: 0 })).toBe('unreachable'); // no attempt judged
  });
  it("has one role in a scan, the one failureSet gives it, and silencing's effect follows from it", async () => {
    const run = await runAudit(scripted(['q1'], ['q3']), { task, condition: cond, probes });
    const key = run.records.find((r) => r.probe === 'random-routes')!.probe_key;
    const set = failureSet(run.records, key);
    const roles = docs.map((d) => scanRole(run.records.filter((r) => r.doc_id === d.id), key));
    expect(roles).toEqual(docs.map((d) => (set.failures.some((x) => x.id === d.id) ? 'failure' : set.realized.some((x) => x.id === d.id) ? 'realized' : null)));
    expect(roles.slice(0, 3)).toEqual(['realized', null, 'failure']);
    expect(scanRole(run.records.filter((r) => r.doc_id === 'q3'), 'another')).toBeNull(); // not probed by it
    expect([silencingEffect('failure', true), silencingEffect('failure', false), silencingEffect('realized', true), silencingEffect('realized', false), silencingEffect(null, true)]).toEqual([
      'repaired', 'still wrong', 'kept', 'broken', null,
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { compareCheckpoints, compareRecords } from './compare';
import { defaultCondition } from './condition';
import { routeToString } from './routes';
import { runAudit } from './run';
import { failureSet, silencingScan } from './silencing';
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

  it('takes reachable ∧ ¬realized as the failure set and reports repairs, collateral and the best layer', async () => {
    const engine = scripted(['q1', 'q2'], ['q3', 'q4', 'q5'], silenced);
    const run = await runAudit(engine, { task, condition: cond, probes });
    const fs = failureSet(run.records);
    expect(fs.failures.map((d) => d.id)).toEqual(['q3', 'q4', 'q5']);
    expect(fs.realized.map((d) => d.id)).toEqual(['q1', 'q2']);
    const rowsBefore = engine.rowsRequested;
    const { scan, audit } = await silencingScan(engine, { task, condition: cond, records: run.records, splitHalf: { seed: 3 } });
    // 5 questions (3 failures + 2 realized) × 4 layers, under deployment
    expect(engine.rowsRequested - rowsBefore).toBe(20);
    expect(audit.records.every((r) => r.probe === 'mlp-silencing')).toBe(true);
    expect(scan.layers.map((l) => [l.layer, l.repaired, l.failures, l.collateral, l.realized])).toEqual([
      [0, 0, 3, 0, 2],
      [1, 1, 3, 0, 2],
      [2, 2, 3, 1, 2],
      [3, 2, 3, 0, 2],
    ]);
    // Wilson 95% for 2/3: [0.2077, 0.9385]
    expect(scan.layers[3].repair.rate).toBeCloseTo(2 / 3, 12);
    expect(scan.layers[3].repair.lo).toBeCloseTo(0.20765, 4);
    expect(scan.layers[3].repair.hi).toBeCloseTo(0.93851, 4);
    expect(scan.layers[2].collateralRate.rate).toBe(0.5);
    // layers 2 and 3 repair two each; layer 3 breaks nothing
    expect(scan.best?.layer).toBe(3);
    const sh = scan.split_half!;
    expect(sh.identify.length).toBe(2);
    expect(sh.evaluate.length).toBe(1);
    expect([...sh.identify, ...sh.evaluate].sort()).toEqual(['q3', 'q4', 'q5']);
    // whichever half identifies, layer 3 (or 2) wins there; its repairs are counted on the other half only
    expect(sh.repaired).toBe(sh.evaluate.filter((id) => (silenced[sh.layer as 1 | 2 | 3]?.fixes ?? []).includes(id)).length);
  });

  it('needs a stored run with deployment and one probe', async () => {
    const engine = scripted(['q1'], []);
    const onlyDeploy = await runAudit(engine, { task, condition: cond, probes: [{ probe: 'deployment' }] });
    expect(() => failureSet(onlyDeploy.records)).toThrow(/no probe records/);
    const withProbe = await runAudit(engine, { task, condition: cond, probes });
    expect(() => failureSet(withProbe.records.filter((r) => r.probe !== 'deployment'))).toThrow(/no deployment records/);
    await expect(silencingScan(scripted([], [], {}, 'other'), { task, condition: cond, records: withProbe.records })).rejects.toThrow(/another model/);
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
  });

  it('refuses records from two conditions', async () => {
    const a = await runAudit(scripted(['q1'], [], {}, 'A'), { task, condition: cond, probes });
    const b = await runAudit(scripted(['q1'], [], {}, 'B'), { task, condition: { ...cond, maxNewTokens: 9 }, probes });
    expect(() => compareRecords(a.records, b.records)).toThrow(/under 2 conditions/);
  });
});

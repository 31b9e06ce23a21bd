import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../condition';
import { routeToString } from '../routes';
import { runAudit } from '../run';
import { FakeEngine } from '../testing/fake-engine';
import { toyTask } from '../testing/toy-task';
import { allSkips, layerSkips, questionSkips } from './layer-skip';
import { checkProbeSpec, DEPLOYMENT, validateProbeSpec } from './registry';

const L = 5;
const task = toyTask([
  { id: 'q1', text: '1+1=', target: '2' },
  { id: 'q2', text: '2+2=', target: '4' },
]);
const cond = defaultCondition({ ...task.spec, id: 'builtin:toy' }, 'f32');

describe('single-layer skips', () => {
  it('tries min(B, L) distinct skips per question, in a seeded order of its own', () => {
    const spec = layerSkips(L, 3, 7);
    const a = questionSkips(spec, 'q1');
    expect(a).toHaveLength(3);
    expect(new Set(a.map(routeToString)).size).toBe(3);
    for (const r of a) expect(r).toHaveLength(L - 1);
    expect(questionSkips(spec, 'q1')).toEqual(a);
    expect(allSkips(spec).map(routeToString)).toEqual(['1,2,3,4', '0,2,3,4', '0,1,3,4', '0,1,2,4', '0,1,2,3']);
    expect(questionSkips(layerSkips(L, 9, 7), 'q1')).toHaveLength(L);
  });

  it('is checked like every probe: its schema, its depth, its budget', () => {
    expect(() => validateProbeSpec(layerSkips(L, 4, 1), L)).not.toThrow();
    expect(() => validateProbeSpec(layerSkips(L, 4, 1), 6)).toThrow(/set for 5 layers; the model has 6/);
    expect(() => validateProbeSpec(layerSkips(L, 0, 1), L)).toThrow(/budget must be a positive integer/);
    expect(() => checkProbeSpec({ probe: 'layer-skip', numLayers: 5, budget: 4 }, 'probe')).toThrow(/seed/);
  });

  it('runs through the audit driver: one record per question, reachable where one skip answers', async () => {
    // the model answers right only without layer 2; deployment is wrong
    const engine = new FakeEngine({ numLayers: L, answer: (q) => (routeToString(q.route) === '0,1,3,4' ? String(2 * Number(q.prompt[0])) : '0') });
    const res = await runAudit(engine, { task, condition: cond, probes: [{ probe: DEPLOYMENT }, layerSkips(L, L, 3)] });
    const skips = res.records.filter((r) => r.probe === 'layer-skip');
    expect(skips).toHaveLength(2);
    for (const r of skips) {
      expect([r.budget, r.attempts.length, r.reachable, r.stop_reason, r.selection_saw_gold]).toEqual([L, L, true, 'budget', false]);
      expect(routeToString(r.attempts[r.first_success!].route!)).toBe('0,1,3,4');
    }
    const p = res.summary.probes.find((s) => s.probe === 'layer-skip')!;
    expect(p.reachable).toBe(1);
    // one good skip among L: reach@k = k/L (the unbiased estimator over the drawn set)
    p.reach_at_k.forEach((v, k) => expect(v).toBeCloseTo((k + 1) / L, 12));
  });

  it('stops short where the budget exceeds the L skips', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: () => '0' });
    const res = await runAudit(engine, { task, condition: cond, probes: [{ probe: DEPLOYMENT }, layerSkips(L, 8, 3)], questions: 1 });
    const r = res.records.find((x) => x.probe === 'layer-skip')!;
    expect([r.budget, r.attempts.length, r.reachable, r.stop_reason]).toEqual([8, L, false, 'space-exhausted']);
  });
});

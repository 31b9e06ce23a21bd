import { describe, expect, it } from 'vitest';
import { compareRecords, probeSpecDiff } from './compare';
import { defaultCondition } from './condition';
import { blocksSpace, neighborhoodSpace } from './routes';
import { runAudit } from './run';
import { FakeEngine } from './testing/fake-engine';
import { toyTask } from './testing/toy-task';
import type { ProbeSpec } from './types';

const L = 4;
const task = toyTask(Array.from({ length: 4 }, (_, i) => ({ id: `q${i + 1}`, text: `${i + 1}*1=`, target: String(i + 1) })));
const cond = defaultCondition(task.spec, 'f32');
const blocks: ProbeSpec = { probe: 'random-routes', space: blocksSpace(L), budget: 3, seed: 1, shared: false };
const neighborhood: ProbeSpec = { probe: 'random-routes', space: neighborhoodSpace(L, 1, 2), budget: 3, seed: 1, shared: false };

/** Every question right on the default route only; fingerprint names the checkpoint. */
const engine = (fingerprint: string) => new FakeEngine({ numLayers: L, fingerprint, answer: (q) => (q.route.join(',') === '0,1,2,3' ? String(q.prompt[0]) : '0') });
const audit = (fingerprint: string, spec: ProbeSpec) => runAudit(engine(fingerprint), { task, condition: cond, probes: [{ probe: 'deployment' }, spec] });

describe('probeSpecDiff', () => {
  it('names each differing field, the seed aside', () => {
    expect(probeSpecDiff(blocks, neighborhood)).toEqual(['space']);
    expect(probeSpecDiff(blocks, { ...blocks, seed: 7 })).toEqual([]);
    expect(probeSpecDiff(blocks, { ...blocks, budget: 5, shared: true })).toEqual(['budget', 'shared']);
    const sampling: ProbeSpec = { probe: 'sampling', budget: 3, temperature: 0.6, topP: 0.95, seed: 1 };
    expect(probeSpecDiff(sampling, { ...sampling, temperature: 1 })).toEqual(['temperature']);
    expect(probeSpecDiff(blocks, sampling)).toEqual(['probe', 'shared', 'space', 'temperature', 'topP']);
  });
});

describe('compareRecords refuses checkpoints probed differently', () => {
  it('a route space that differs is named, with both sides', async () => {
    const a = await audit('A', blocks);
    const b = await audit('B', neighborhood);
    expect(() => compareRecords(a.records, b.records)).toThrow(/probed differently: space \(A: blocks, B: neighborhood\) differs/);
  });

  it('two draws of one spec (another probe seed) are compared', async () => {
    const a = await audit('A', blocks);
    const b = await audit('B', { ...blocks, seed: 2 });
    const c = compareRecords(a.records, b.records);
    expect(c.n).toBe(4);
    expect(c.deployed.diff).toBe(0);
  });
});

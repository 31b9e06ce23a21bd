import { describe, expect, it } from 'vitest';
import { colaCondition } from './presets';
import { colaMcts, programSelectionMcts } from './probes/mcts';
import { randomRoutes } from './probes/random-routes';
import { samplingCeiling } from './probes/sampling';
import { blocksSpace, neighborhoodSpace } from './routes';
import { auditCondition } from './setup';
import { builtinModel } from './builtin-models';
import { boxedConditionWarning, colaOverrides, fileTaskOf, manifestNumLayers, probeConflicts, probeSpecText, runProbes, untrainedTaskWarning } from './run-definition';
import { silencingAllLayers } from './probes/mlp-silencing';
import { toyTask } from './testing/toy-task';

const L = 6;

describe('probeSpecText', () => {
  it('names the route space beside the probe and its preset', () => {
    expect(probeSpecText(randomRoutes(neighborhoodSpace(L, 1, 2), 32, 1))).toBe('random routes ×32 · neighborhood');
    expect(probeSpecText(randomRoutes(blocksSpace(L), 32, 1))).toBe('random routes ×32 · blocks');
    expect(probeSpecText(colaMcts(L, 16, 1))).toBe('MCTS routes (CoLa) ×16 · cola');
    expect(probeSpecText(samplingCeiling(8, 1))).toBe('sampling ×8');
  });
});

describe('manifestNumLayers', () => {
  const model = { fingerprint: 'f', name: 'm', source: 's' };
  it('reads the layers the manifest states, else (an older run) a route space of its probes', () => {
    expect(manifestNumLayers({ model: { ...model, numLayers: 24 }, probes: [{ probe: 'deployment' }, samplingCeiling(8, 1)] })).toBe(24);
    expect(manifestNumLayers({ model, probes: [{ probe: 'deployment' }, samplingCeiling(8, 1), colaMcts(L, 16, 1)] })).toBe(L);
    expect(manifestNumLayers({ model, probes: [{ probe: 'deployment' }, silencingAllLayers(L)] })).toBeNull();
  });
});

describe('the probes of a run', () => {
  it('refuses two specs of one probe in words, naming both', () => {
    const both = [
      { label: 'MCTS (CoLa)', spec: colaMcts(L, 16, 1) },
      { label: 'MCTS (program selection)', spec: programSelectionMcts(L, 16, 1) },
      { label: 'Random routes', spec: randomRoutes(blocksSpace(L), 16, 1) },
    ];
    expect(probeConflicts(both)).toEqual(['MCTS (CoLa) and MCTS (program selection) both run mcts-routes; choose one.']);
    expect(probeConflicts(both.slice(1))).toEqual([]);
    expect(() => runProbes(both.map((x) => x.spec))).toThrow(/MCTS routes \(CoLa\) ×16 · cola and MCTS routes \(program selection\) ×16 · neighborhood both run mcts-routes; choose one/);
  });

  it('puts deployment first, once', () => {
    const rr = randomRoutes(blocksSpace(L), 4, 1);
    expect(runProbes([rr])).toEqual([{ probe: 'deployment' }, rr]);
    expect(runProbes([{ probe: 'deployment' }, rr])).toEqual([{ probe: 'deployment' }, rr]);
  });
});

describe('CoLa’s condition', () => {
  it('is the CLI --boxed condition: greedy, 50 new tokens, no stop sequences, the answer in \\boxed{}', async () => {
    const task = toyTask([{ id: 'q1', text: '1+1=', target: '2' }]);
    const choice = { dtype: 'f32', chat: false, fewShot: 0, questionSeed: 1234, boxed: true } as const;
    const cli = await auditCondition(task, choice);
    expect(cli).toEqual(colaCondition(task.spec, 'f32'));
    expect(cli).toMatchObject({ ...colaOverrides(task.spec.promptTemplate), maxNewTokens: 50, stopSequences: [], decoding: { kind: 'greedy' }, requireBoxed: true });
    // an explicit --max-new-tokens still sets the tokens
    expect((await auditCondition(task, { ...choice, maxNewTokens: 64 })).maxNewTokens).toBe(64);
  });
});

describe('tasks the built-in models were not trained on', () => {
  it('warns, naming what the model was trained on', () => {
    expect(builtinModel('builtin:micro-arith')!.trainedOn.tasks).toEqual(['arith-2d']);
    expect(untrainedTaskWarning('reachlab/micro-arith', 'arith-1d')).toMatch(/^reachlab\/micro-arith was trained only on two-digit arithmetic \(arith-2d\); on arith-1d it was never trained/);
    expect(untrainedTaskWarning('builtin:micro-arith-rl', 'builtin:arith-3d')).toMatch(/micro-arith-rl was trained only on two-digit arithmetic/);
    expect(untrainedTaskWarning('builtin:micro-arith', 'hub:gsm8k')).toMatch(/on hub:gsm8k it was never trained/);
  });

  it('is silent for the trained task and for other models', () => {
    expect(untrainedTaskWarning('reachlab/micro-arith', 'arith-2d')).toBeNull();
    expect(untrainedTaskWarning('builtin:micro-arith', 'builtin:arith-2d')).toBeNull();
    expect(untrainedTaskWarning('Qwen/Qwen2.5-0.5B', 'arith-1d')).toBeNull();
  });
});

describe('a task file for a built-in model', () => {
  it('is the arithmetic level its questions are written as, so a file of two-digit arithmetic draws no warning', () => {
    const task = fileTaskOf(['12-42=', '53 + 90 =', '99+20=']);
    expect(task).toBe('arith-2d');
    expect(untrainedTaskWarning('builtin:micro-arith', task)).toBeNull();
  });

  it('is "a task file" (warned) when its questions are of another level, mixed, not arithmetic, or not read yet', () => {
    for (const qs of [['1+2=', '3-4='], ['12-42=', '1+2='], ['What is 12 minus 42?'], [], ['12*42=']]) {
      const task = fileTaskOf(qs);
      expect(task === 'a task file' || task !== 'arith-2d', JSON.stringify(qs)).toBe(true);
      expect(untrainedTaskWarning('builtin:micro-arith', task), JSON.stringify(qs)).toMatch(/was never trained/);
    }
    expect(fileTaskOf(['1+2=', '3-4='])).toBe('arith-1d');
    expect(fileTaskOf(['What is 12 minus 42?'])).toBe('a task file');
  });
});

describe("a condition a built-in model cannot be graded under", () => {
  it("warns when the condition counts only a boxed answer, as CoLa's does", () => {
    expect(boxedConditionWarning('builtin:micro-arith', colaOverrides('{{question}}'))).toMatch(/^reachlab\/micro-arith never writes \\boxed\{\} .* every attempt is graded \[invalid\]: realized and reachable are 0 on every probe/);
  });

  it('is silent without the requirement, and for other models', () => {
    expect(boxedConditionWarning('builtin:micro-arith', { requireBoxed: false })).toBeNull();
    expect(boxedConditionWarning('builtin:micro-arith', {})).toBeNull();
    expect(boxedConditionWarning('Qwen/Qwen2.5-0.5B', { requireBoxed: true })).toBeNull();
  });
});

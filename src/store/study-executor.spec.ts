// The plan executor's own contract, under a back end that only records what it is asked: models in
// plan order, each opened once for the settings it owns and closed even when a run fails.
import { describe, expect, it } from 'vitest';
import { loadTask } from '../audit/index.ts';
import { probeOf } from '../audit/probes/registry.ts';
import { normalizePlan } from '../audit/study-plan.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import { executePlan, type StudyBackend } from './study-executor.ts';
import { studyTaskOptions } from './study.ts';

const plan = normalizePlan({ models: ['A', 'B', 'C'], tasks: ['builtin:arith-2d'], probes: [{ probe: 'sampling' }, { probe: 'sampling', budget: 2 }], budget: 3, questions: 2 });

function recorder(failOn?: string) {
  const calls: string[] = [];
  const backend: StudyBackend = {
    async openModel(ref) {
      calls.push(`open ${ref}`);
      const engine = new FakeEngine({ numLayers: 4, fingerprint: ref, answer: () => '0' });
      return { engine, info: (await engine.info())!, source: ref, close: async () => void calls.push(`close ${ref}`) };
    },
    loadTask: (spec, p) => loadTask(spec, studyTaskOptions(p)),
    async execute(req, run) {
      const spec = req.manifest.probes.at(-1)!;
      calls.push(`run ${run.setting.model} ${run.label} ×${probeOf(spec).budget(spec)}`);
      if (run.setting.model === failOn) throw new Error(`${failOn} failed`);
      return { model: run.setting.model, task: run.setting.task, label: run.label, run_key: run.label, records: [] };
    },
  };
  return { calls, backend };
}

describe('the plan executor', () => {
  it('opens each owned model once, runs its settings\' runs in plan order under their own settings, and closes it', async () => {
    const { calls, backend } = recorder();
    const results = await executePlan(plan, backend, 'test', (i) => i !== 1);
    expect(calls).toEqual(['open A', 'run A sampling ×3', 'run A sampling (budget 2) ×2', 'close A', 'open C', 'run C sampling ×3', 'run C sampling (budget 2) ×2', 'close C']);
    expect(results.map((r) => `${r.model} ${r.label}`)).toEqual(['A sampling', 'A sampling (budget 2)', 'C sampling', 'C sampling (budget 2)']);
  });

  it('closes the model whose run failed, and runs nothing after it', async () => {
    const { calls, backend } = recorder('A');
    await expect(executePlan(plan, backend, 'test')).rejects.toThrow('A failed');
    expect(calls).toEqual(['open A', 'run A sampling ×3', 'close A']);
  });
});

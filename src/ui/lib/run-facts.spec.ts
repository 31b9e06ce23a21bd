import { beforeAll, describe, expect, it } from 'vitest';
import { auditedRun } from '../testing/test-backend';
import { conditionFieldLabel, differingFacts, importedText, probesText, runFacts, runName } from './run-facts';

describe('run facts', () => {
  let a: Awaited<ReturnType<typeof auditedRun>>['manifest'];
  beforeAll(async () => {
    a = (await auditedRun()).manifest;
  });

  it('lists model, revision, commit, dtype, engine, task, questions, probes with budgets, seeds and condition', () => {
    expect(runFacts(a)).toEqual([
      { label: 'model', value: 'fake' },
      { label: 'revision', value: '—' },
      { label: 'commit', value: '—' },
      { label: 'dtype', value: 'f32' },
      { label: 'engine', value: 'WebAssembly' },
      { label: 'task', value: 'builtin:arith-2d v1' },
      { label: 'questions', value: '24' },
      { label: 'probes and budgets', value: 'random routes ×16 · blocks, MCTS routes (CoLa) ×16 · cola, sampling ×8, MLP silencing (8 layers)' },
      { label: 'seeds', value: 'question 1, probe 1' },
      { label: 'condition key', value: a.condition_key.slice(0, 12) },
    ]);
  });

  it('names what differs between two runs of one model (dtype, probes)', () => {
    const b = { ...a, id: 'b', engine: { ep: 'wasm' as const, dtype: 'q4' as const }, probes: a.probes.filter((p) => p.probe !== 'sampling') };
    expect(differingFacts(a, b)).toEqual(['dtype', 'probes and budgets']);
    expect(differingFacts(a, { ...a, id: 'c' })).toEqual([]);
    expect(probesText([{ probe: 'deployment' }])).toBe('deployment only');
  });

  it('names a native CLI run by its provider and runtime, so it differs from a WebAssembly one', () => {
    const native = { ...a, id: 'n', engine: { ep: 'cpu' as const, dtype: 'f32' as const, runtime: { name: 'onnxruntime-node' as const, version: '1.31.1' } } };
    expect(runFacts(native).find((f) => f.label === 'engine')?.value).toBe('native CPU (onnxruntime-node 1.31.1)');
    expect(differingFacts(a, native)).toEqual(['engine']);
  });

  it('carries the Hub commit a run loaded (12 digits of a sha; another commit as it is), so two loads of one revision differ', () => {
    const at = (commit: string) => ({ ...a, model: { ...a.model, name: 'org/m@main', revision: 'main', commit } });
    const [c1, c2] = [at('1a2b3c4d5e6f'.repeat(3) + '7a8b'), at('f'.repeat(40))];
    expect(runFacts(c1).find((f) => f.label === 'commit')!.value).toBe('1a2b3c4d5e6f');
    expect(runFacts(at('builtin-2026-12')).find((f) => f.label === 'commit')!.value).toBe('builtin-2026-12');
    expect(differingFacts(c1, c2)).toEqual(['commit']);
  });

  it('says condition fields in the form’s words', () => {
    expect(['engineDtype', 'maxNewTokens', 'fewShot.n', 'decoding.temperature', 'somethingNew'].map(conditionFieldLabel)).toEqual([
      'dtype', 'max new tokens', 'few-shot examples', 'temperature', 'somethingNew',
    ]);
  });
});

describe('an imported run, counted in questions', () => {
  it('says a 200-question run of two probes is 400 records, not "400 of 400 records"', () => {
    const records = Array.from({ length: 200 }, (_, i) => ['deployment:x', 'random-routes:y'].map((probe_key) => ({ doc_id: `q${i}`, probe_key }))).flat();
    expect(importedText({ file: 'run.json', records: 400 }, records)).toBe('All 400 records of this run (200 questions × 2 probes, deployment included) were read from run.json, not computed here.');
    expect(importedText({ file: 'run.json', records: 4 }, records.slice(0, 8))).toBe('4 of the 8 records of this run (4 questions × 2 probes, deployment included) were read from run.json, not computed here.');
  });
});

describe('a run named for a person', () => {
  it('is its model, probes and start time, never its id', async () => {
    const m = (await auditedRun(2)).manifest;
    const name = runName(m);
    expect(name).toBe(`fake, ${probesText(m.probes)}, ${m.startedAt.slice(0, 16).replace('T', ' ')} UTC`);
    expect(name).not.toContain(m.id);
  });
});

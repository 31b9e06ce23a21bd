import { describe, expect, it } from 'vitest';
import type { RunSetup } from '../backend';
import { DEFAULT_CONDITION } from './presets';
import { interruptedRun, keepableSetup, loadSetup, saveSetup } from './resumable';

const setup: RunSetup = {
  model: { kind: 'hub', repo: 'org/m', revision: 'main', token: 'hf_secret', endpoint: 'http://127.0.0.1:8788' },
  task: { kind: 'builtin', id: 'arith-2d', count: 5, seed: 1 },
  condition: DEFAULT_CONDITION,
  questionSeed: 3,
  probes: [{ probe: 'deployment' }],
  load: { ep: 'wasm', dtype: 'f32' },
};

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

describe('resumable setups', () => {
  it('keeps a setup without its token and reads it back', () => {
    const s = memory();
    saveSetup(s, 'run-1', setup);
    const back = loadSetup(s, 'run-1');
    expect(back?.model).toEqual({ kind: 'hub', repo: 'org/m', revision: 'main', endpoint: 'http://127.0.0.1:8788' });
    expect(back?.task).toEqual(setup.task);
    expect(back?.questionSeed).toBe(3);
    expect(loadSetup(s, 'run-2')).toBeNull();
  });
  it('does not keep setups that need picked files', () => {
    expect(keepableSetup({ ...setup, model: { kind: 'files', name: 'f', files: [] } })).toBeNull();
  });
  it('reads unreadable or foreign entries as none', () => {
    const s = memory();
    s.setItem('reachlab:setup:x', '{not json');
    s.setItem('reachlab:setup:y', JSON.stringify({ model: { kind: 'files' } }));
    expect(loadSetup(s, 'x')).toBeNull();
    expect(loadSetup(s, 'y')).toBeNull();
    expect(loadSetup(null, 'x')).toBeNull();
  });
  it('does not resume a setup kept before question seeds (its questions and few-shot draws had two seeds)', () => {
    const s = memory();
    const { questionSeed: _, ...old } = setup;
    s.setItem('reachlab:setup:old', JSON.stringify({ ...old, model: { kind: 'builtin', id: 'reachlab/micro-arith' } }));
    expect(loadSetup(s, 'old')).toBeNull();
    saveSetup(s, 'new', { ...setup, model: { kind: 'builtin', id: 'reachlab/micro-arith' } });
    expect(loadSetup(s, 'new')).not.toBeNull();
  });
});

describe('the interrupted run Setup offers to resume', () => {
  const entry = (id: string, status: string, startedAt: string, legacy = false) => ({ id, status, startedAt, legacy });

  it('is the latest interrupted run with a kept setup', () => {
    const s = memory();
    for (const id of ['old', 'new', 'nosetup']) saveSetup(s, id, setup);
    const entries = [entry('old', 'interrupted', '2026-01-01T00:00:00Z'), entry('new', 'interrupted', '2026-01-02T00:00:00Z'), entry('done', 'finished', '2026-01-03T00:00:00Z')];
    expect(interruptedRun(entries, s)?.entry.id).toBe('new');
    expect(interruptedRun(entries, s)?.setup.task).toEqual(setup.task);
  });

  it('is none for paused, cancelled, legacy runs or runs whose setup was not kept', () => {
    const s = memory();
    for (const id of ['p', 'c', 'l']) saveSetup(s, id, setup);
    expect(interruptedRun([entry('p', 'paused', '2026-01-01T00:00:00Z'), entry('c', 'cancelled', '2026-01-01T00:00:00Z'), entry('l', 'interrupted', '2026-01-01T00:00:00Z', true), entry('x', 'interrupted', '2026-01-02T00:00:00Z')], s)).toBeNull();
  });
});

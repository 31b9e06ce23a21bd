import { describe, expect, it } from 'vitest';
import { normalizePlan, probeLabel } from '../../audit/study-plan';
import { addPair, FORM_MODELS, FORM_PROBES, FORM_TASKS, HUB_MODEL_RE, listOf, pairsOf, PLAN_DEFAULTS, probeLabels, rawPlan, removePair, setField, toggleIn, toggleProbe, writePlan } from './study-form';

describe('study form over the plan text', () => {
  it('reads only a JSON object; anything else turns the form off', () => {
    expect(rawPlan('{"models": [')).toBeNull();
    expect(rawPlan('[1]')).toBeNull();
    expect(rawPlan('{"models": ["a/b"], "models": []}')).toBeNull(); // a repeated key: the form is off, the editor names it
    expect(rawPlan('null')).toBeNull();
    expect(rawPlan('{"models": ["a"]}')).toEqual({ models: ['a'] });
  });

  it('offers the built-in models and tasks by the names a plan uses', () => {
    expect(FORM_MODELS.map((m) => m.ref)).toEqual(['builtin:micro-arith', 'builtin:micro-arith-rl']);
    expect(FORM_TASKS.map((t) => t.ref)).toContain('builtin:arith-2d');
    expect(FORM_TASKS.map((t) => t.ref)).toContain('hub:gsm8k');
    expect(PLAN_DEFAULTS.probes).toEqual([{ probe: 'random-routes', space: 'blocks' }]);
  });

  it("offers the registry's standalone reach probes, a route probe per space, an MCTS preset once", () => {
    const offered = new Map(FORM_PROBES.map((p) => [probeLabel(p.probe), p.label]));
    expect(offered.get('random-routes/blocks')).toBe('Random routes, blocks space');
    expect(offered.get('random-routes/cola')).toBe("Random routes, CoLa's space");
    // MCTS in the blocks and CoLa spaces is one preset (CoLa's, in its own space): offered once
    expect(offered.get('mcts-routes/blocks')).toBe("MCTS routes (CoLa), CoLa's space, with depth-matched routes (CoLa) beside it");
    expect(offered.has('mcts-routes/cola')).toBe(false);
    expect(offered.get('mcts-routes/neighborhood')).toMatch(/^MCTS routes \(program selection\), neighborhood space, with depth-matched/);
    expect(offered.get('sampling')).toBe('Sampling');
    for (const p of FORM_PROBES) expect(() => normalizePlan({ models: ['-'], tasks: ['-'], probes: [p.probe] })).not.toThrow();
  });

  it('ticks and unticks list entries, keeping the others (odd entries too) in order', () => {
    const raw = { models: ['a/b', 7, 'c/d'] };
    expect(toggleIn(raw, 'models', 'builtin:micro-arith', true).models).toEqual(['a/b', 7, 'c/d', 'builtin:micro-arith']);
    expect(toggleIn(raw, 'models', 'a/b', false).models).toEqual([7, 'c/d']);
    expect(toggleIn({}, 'tasks', 'builtin:arith-2d', true)).toEqual({ tasks: ['builtin:arith-2d'] });
    expect(listOf(raw, 'models')).toEqual(['a/b', 'c/d']);
    expect(raw.models).toEqual(['a/b', 7, 'c/d']); // the input is not changed
  });

  it('an omitted probe list means the default, which the first edit writes out', () => {
    expect(probeLabels({})).toEqual(['random-routes/blocks']);
    const raw = toggleProbe({}, { probe: 'sampling' }, true);
    expect(raw.probes).toEqual([{ probe: 'random-routes', space: 'blocks' }, { probe: 'sampling' }]);
    expect(probeLabels(toggleProbe(raw, { probe: 'random-routes', space: 'blocks' }, false))).toEqual(['sampling']);
    expect(probeLabels(toggleProbe(raw, { probe: 'mcts-routes', space: 'neighborhood' }, true))).toEqual(['random-routes/blocks', 'sampling', 'mcts-routes/neighborhood']);
  });

  it('sets numbers and switches in place, and an emptied field falls back to the default', () => {
    const raw = { models: ['m/x'], budget: 8, tasks: ['builtin:arith-2d'] };
    expect(Object.keys(setField(raw, 'budget', 16))).toEqual(['models', 'budget', 'tasks']);
    expect(setField(raw, 'budget', 16).budget).toBe(16);
    expect(setField(raw, 'budget', null)).toEqual({ models: ['m/x'], tasks: ['builtin:arith-2d'] });
    expect(setField(raw, 'scan', true).scan).toBe(true);
  });

  it('adds and removes pairs by position, and checks Hub ids', () => {
    const raw = addPair(addPair({ pairs: ['odd'] }, 'a/b', 'a/c'), 'x/y', 'x/z');
    expect(pairsOf(raw)).toEqual([{ base: 'a/b', trained: 'a/c', index: 1 }, { base: 'x/y', trained: 'x/z', index: 2 }]);
    expect(pairsOf(removePair(raw, 1))).toEqual([{ base: 'x/y', trained: 'x/z', index: 1 }]);
    expect(HUB_MODEL_RE.test('Qwen/Qwen2.5-0.5B@main')).toBe(true);
    expect(HUB_MODEL_RE.test('not a model')).toBe(false);
    expect(HUB_MODEL_RE.test('../etc')).toBe(false);
  });

  it('a plan built with the form alone is a valid plan', () => {
    let raw = {};
    raw = toggleIn(raw, 'models', 'builtin:micro-arith', true);
    raw = toggleIn(raw, 'tasks', 'builtin:arith-2d', true);
    raw = toggleProbe(raw, { probe: 'mcts-routes', space: 'blocks' }, true);
    raw = setField(setField(raw, 'budget', 8), 'scan', true);
    raw = addPair(raw, 'builtin:micro-arith', 'builtin:micro-arith-rl');
    const plan = normalizePlan(JSON.parse(writePlan(raw)));
    expect(plan).toMatchObject({ models: ['builtin:micro-arith'], budget: 8, scan: true, probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'mcts-routes', space: 'blocks' }] });
  });

  it('a plan naming a probe no registry has ("evil", "toString", "__proto__") shows no ticked probe; normalizePlan names the problem', () => {
    for (const name of ['evil', 'toString', '__proto__', 'constructor']) {
      const raw = rawPlan(JSON.stringify({ models: ['a/b'], tasks: ['builtin:arith-2d'], probes: [{ probe: name }, { probe: 'sampling' }] }))!;
      expect(probeLabels(raw)).toEqual(['sampling']);
      // ticking a probe keeps the unknown entry as written (the text is the source of truth)
      expect(toggleProbe(raw, { probe: 'random-routes', space: 'blocks' }, true).probes).toEqual([{ probe: name }, { probe: 'sampling' }, { probe: 'random-routes', space: 'blocks' }]);
      expect(() => normalizePlan(raw)).toThrow(`probes[0].probe: expected one of`);
    }
  });
});

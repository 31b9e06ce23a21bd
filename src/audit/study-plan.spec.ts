// A study plan's own checks (issue 43): its name, its lists of duplicates and its template
// variables, each refused by name and quoted within the clipping rule.
import { describe, expect, it } from 'vitest';
import { QUOTE_CHARS } from '../util/clip';
import { parseTemplateVars } from './setup';
import { normalizePlan, planKey, PLAN_NAME_CHARS, probeLabel, studyRunProbes } from './study-plan';

const PLAN = { models: ['builtin:micro-arith'], tasks: ['builtin:arith-2d'] };
const refusal = (raw: unknown): string => {
  try {
    normalizePlan(raw);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the plan was accepted');
};

describe('a plan name', () => {
  it('is refused past its length bound, saying the bound and not echoing the name', () => {
    const m = refusal({ ...PLAN, name: 'n'.repeat(5_000_000) });
    expect(m).toBe(`study plan: name: expected at most ${PLAN_NAME_CHARS} characters, got 5,000,000 characters`);
    expect(normalizePlan({ ...PLAN, name: 'n'.repeat(PLAN_NAME_CHARS) }).name).toHaveLength(PLAN_NAME_CHARS);
  });

  it('is refused with control characters (a terminal escape, a forged line)', () => {
    expect(refusal({ ...PLAN, name: 'x\u001b[2J' })).toBe('study plan: name: expected no control characters, got a name holding U+001B');
    expect(refusal({ ...PLAN, name: 'x\r\nstudy done' })).toBe('study plan: name: expected no control characters, got a name holding U+000D');
  });
});

describe('lists of duplicates', () => {
  it('name the entry listed twice, clipped', () => {
    expect(refusal({ ...PLAN, models: ['a/b', 'c/d', 'a/b'] })).toBe('study plan: models: expected no repeats, got "a/b" twice');
    const m = refusal({ ...PLAN, probes: Array.from({ length: 10_000 }, () => ({ probe: 'sampling' })) });
    expect(m).toBe('study plan: probes: expected no repeats, got sampling twice');
    const long = 'm/'.padEnd(10_000, 'x');
    expect(refusal({ ...PLAN, tasks: [long, long] }).length).toBeLessThan(QUOTE_CHARS + 80);
  });
});

describe('template variables, strictly typed', () => {
  it('in a plan: a flag is a JSON boolean, a date a JSON string', () => {
    expect(refusal({ ...PLAN, chat: true, template_vars: { enable_thinking: 'true' } })).toBe('study plan: template_vars.enable_thinking: expected true or false (a boolean), got "true"');
    expect(refusal({ ...PLAN, chat: true, template_vars: { add_generation_prompt: 1 } })).toBe('study plan: template_vars.add_generation_prompt: expected true or false (a boolean), got number 1');
    expect(refusal({ ...PLAN, chat: true, template_vars: { date_string: ['26 Jul 2024'] } })).toBe('study plan: template_vars.date_string: expected a day as a string "%d %b %Y" (e.g. "26 Jul 2024"), got an array of 1');
    expect(refusal({ ...PLAN, chat: true, template_vars: { today: '26 Jul 2024' } })).toBe('study plan: template_vars: expected one of the template variables add_generation_prompt, date_string, enable_thinking, got an unknown template variable "today"');
    expect(normalizePlan({ ...PLAN, chat: true, template_vars: { enable_thinking: false, date_string: '01 Jan 2025' } }).template_vars).toEqual({ enable_thinking: false, date_string: '01 Jan 2025' });
  });

  it('on the command line: a variable set twice is refused by name', () => {
    expect(() => parseTemplateVars(['enable_thinking=false', 'enable_thinking=true'])).toThrow('template variable enable_thinking is set twice (set each once)');
    expect(parseTemplateVars(['enable_thinking=false', 'date_string=01 Jan 2025'])).toEqual({ enable_thinking: false, date_string: '01 Jan 2025' });
  });
});

describe('a probe entry\'s own settings', () => {
  const withProbes = (...probes: unknown[]) => ({ ...PLAN, budget: 8, seed: 3, probes });

  it('are accepted within the registry\'s bounds, kept in the probe\'s order, and named in the label', () => {
    const plan = normalizePlan(withProbes({ probe: 'sampling', temperature: 1, budget: 64 }, { probe: 'sampling' }));
    expect(plan.probes).toEqual([{ probe: 'sampling', space: 'blocks', budget: 64, temperature: 1 }, { probe: 'sampling', space: 'blocks' }]);
    expect(plan.probes.map(probeLabel)).toEqual(['sampling (budget 64, temperature 1)', 'sampling']);
  });

  it('are refused outside their bounds, or where the probe has no such setting, naming the field and its bound', () => {
    expect(refusal(withProbes({ probe: 'sampling', budget: 0 }))).toBe('study plan: probes[0].budget: expected an integer from 1 to 10000, got number 0');
    expect(refusal(withProbes({ probe: 'random-routes' }, { probe: 'sampling', topP: 1.5 }))).toBe('study plan: probes[1].topP: expected a number in (0, 1], got number 1.5');
    expect(refusal(withProbes({ probe: 'mcts-routes', space: 'neighborhood', radius: -1 }))).toBe('study plan: probes[0].radius: expected an integer ≥ 0, got number -1');
    expect(refusal(withProbes({ probe: 'sampling', radius: 2 }))).toMatch(/^study plan: probes\[0\]\.radius: expected a known field \(probe, space, budget, seed, temperature, topP\), got an unknown field$/);
  });

  it('reach the run\'s probe spec, the plan\'s budget and seed being the defaults', () => {
    const plan = normalizePlan(withProbes({ probe: 'sampling', budget: 64, temperature: 1 }, { probe: 'sampling', seed: 9 }, { probe: 'mcts-routes', space: 'neighborhood', radius: 1 }));
    const [own, seeded, search] = plan.probes.map((p) => studyRunProbes(plan, p, 8)[1]);
    expect(own).toMatchObject({ probe: 'sampling', budget: 64, temperature: 1, seed: 3 });
    expect(seeded).toMatchObject({ probe: 'sampling', budget: 8, temperature: 0.6, seed: 9 });
    expect(search).toMatchObject({ probe: 'mcts-routes', preset: 'program-selection', budget: 8, space: { kind: 'neighborhood', radius: 1 } });
  });

  it('leave the key of a plan without them as it was', async () => {
    const plain = { ...PLAN, probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'sampling' }] };
    expect(await planKey(normalizePlan(plain))).toBe(await planKey(normalizePlan({ ...plain, probes: [{ probe: 'random-routes' }, { probe: 'sampling', space: 'neighborhood' }] })));
    expect(await planKey(normalizePlan(plain))).not.toBe(await planKey(normalizePlan({ ...plain, probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'sampling', budget: 16 }] })));
  });
});

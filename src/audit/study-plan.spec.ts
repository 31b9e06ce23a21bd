// A study plan's own checks (issue 43): its name, its lists of duplicates and its template
// variables, each refused by name and quoted within the clipping rule.
import { describe, expect, it } from 'vitest';
import { QUOTE_CHARS } from '../util/clip';
import { parseTemplateVars } from './setup';
import { normalizePlan, PLAN_NAME_CHARS } from './study';

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
    expect(m).toBe(`study plan: name must be at most ${PLAN_NAME_CHARS} characters, got 5,000,000`);
    expect(normalizePlan({ ...PLAN, name: 'n'.repeat(PLAN_NAME_CHARS) }).name).toHaveLength(PLAN_NAME_CHARS);
  });

  it('is refused with control characters (a terminal escape, a forged line)', () => {
    expect(refusal({ ...PLAN, name: 'x\u001b[2J' })).toBe('study plan: name must not hold control characters (it has U+001B)');
    expect(refusal({ ...PLAN, name: 'x\r\nstudy done' })).toBe('study plan: name must not hold control characters (it has U+000D)');
  });
});

describe('lists of duplicates', () => {
  it('name the entry listed twice, clipped', () => {
    expect(refusal({ ...PLAN, models: ['a/b', 'c/d', 'a/b'] })).toBe('study plan: models lists "a/b" twice');
    const m = refusal({ ...PLAN, probes: Array.from({ length: 10_000 }, () => ({ probe: 'sampling' })) });
    expect(m).toMatch(/^study plan: probes list one probe twice \(sampling\)$/);
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

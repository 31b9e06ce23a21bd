import { describe, expect, it } from 'vitest';
import { encodePermalink, linkModelOf, parsePermalink, validateCondition } from './permalink';
import { BOXED_CONDITION, DEFAULT_CONDITION } from './presets';

describe('permalink', () => {
  it('round-trips model, task, condition and both seeds', () => {
    const link = {
      model: { kind: 'hub' as const, repo: 'Qwen/Qwen2.5-0.5B', revision: 'main' },
      task: { kind: 'builtin' as const, id: 'arith-2d', count: 50 },
      // the CoLa condition requires \boxed{}; the link must keep that and the target delimiter
      condition: { ...BOXED_CONDITION, fewShot: { n: 2, seed: 3, targetDelimiter: ' ' }, decoding: { kind: 'sample' as const, temperature: 0.6, topP: 0.95, seed: 2 } },
      questionSeed: 3,
      probeSeed: 5,
    };
    expect(link.condition.requireBoxed).toBe(true);
    const hash = encodePermalink(link);
    expect(hash).toContain('qseed=3&pseed=5');
    expect(parsePermalink(hash)).toEqual({ ...link, errors: [] });
  });
  it('names the RL-trained built-in model, and reads "builtin" as the first one', () => {
    const hash = encodePermalink({ model: linkModelOf({ kind: 'builtin', id: 'reachlab/micro-arith-rl' }) });
    expect(hash).toBe('#model=builtin%3Areachlab%2Fmicro-arith-rl');
    expect(parsePermalink(hash).model).toEqual({ kind: 'builtin', id: 'reachlab/micro-arith-rl' });
    expect(encodePermalink({ model: linkModelOf({ kind: 'builtin', id: 'reachlab/micro-arith' }) })).toBe('#model=builtin');
    expect(parsePermalink('#model=builtin').model).toEqual({ kind: 'builtin' });
    expect(parsePermalink('#model=builtin:nope').errors[0]).toMatch(/expected "builtin", "builtin:<built-in model>"/);
  });
  it('reads the seed of a built-in task from links written before qseed', () => {
    expect(parsePermalink('#task=builtin:arith-2d:50:7').task).toEqual({ kind: 'builtin', id: 'arith-2d', count: 50, seed: 7 });
  });
  it('names a bad seed and keeps the rest', () => {
    const parsed = parsePermalink('#qseed=-1&pseed=4294967296&task=hub:gsm8k:5');
    expect(parsed.errors).toEqual(['question seed in link must be a whole number from 0 to 4294967295', 'probe seed in link must be a whole number from 0 to 4294967295']);
    expect([parsed.questionSeed, parsed.probeSeed, parsed.task]).toEqual([undefined, undefined, { kind: 'hub', preset: 'gsm8k', count: 5 }]);
  });
  it('keeps unicode in the prompt template', () => {
    const condition = { ...DEFAULT_CONDITION, promptTemplate: 'Frage → {{question}} ✓' };
    expect(parsePermalink(encodePermalink({ condition })).condition?.promptTemplate).toBe('Frage → {{question}} ✓');
  });
  it('drops a bad field, names it, and keeps the rest', () => {
    const good = encodePermalink({ task: { kind: 'hub', preset: 'gsm8k', count: 20 } });
    const parsed = parsePermalink(`${good}&model=hub:../../etc@main`);
    expect(parsed.task).toEqual({ kind: 'hub', preset: 'gsm8k', count: 20 });
    expect(parsed.model).toBeUndefined();
    expect(parsed.errors).toEqual(['model in link: "../../etc" is not a Hub repo id (owner/name)']);
  });
  it('rejects malformed condition payloads without throwing', () => {
    expect(parsePermalink('#cond=%%%').errors).toEqual(['condition in link is not valid base64url JSON']);
    const notJson = btoa('{"a":').replace(/=+$/, '');
    expect(parsePermalink(`#cond=${notJson}`).errors).toEqual(['condition in link is not valid base64url JSON']);
    const arr = btoa('[1,2]').replace(/=+$/, '');
    expect(parsePermalink(`#cond=${arr}`).errors).toEqual(['condition in link: expected an object, got an array of 2']);
  });
  it('refuses a condition with a repeated key by name', () => {
    const dup = btoa('{"graderVersion":3,"graderVersion":2}').replace(/=+$/, '');
    expect(parsePermalink(`#cond=${dup}`).errors).toEqual(['condition in link is refused: duplicate key "graderVersion" at the top level (line 1)']);
  });
  it('rejects unknown tasks and out-of-range counts', () => {
    expect(parsePermalink('#task=builtin:rm-rf:5:1').errors[0]).toMatch(/unknown built-in task "rm-rf"/);
    expect(parsePermalink('#task=hub:gsm8k:0').errors[0]).toMatch(/question count must be in \[1, 100000\]/);
    expect(parsePermalink('#task=hub:gsm8k:1e3').errors[0]).toMatch(/question count must be a whole number/);
  });
  it('ignores an oversized hash', () => {
    expect(parsePermalink('#' + 'a'.repeat(9000)).errors[0]).toMatch(/longer than 8192/);
  });
  it('reads an empty hash as nothing', () => {
    expect(parsePermalink('')).toEqual({ errors: [] });
  });
});

describe('validateCondition', () => {
  it('accepts the presets', () => {
    expect(validateCondition(DEFAULT_CONDITION)).toEqual(DEFAULT_CONDITION);
  });
  it('lists every problem', () => {
    const errs = validateCondition({ ...DEFAULT_CONDITION, promptTemplate: 'no slot', maxNewTokens: 0, engineDtype: 'f64', extra: 1 });
    expect(errs).toEqual([
      'promptTemplate: expected a string of at most 20000 characters containing {{question}}, got "no slot"',
      'maxNewTokens: expected an integer ≥ 1 ≤ 32768, got number 0',
      'engineDtype: expected one of "f32", "f16", "q4", "q4f16", "q8", "q8b", got "f64"',
    ]);
  });
  it('drops unknown members, and the few-shot pool (a run binds its own task\'s)', () => {
    const c = validateCondition({ ...DEFAULT_CONDITION, __proto__x: 'x' });
    expect(c).toEqual(DEFAULT_CONDITION);
    const pooled = { ...DEFAULT_CONDITION, fewShot: { n: 1, seed: 1, pool: 'a'.repeat(64) } };
    expect(validateCondition(pooled)).toEqual({ ...DEFAULT_CONDITION, fewShot: { n: 1, seed: 1 } });
  });
  it('checks requireBoxed and the target delimiter', () => {
    const errs = validateCondition({ ...DEFAULT_CONDITION, requireBoxed: 'yes', fewShot: { n: 0, seed: 1, targetDelimiter: 7 } });
    expect(errs).toEqual(['fewShot.targetDelimiter: expected a string of at most 64 characters, got number 7', 'requireBoxed: expected true or false, got "yes"']);
  });
});

import { describe, expect, it } from 'vitest';
import { encodePermalink, parsePermalink, validateCondition } from './permalink';
import { BOXED_CONDITION, DEFAULT_CONDITION } from './presets';

describe('permalink', () => {
  it('round-trips model, task and condition', () => {
    const link = {
      model: { kind: 'hub' as const, repo: 'Qwen/Qwen2.5-0.5B', revision: 'main' },
      task: { kind: 'builtin' as const, id: 'arith-2d', count: 50, seed: 3 },
      condition: { ...BOXED_CONDITION, decoding: { kind: 'sample' as const, temperature: 0.6, topP: 0.95, seed: 2 } },
    };
    const parsed = parsePermalink(encodePermalink(link));
    expect(parsed.errors).toEqual([]);
    expect(parsed).toEqual({ ...link, errors: [] });
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
    expect(parsePermalink(`#cond=${arr}`).errors).toEqual(['condition in link: expected an object']);
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
      'promptTemplate must contain {{question}}',
      'maxNewTokens must be a whole number in [1, 4096]',
      'engineDtype must be one of f32, f16, q4, q4f16',
    ]);
  });
  it('drops unknown members', () => {
    const c = validateCondition({ ...DEFAULT_CONDITION, __proto__x: 'x' });
    expect(c).toEqual(DEFAULT_CONDITION);
  });
});

import { describe, expect, it } from 'vitest';
import { normalizePlan, planKey } from './study-plan';

const base = { models: ['Qwen/Qwen3-0.6B'], tasks: ['hub:gsm8k'] };

describe('study plans with the chat template', () => {
  it('take chat and template_vars as the CLI takes --chat --template-var; plans without them keep their keys', async () => {
    const raw = normalizePlan(base);
    expect('chat' in raw || 'template_vars' in raw).toBe(false);
    expect(await planKey(normalizePlan({ ...base, chat: false }))).toBe(await planKey(raw));
    const plan = normalizePlan({ ...base, chat: true, template_vars: { enable_thinking: false, date_string: '06 Dec 2026' } });
    expect(plan).toMatchObject({ chat: true, template_vars: { enable_thinking: false, date_string: '06 Dec 2026' } });
    expect(await planKey(plan)).not.toBe(await planKey(raw));
  });

  it('refuses template variables without chat, unknown ones and bad values, by name', () => {
    expect(() => normalizePlan({ ...base, template_vars: { enable_thinking: false } })).toThrow('study plan: template_vars needs "chat": true');
    expect(() => normalizePlan({ ...base, chat: true, template_vars: { tools: [] } })).toThrow(/study plan: template_vars: expected one of the template variables .*, got an unknown template variable "tools"/);
    expect(() => normalizePlan({ ...base, chat: true, template_vars: { enable_thinking: 'no' } })).toThrow('study plan: template_vars.enable_thinking: expected true or false (a boolean), got "no"');
    expect(() => normalizePlan({ ...base, chat: 'yes' })).toThrow('study plan: chat: expected true or false, got "yes"');
    expect(() => normalizePlan({ ...base, chat: true, template_vars: { date_string: '2026-12-06' } })).toThrow(/template_vars.date_string: expected a day as a string "%d %b %Y"/);
  });
});

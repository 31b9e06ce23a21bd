import { describe, expect, it } from 'vitest';
import { compileChatTemplate, TEMPLATE_LIMITS } from './chat-template.ts';

const msgs = [{ role: 'user', content: 'hi' }];
const tv = { add_generation_prompt: true, date_string: '26 Jul 2024' };

describe('chat templates under bounds', () => {
  it('renders an ordinary template, range() and macros included', () => {
    const t = compileChatTemplate('{% macro turn(m) %}<{{ m.role }}>{{ m.content }}{% endmacro %}{% for m in messages %}{{ turn(m) }}{% endfor %}{% for i in range(3) %}{{ i }}{% endfor %}{% for i in range(4, 0, -2) %}{{ i }}{% endfor %}');
    expect(t.render({ messages: msgs }, tv)).toBe('<user>hi01242');
  });

  it('refuses a range past the bound by name, before making it', () => {
    const t = compileChatTemplate('{% for i in range(1000000000) %}x{% endfor %}');
    expect(() => t.render({ messages: msgs }, tv)).toThrow(
      expect.objectContaining({ code: 'bad-input', message: `chat template called range() for 1000000000 numbers, more than the ${TEMPLATE_LIMITS.listItems} allowed (a looping template?)` }),
    );
  });

  it('stops a looping template at the time limit with a named error', () => {
    // 10^15 passes over bounded ranges: only the time check can end it.
    const t = compileChatTemplate('{% set r = range(100000) %}{% for a in r %}{% for b in r %}{% for c in r %}{% endfor %}{% endfor %}{% endfor %}');
    const start = performance.now();
    expect(() => t.render({ messages: msgs }, tv)).toThrow(/^chat template ran past its 2 s time limit \(a looping template\?\)$/);
    expect(performance.now() - start).toBeLessThan(TEMPLATE_LIMITS.timeMs + 1500);
  });

  it('refuses output past the size limit', () => {
    const t = compileChatTemplate(`{% for i in range(20000) %}${'0123456789'.repeat(10)}{% endfor %}`);
    expect(() => t.render({ messages: msgs }, tv)).toThrow(/^chat template made a string of 2000000 characters, more than the 1000000 allowed$/);
  });

  it('names a template error and a template that does not parse', () => {
    expect(() => compileChatTemplate('{% for %}')).toThrow(/chat_template does not parse/);
    expect(() => compileChatTemplate('{{ raise_exception("only user turns") }}').render({}, tv)).toThrow(/^chat template failed: only user turns$/);
  });
});

describe('issue 43: template errors and strftime_now', () => {
  it('clips a long raise_exception message to the quoting rule', () => {
    const t = compileChatTemplate("{{ raise_exception(range(5000)|join('<b>x</b>')) }}");
    let message = '';
    try {
      t.render({ messages: msgs }, tv);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^chat template failed: 0<b>x<\/b>1<b>x<\/b>2.*… \(58,882 characters in all\)$/);
    expect(message.length).toBeLessThan(260);
  });

  it('names strftime_now() without a format', () => {
    expect(() => compileChatTemplate('{{ strftime_now() }}').render({ messages: msgs }, tv)).toThrow(
      expect.objectContaining({ code: 'bad-input', message: 'chat template called strftime_now() without a format (e.g. strftime_now("%d %b %Y"))' }),
    );
  });
});

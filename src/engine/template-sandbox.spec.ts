import { afterAll, describe, expect, it } from 'vitest';
import { TEMPLATE_LIMITS } from './chat-template.ts';
import { spawnNodeTemplateWorker } from './template-host-node.ts';
import { KILL_GRACE_MS, TemplateSandbox, type TemplatePort } from './template-sandbox.ts';
import { ESCAPE_TEMPLATES, HOSTILE_TEMPLATES } from './testing/hostile-templates.ts';
import { compileChatTemplate } from './chat-template.ts';

const tv = { add_generation_prompt: true, date_string: '26 Jul 2024' };
const vars = { messages: [{ role: 'user', content: 'hi' }] };
/** Issue 43's bound: every render ends within the deadline plus a second. */
const BOUND_MS = TEMPLATE_LIMITS.timeMs + 1000;
const started = performance.now();

/** A sandbox over Node worker threads that counts the renders its workers were sent. */
function sandbox(entries: (URL | undefined)[] = []) {
  const sent: string[] = [];
  let n = 0;
  const sb = new TemplateSandbox(async () => {
    const port = spawnNodeTemplateWorker(entries[n++]);
    return { ...port, post: (req) => (sent.push(req.source), port.post(req)) } satisfies TemplatePort;
  });
  return { sb, sent };
}

/** How a render of `source` ends on a warm worker, and how long it took. */
async function ending(sb: TemplateSandbox, source: string): Promise<{ error: unknown; ms: number }> {
  await sb.template('warm', 'warm').render({ n: Math.random() }, tv);
  const t0 = performance.now();
  const error = await sb.template(source, 'chat_template.jinja').render(vars, tv).then(() => null, (e: unknown) => e);
  return { error, ms: performance.now() - t0 };
}

describe('the hostile-template corpus, rendered in the sandbox', () => {
  const { sb } = sandbox();
  afterAll(() => sb.close());

  for (const c of HOSTILE_TEMPLATES) {
    it(`${c.name}: a named error within the deadline plus a second`, async () => {
      if (c.atParse) {
        expect(() => compileChatTemplate(c.source, 'chat_template.jinja')).toThrow(c.error);
        return;
      }
      const { error, ms } = await ending(sb, c.source);
      expect(error).toMatchObject({ name: 'EngineError', code: 'bad-input', message: expect.stringMatching(c.error) });
      expect((error as Error).message.length).toBeLessThan(300);
      expect(ms).toBeLessThan(BOUND_MS);
    });
  }

  for (const c of ESCAPE_TEMPLATES) {
    it(`reaches nothing of the host: ${c.name}`, async () => {
      const out = await sb.template(c.source, 'chat_template.jinja').render(vars, tv);
      expect(out).toMatch(/^\|*$/);
    });
  }

  it('refuses control characters in date_string, and strftime_now() without a format, by name', async () => {
    await expect(sb.template('{{ date_string }}', 'f').render(vars, { ...tv, date_string: '26 Jul 2024\u001b[2J' })).rejects.toThrow(/^template variable date_string must be a day as "%d %b %Y"/);
    await expect(sb.template('{{ strftime_now() }}', 'f').render(vars, tv)).rejects.toThrow(/^chat template called strftime_now\(\) without a format/);
    expect(await sb.template('{{ strftime_now("%d %B %Y") }}', 'f').render(vars, tv)).toBe('26 July 2024');
  });
});

describe('the sandbox does not rely on the worker', () => {
  const rogue = new URL('./testing/rogue-template-worker.mjs', import.meta.url);

  it('ends a worker that never answers at the deadline, and serves the next render from a fresh one', async () => {
    const { sb } = sandbox([rogue]);
    const { error, ms } = await ending(sb, 'spin');
    expect(error).toMatchObject({ code: 'bad-input', message: expect.stringMatching(/^chat template ran past its 2 s time limit and was stopped/) });
    expect(ms).toBeGreaterThanOrEqual(TEMPLATE_LIMITS.timeMs + KILL_GRACE_MS - 5);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(await sb.template('{{ 1 + 1 }}', 'f').render(vars, tv)).toBe('2');
    expect(sb.spawned).toBe(2);
    sb.close();
  });

  it('ends a worker at its memory cap with a named error, and the process goes on', async () => {
    const { sb } = sandbox([rogue]);
    const { error, ms } = await ending(sb, 'grow');
    expect(error).toMatchObject({ code: 'bad-input', message: expect.stringMatching(/^chat template went past its 256 MB memory limit and was stopped/) });
    expect(ms).toBeLessThan(BOUND_MS);
    expect(await sb.template('{{ 2 + 2 }}', 'f').render(vars, tv)).toBe('4');
    sb.close();
  });

  it('renders a (template, conversation, variables) once: a repeat is served from the cache', async () => {
    const { sb, sent } = sandbox();
    const t = sb.template('{{ messages[0].content }}{{ add_generation_prompt }}', 'f');
    expect(await t.render(vars, tv)).toBe('hitrue');
    expect(await t.render({ messages: [{ role: 'user', content: 'hi' }] }, { ...tv })).toBe('hitrue');
    expect(await t.render(vars, { ...tv, add_generation_prompt: false })).toBe('hifalse');
    expect(sent).toHaveLength(2);
    sb.close();
  });
});

afterAll(() => {
  // the whole corpus is a safety bound, not a timing: a regression that hangs fails here
  expect(performance.now() - started).toBeLessThan(90_000);
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkTokenizerVocab, createTokenizer } from './tokenizer.ts';
import { openCheckpoint } from './checkpoint.ts';
import { MemoryReader } from './sources/memory.ts';

const read = (m: string, f: string) => JSON.parse(readFileSync(new URL(`../../test/fixtures/reference/${m}/${f}`, import.meta.url), 'utf8'));
const tokenizerJson = read('tiny-qwen2', 'tokenizer.json');
const tokenizerConfig = read('tiny-qwen2', 'tokenizer_config.json') as Record<string, unknown>;
const tok = createTokenizer(tokenizerJson, tokenizerConfig);
const vars = (add_generation_prompt: boolean) => ({ add_generation_prompt, date_string: '26 Jul 2024' });

const TEXTS = [
  'Question: What is 12 + 7? Answer: 19',
  'héllo wörld ✓ 中文 🙂',
  "  it's   spaced\n\nout\t",
  '<|im_start|>user\nhi<|im_end|>\n',
];

/** An independent byte-level BPE (GPT-2 scheme) over the fixture's vocab and merges. */
function referenceEncode(text: string): number[] {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const byteChar = new Map<number, string>();
  bs.forEach((b) => byteChar.set(b, String.fromCodePoint(b)));
  let n = 0;
  for (let b = 0; b < 256; b++) if (!byteChar.has(b)) byteChar.set(b, String.fromCodePoint(256 + n++));
  const vocab = tokenizerJson.model.vocab as Record<string, number>;
  const rank = new Map<string, number>(
    (tokenizerJson.model.merges as Array<string | [string, string]>).map((m, i) => [Array.isArray(m) ? m.join(' ') : m, i]),
  );
  const special = new Map<string, number>((tokenizerJson.added_tokens as Array<{ content: string; id: number }>).map((t) => [t.content, t.id]));
  const pattern = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
  const ids: number[] = [];
  const parts = text.split(new RegExp(`(${[...special.keys()].map((s) => s.replace(/[|]/g, '\\|')).join('|')})`));
  for (const part of parts) {
    if (special.has(part)) {
      ids.push(special.get(part)!);
      continue;
    }
    for (const word of part.match(pattern) ?? []) {
      let syms = Array.from(new TextEncoder().encode(word), (b) => byteChar.get(b)!);
      for (;;) {
        let best = -1;
        let bestRank = Infinity;
        for (let i = 0; i + 1 < syms.length; i++) {
          const r = rank.get(`${syms[i]} ${syms[i + 1]}`);
          if (r !== undefined && r < bestRank) [best, bestRank] = [i, r];
        }
        if (best < 0) break;
        syms = [...syms.slice(0, best), syms[best] + syms[best + 1], ...syms.slice(best + 2)];
      }
      ids.push(...syms.map((s) => vocab[s]));
    }
  }
  return ids;
}

describe('tokenizer on the reference byte-level BPE', () => {
  it.each(TEXTS)('encodes %j as an independent BPE does, and decodes back', (text) => {
    const ids = tok.encode(text);
    expect(ids).toEqual(referenceEncode(text));
    expect(tok.decode(ids)).toBe(text);
  });

  it('adds no special tokens, and can skip them when decoding', () => {
    expect(tok.bosTokenId).toBeNull();
    expect(tok.encode('hi')).toEqual([71, 72]);
    expect(tok.decode(tok.encode('<|im_start|>user\nhi<|im_end|>'), { skipSpecialTokens: true })).toBe('user\nhi');
  });

  it('decodes the expected.json prompt ids to vocab tokens (random ids: not valid UTF-8 text, so no round trip)', () => {
    const ids = read('tiny-qwen2', 'expected.json').input_ids as number[];
    for (const id of ids) expect(tok.decode([id]).length).toBeGreaterThan(0);
    // byte-level fragments that are not whole UTF-8 characters decode to U+FFFD, so
    // decode -> encode does not give these ids back; text -> ids -> text does (above).
    expect(tok.decode(ids)).toContain('\uFFFD');
  });

  it('renders the ChatML chat template', async () => {
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'What is 2+2?' },
    ];
    expect(tok.hasChatTemplate).toBe(true);
    expect(await tok.applyChatTemplate(messages, vars(true))).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(await tok.applyChatTemplate(messages.slice(1), vars(false))).toBe('<|im_start|>user\nWhat is 2+2?<|im_end|>\n');
  });

  it('decodes as tokenizers does: no clean-up of spaces, [] is ""', () => {
    const ids = tok.encode('1 ,000 and ok .');
    expect(tok.decode(ids)).toBe('1 ,000 and ok .');
    expect(createTokenizer(tokenizerJson, { ...tokenizerConfig, clean_up_tokenization_spaces: true }).decode(ids)).toBe('1 ,000 and ok .');
    expect(tok.decode([])).toBe('');
  });
});

describe('tokenizer options', () => {
  const { add_bos_token: _, ...noAddBos } = tokenizerConfig; // the fixture says add_bos_token: false
  const withBos = (config: Record<string, unknown>, json: unknown = tokenizerJson) =>
    createTokenizer(json, { ...noAddBos, bos_token: '<|endoftext|>', ...config });

  it('prepends BOS once when add_bos_token is set', () => {
    const t = withBos({ add_bos_token: true });
    expect(t.bosTokenId).toBe(376);
    expect(t.encode('hi')).toEqual([376, 71, 72]);
    expect(t.encode('<|endoftext|>hi')).toEqual([376, 71, 72]);
    expect(withBos({ add_bos_token: false }).encode('hi')).toEqual([71, 72]);
  });

  it('prepends BOS when the post-processor template starts with it (Llama 3 style)', () => {
    const json = {
      ...tokenizerJson,
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [],
        special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [376], tokens: ['<|endoftext|>'] } },
      },
    };
    expect(withBos({}, json).encode('hi')).toEqual([376, 71, 72]);
    expect(withBos({}).encode('hi')).toEqual([71, 72]);
  });

  it('passes bos_token/eos_token to the template and reads a named template list and AddedToken objects', async () => {
    const t = createTokenizer(tokenizerJson, {
      bos_token: { content: '<|endoftext|>', special: true },
      eos_token: '<|im_end|>',
      chat_template: [
        { name: 'tool_use', template: 'tools' },
        { name: 'default', template: '{{ bos_token }}{{ messages[0].content }}{{ eos_token }}' },
      ],
    });
    expect(await t.applyChatTemplate([{ role: 'user', content: 'x' }], vars(false))).toBe('<|endoftext|>x<|im_end|>');
    expect(t.chatTemplateFile).toBe('tokenizer_config.json');
  });

  it('reads chat_template.jinja before tokenizer_config.json, and a named list without "default" as no template', async () => {
    const t = createTokenizer(tokenizerJson, tokenizerConfig, '[{{ messages[0].content }}]');
    expect(t.chatTemplateFile).toBe('chat_template.jinja');
    expect(await t.applyChatTemplate([{ role: 'user', content: 'x' }], vars(true))).toBe('[x]');
    expect(() => createTokenizer(tokenizerJson, tokenizerConfig, '{% if %}')).toThrow(/^chat_template.jinja does not parse/);
    const named = createTokenizer(tokenizerJson, { chat_template: [{ name: 'tool_use', template: 'tools' }] });
    expect(named.hasChatTemplate).toBe(false);
    expect(named.chatTemplateFile).toBeNull();
    await expect(named.applyChatTemplate([], vars(true))).rejects.toThrow('this model has no chat template to apply: tokenizer_config.json chat_template lists templates "tool_use" and none named "default"');
  });

  it('gives the template the condition\'s variables and date, never the clock', async () => {
    const t = createTokenizer(tokenizerJson, {}, '{{ date_string }}|{{ strftime_now("%Y-%m-%d") }}|{{ enable_thinking is defined }}|{{ add_generation_prompt }}');
    expect(t.chatTemplateReads).toEqual(['add_generation_prompt', 'date_string', 'enable_thinking']);
    expect(await t.applyChatTemplate([], { add_generation_prompt: true, date_string: '06 Dec 2026' })).toBe('06 Dec 2026|2026-12-06|false|true');
    expect(await t.applyChatTemplate([], { add_generation_prompt: false, date_string: '01 Jan 2025', enable_thinking: false })).toBe('01 Jan 2025|2025-01-01|true|false');
    await expect(t.applyChatTemplate([], { add_generation_prompt: true, date_string: 'today' })).rejects.toThrow(/date_string must be a day as "%d %b %Y"/);
    expect(createTokenizer(tokenizerJson, {}, '{{ strftime_now("%d") }}').chatTemplateReads).toEqual(['date_string']);
  });

  it('refuses a chat template when there is none, and reports template errors', async () => {
    const { chat_template: _, ...noTemplate } = tokenizerConfig;
    const t = createTokenizer(tokenizerJson, noTemplate);
    expect(t.hasChatTemplate).toBe(false);
    await expect(t.applyChatTemplate([{ role: 'user', content: 'x' }], vars(true))).rejects.toThrow(
      expect.objectContaining({ code: 'bad-input', message: 'this model has no chat template (no chat_template.jinja, no chat_template in tokenizer_config.json)' }),
    );
    const strict = createTokenizer(tokenizerJson, { chat_template: "{{ raise_exception('only user turns') }}" });
    await expect(strict.applyChatTemplate([], vars(true))).rejects.toThrow(/chat template failed: .*only user turns/);
    expect(() => createTokenizer(tokenizerJson, { chat_template: '{% if %}' })).toThrow(/^tokenizer_config.json chat_template does not parse/);
  });

  it('refuses a tokenizer.json it cannot load', () => {
    expect(() => createTokenizer({ model: { type: 'Nope' } }, {})).toThrow(expect.objectContaining({ code: 'bad-checkpoint' }));
  });
});

describe('tokenizer against config.json vocab_size', () => {
  it('accepts the fixture, whose largest id is vocab_size - 1', () => {
    expect(() => checkTokenizerVocab(tokenizerJson, 379)).not.toThrow();
  });

  it('refuses an id at or past vocab_size by name, in the vocabulary or the added tokens', () => {
    expect(() => checkTokenizerVocab(tokenizerJson, 378)).toThrow(
      expect.objectContaining({ code: 'bad-checkpoint', message: expect.stringMatching(/^tokenizer\.json: token ".+" has id 378, not below config\.json vocab_size 378$/) }),
    );
    const added = { ...tokenizerJson, added_tokens: [...tokenizerJson.added_tokens, { id: 500, content: '<extra>' }] };
    expect(() => checkTokenizerVocab(added, 379)).toThrow('tokenizer.json: token "<extra>" has id 500, not below config.json vocab_size 379');
    expect(() => checkTokenizerVocab({ model: { vocab: [['a', 0], ['b', 0], ['c', 0]] } }, 2)).toThrow('token "c" has id 2, not below config.json vocab_size 2');
  });

  it('is checked at load, before any weight is read', async () => {
    const files: Record<string, Uint8Array> = {};
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']) {
      files[f] = readFileSync(new URL(`../../test/fixtures/reference/tiny-qwen2/${f}`, import.meta.url));
    }
    const added = { ...tokenizerJson, added_tokens: [...tokenizerJson.added_tokens, { id: 379, content: '<extra>' }] };
    files['tokenizer.json'] = new TextEncoder().encode(JSON.stringify(added));
    const reads: string[] = [];
    await expect(openCheckpoint(new MemoryReader('m', files, (f) => reads.push(f)))).rejects.toThrow('tokenizer.json: token "<extra>" has id 379, not below config.json vocab_size 379');
    expect(reads).not.toContain('model.safetensors');
  });
});

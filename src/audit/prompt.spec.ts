import { describe, expect, it } from 'vitest';
import { bindFewShotPool, conditionKey, DEFAULT_TEMPLATE_VARS, defaultCondition, fewShotPoolHash, probeKey, recordKeyOf, runKey, validateCondition } from './condition';
import { graderVersionOf } from './formats/registry';
import { checkCondition } from './condition-schema';
import { buildPrompt, fewShotExamples, letterContinuation, renderQuestion } from './prompt';
import { FakeEngine } from './testing/fake-engine';
import type { Condition, Doc, TaskSpec } from './types';

const train: Doc[] = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, text: `${i}+1=`, target: String(i + 1) }));
const doc: Doc = { id: 'q', text: '7+7=', target: '14' };
const spec: TaskSpec = { id: 'builtin:arith-2d', name: 'x', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 1, numTrain: 10 };
const engine = new FakeEngine({ numLayers: 2, answer: () => '' });

describe('prompts', () => {
  it('raw template, 0-shot, is the question itself', async () => {
    expect(await buildPrompt(engine, defaultCondition(spec, 'f32'), doc, train)).toBe('7+7=');
  });

  it('n-shot examples: seeded per question, distinct, from train, joined by the delimiters', async () => {
    const cond = defaultCondition(spec, 'f32', { fewShot: { n: 3, seed: 5 } });
    const shots = fewShotExamples(train, 3, 5, 'q');
    expect(new Set(shots.map((s) => s.id)).size).toBe(3);
    expect(fewShotExamples(train, 3, 5, 'q')).toEqual(shots);
    expect(fewShotExamples(train, 3, 6, 'q')).not.toEqual(shots);
    expect(fewShotExamples(train, 3, 5, 'other')).not.toEqual(shots);
    expect(await buildPrompt(engine, cond, doc, train)).toBe(shots.map((s) => `${s.text}${s.target}`).join('\n\n') + '\n\n7+7=');
    const spaced = { ...cond, promptTemplate: 'Q: {{question}}\nA:', fewShot: { n: 1, seed: 5, delimiter: '\n', targetDelimiter: ' ' } };
    const [one] = fewShotExamples(train, 1, 5, 'q');
    expect(await buildPrompt(engine, spaced, doc, train)).toBe(`Q: ${one.text}\nA: ${one.target}\nQ: 7+7=\nA:`);
    expect(() => fewShotExamples(train.slice(0, 2), 3, 1, 'q')).toThrow(/3-shot prompts need 3 train examples; the task has 2/);
  });

  it('uses a worked rationale as the example target when a doc has one', async () => {
    const withRationale = [{ id: 'r', text: 'Q1', target: '3', rationale: '1+2 = 3\n#### 3' }];
    const cond = defaultCondition(spec, 'f32', { fewShot: { n: 1, seed: 1 } });
    expect(await buildPrompt(engine, cond, doc, withRationale)).toBe('Q11+2 = 3\n#### 3\n\n7+7=');
  });

  it('chat template: shots as user/assistant turns, then the question with a generation prompt', async () => {
    const cond = defaultCondition(spec, 'f32', { chatTemplate: true, systemPrompt: 'Be brief.', fewShot: { n: 1, seed: 2 } });
    const [one] = fewShotExamples(train, 1, 2, 'q');
    expect(await buildPrompt(engine, cond, doc, train)).toBe(
      `<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n${one.text}<|im_end|>\n<|im_start|>assistant\n${one.target}<|im_end|>\n<|im_start|>user\n7+7=<|im_end|>\n<|im_start|>assistant\n`,
    );
  });

  it('renders lettered choices and the scored letter continuation', () => {
    const mc: Doc = { id: 'm', text: 'Pick', target: 'B', choices: ['x', 'y', 'z'] };
    expect(renderQuestion('{{question}}\n{{choices}}\nAnswer:', mc)).toBe('Pick\nA. x\nB. y\nC. z\nAnswer:');
    expect(letterContinuation('Answer:', false, 'B')).toBe(' B');
    expect(letterContinuation('Answer: ', false, 'B')).toBe('B');
    expect(letterContinuation('<|im_start|>assistant\n', true, 'B')).toBe('B');
  });

  it('puts question and choices in verbatim: dollar patterns and placeholders in the text stay text', () => {
    // every pattern String.prototype.replace reads in a replacement string: $$ $& $` $' $n $<name>
    const tricky = { id: 'd', text: 'Is $$x$$ = $&? $` and $\' $<q> {{choices}}', target: '1', choices: ['{{question}}', '$1'] };
    expect(renderQuestion('Q: {{question}}\n{{choices}}', tricky)).toBe("Q: Is $$x$$ = $&? $` and $' $<q> {{choices}}\nA. {{question}}\nB. $1");
  });
});

describe('conditions and keys', () => {
  const base = defaultCondition(spec, 'f32');

  it('the built-in default: "{{question}}", raw, 0-shot, greedy, 8 tokens, stop at newline, numeric', () => {
    expect(base).toEqual({
      promptTemplate: '{{question}}',
      chatTemplate: false,
      decodeRule: 'tokenizers',
      fewShot: { n: 0, seed: 1234 },
      decoding: { kind: 'greedy' },
      maxNewTokens: 8,
      stopSequences: ['\n'],
      answerFormat: 'numeric',
      graderVersion: graderVersionOf('numeric'),
      engineDtype: 'f32',
    });
  });

  it('the key ignores member order and changes with every field', async () => {
    const k = await conditionKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(base).reverse()) as unknown as Condition;
    expect(await conditionKey(reordered)).toBe(k);
    const variants: Partial<Condition>[] = [
      { promptTemplate: 'Q: {{question}}' },
      { chatTemplate: true, templateVars: DEFAULT_TEMPLATE_VARS },
      { chatTemplate: true, templateVars: { ...DEFAULT_TEMPLATE_VARS, add_generation_prompt: false } },
      { chatTemplate: true, templateVars: { ...DEFAULT_TEMPLATE_VARS, date_string: '06 Dec 2026' } },
      { chatTemplate: true, templateVars: { ...DEFAULT_TEMPLATE_VARS, enable_thinking: false } },
      { chatTemplate: true, templateVars: { ...DEFAULT_TEMPLATE_VARS, enable_thinking: true } },
      { fewShot: { n: 1, seed: 1234 } },
      { fewShot: { n: 0, seed: 1 } },
      { decoding: { kind: 'sample', temperature: 0.6, topP: 0.95, seed: 1 } },
      { maxNewTokens: 9 },
      { stopSequences: [] },
      { engineDtype: 'q4' },
    ];
    const keys = await Promise.all(variants.map((v) => conditionKey({ ...base, ...v })));
    expect(new Set([k, ...keys]).size).toBe(variants.length + 1);
  });

  it('names invalid fields', () => {
    expect(() => validateCondition({ ...base, maxNewTokens: 0 })).toThrow('condition.maxNewTokens: expected an integer ≥ 1 ≤ 32768, got number 0');
    expect(() => validateCondition({ ...base, decoding: { kind: 'sample', temperature: 0, topP: 1, seed: 1 } })).toThrow('condition.decoding.temperature: expected a number > 0 ≤ 5, got number 0');
    expect(() => validateCondition({ ...base, stopSequences: [''] })).toThrow(/stopSequences/);
    expect(() => validateCondition({ ...base, mcMode: 'loglik' })).toThrow(/loglik needs answerFormat mc-letter/);
    expect(() => validateCondition({ ...base, graderVersion: 0 })).toThrow('condition.graderVersion: expected an integer ≥ 1, got number 0');
  });

  it('a condition from before the decode rule and template variables still reads from a run file, under another key', async () => {
    const { decodeRule: _, ...older } = defaultCondition(spec, 'f32', { chatTemplate: true });
    delete older.templateVars;
    expect(checkCondition(older, 'condition')).toEqual(older);
    const now = defaultCondition(spec, 'f32', { chatTemplate: true });
    expect(checkCondition(now, 'condition')).toEqual(now);
    expect(await conditionKey(older)).not.toBe(await conditionKey(now));
  });

  it('a chat condition sets its template variables; a condition from before them is refused, named', () => {
    const chat = defaultCondition(spec, 'f32', { chatTemplate: true });
    expect(chat.templateVars).toEqual({ add_generation_prompt: true, date_string: '26 Jul 2024' });
    const { templateVars: _, ...older } = chat;
    expect(() => validateCondition(older)).toThrow(/templateVars must be set with chatTemplate .* made before they were recorded/);
    const { decodeRule: __, ...olderDecode } = base;
    expect(() => validateCondition(olderDecode)).toThrow('condition decodeRule must be "tokenizers", got undefined (a condition made before the decode rule was recorded is not run again)');
    expect(() => validateCondition({ ...base, templateVars: DEFAULT_TEMPLATE_VARS })).toThrow(/templateVars is set but chatTemplate is false/);
    expect(() => validateCondition({ ...chat, templateVars: { ...DEFAULT_TEMPLATE_VARS, date_string: '2026-12-06' } })).toThrow('condition.templateVars.date_string: expected a day as a string "%d %b %Y" (e.g. "26 Jul 2024"), got "2026-12-06"');
    expect(() => validateCondition({ ...chat, templateVars: { ...DEFAULT_TEMPLATE_VARS, tools: [] } as never })).toThrow('condition.templateVars: expected one of the template variables add_generation_prompt, date_string, enable_thinking, got an unknown template variable "tools"');
  });

  it('probe keys are name + hash prefix; record keys join the six parts', async () => {
    const a = await probeKey({ probe: 'sampling', budget: 4, temperature: 0.6, topP: 0.95, seed: 1 });
    expect(a).toMatch(/^sampling:[0-9a-f]{16}$/);
    expect(await probeKey({ probe: 'sampling', budget: 5, temperature: 0.6, topP: 0.95, seed: 1 })).not.toBe(a);
    expect(recordKeyOf({ model_fingerprint: 'm', condition_key: 'c', probe_key: a, doc_id: 'd', doc_hash: 'h', prompt_hash: 'p' })).toBe(`m|c|${a}|d|h|p`);
  });

  it('binds the few-shot pool into the condition: same n and seed over another pool is another condition', async () => {
    const pool = [
      { id: 't1', text: '1+1=', target: '2' },
      { id: 't2', text: '2+2=', target: '4' },
    ];
    const twoShot = { ...base, fewShot: { ...base.fewShot, n: 2 } };
    const a = await bindFewShotPool(twoShot, pool);
    const b = await bindFewShotPool(twoShot, [...pool, { id: 't3', text: '3+3=', target: '6' }]);
    const c = await bindFewShotPool(twoShot, [pool[0], { ...pool[1], target: '5' }]);
    expect(a.fewShot.pool).toBe(await fewShotPoolHash(pool));
    expect(new Set([await conditionKey(a), await conditionKey(b), await conditionKey(c)]).size).toBe(3);
    // rebinding is idempotent; a 0-shot condition has no pool
    expect(await bindFewShotPool(a, pool)).toEqual(a);
    expect((await bindFewShotPool(base, pool)).fewShot.pool).toBeUndefined();
    expect(() => validateCondition({ ...base, fewShot: { ...base.fewShot, pool: a.fewShot.pool } })).toThrow(/pool is set but fewShot.n is 0/);
  });

  it('run keys address content: the same id with other text, or another prompt, is another run', async () => {
    const parts = { model_fingerprint: 'm', condition_key: 'c', probe_keys: ['deployment:x'], questions: [{ doc_id: 'q1', doc_hash: 'h1', prompt_hash: 'p1' }] };
    const k = await runKey(parts);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(await runKey({ ...parts })).toBe(k);
    expect(await runKey({ ...parts, questions: [{ doc_id: 'q1', doc_hash: 'h2', prompt_hash: 'p1' }] })).not.toBe(k);
    expect(await runKey({ ...parts, questions: [{ doc_id: 'q1', doc_hash: 'h1', prompt_hash: 'p2' }] })).not.toBe(k);
    expect(await runKey({ ...parts, probe_keys: ['deployment:y'] })).not.toBe(k);
  });
});

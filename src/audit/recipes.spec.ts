import { describe, expect, it } from 'vitest';
import { conditionKey, validateCondition } from './condition';
import { gradeOptions, grade } from './graders';
import { MATH_VERSION } from './formats/math/index';
import { RECIPES, recipeOf } from './recipes';
import { auditCondition } from './setup';
import { normalizePlan } from './study-plan';
import type { LoadedTask, TaskSpec } from './types';

const spec = (over: Partial<TaskSpec> = {}): TaskSpec => ({ id: 'hub:math-500', name: 'm', answerFormat: 'math', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 1, numTrain: 0, ...over });
const task = (over: Partial<TaskSpec> = {}): LoadedTask => ({ spec: spec(over), test: [{ id: 'q', text: 'What is 1/2?', target: '\\frac12' }], train: [] });
const choice = { dtype: 'f32' as const, chat: false, fewShot: 0, questionSeed: 1, boxed: false };

describe('recipe conditions', () => {
  it('each is a valid math condition with its own prompt, decoding and tokens, and its own key', async () => {
    const keys = new Set<string>();
    for (const r of RECIPES) {
      const c = await auditCondition(task(), { ...choice, recipe: r.name });
      validateCondition(c);
      expect(c).toMatchObject({ ...r.overrides, answerFormat: 'math', graderVersion: MATH_VERSION });
      expect(c.promptTemplate).toContain('{{question}}');
      expect(r.source).toMatch(/^[\w.-]+\/[\w.-]+ \S+@[0-9a-f]{7}/);
      keys.add(await conditionKey(c));
    }
    expect(keys.size).toBe(RECIPES.length);
    expect(recipeOf('dapo').overrides).toMatchObject({ chatTemplate: true, answerLine: 'Answer:', maxNewTokens: 20480, decoding: { kind: 'sample', temperature: 1, topP: 0.7 } });
    expect(recipeOf('qwen2.5-math-cot').overrides).toMatchObject({ chatTemplate: false, maxNewTokens: 2048, decoding: { kind: 'greedy' } });
    expect(recipeOf('oat-zero').overrides.maxNewTokens).toBe(3000);
    expect(recipeOf('simplerl-zoo').overrides).toMatchObject({ maxNewTokens: 16000, decoding: { kind: 'sample', temperature: 1, topP: 0.95 } });
  });

  it('DAPO grades from its "Answer:" line; the chat recipes with markup refuse a chat template on top', async () => {
    const dapo = await auditCondition(task(), { ...choice, recipe: 'dapo' });
    expect(dapo.templateVars).toEqual({ add_generation_prompt: true, date_string: '26 Jul 2024' });
    const doc = task().test[0];
    expect(grade('math', doc.target, 'I think \\boxed{3}.\nAnswer: 0.5', gradeOptions(dapo, doc))).toEqual({ extracted: '0.5', correct: true });
    expect(grade('math', doc.target, 'so \\boxed{0.5}', gradeOptions(dapo, doc)).correct).toBe(false);
    await expect(auditCondition(task(), { ...choice, chat: true, recipe: 'oat-zero' })).rejects.toThrow('recipe oat-zero writes its chat markup into its prompt; drop the chat template');
    await expect(auditCondition(task(), { ...choice, boxed: true, recipe: 'dapo' })).rejects.toThrow(/drop the boxed condition/);
    await expect(auditCondition(task(), { ...choice, recipe: 'r1' })).rejects.toThrow(/unknown recipe "r1" \(known: qwen2.5-math-cot, simplerl-zoo, oat-zero, dapo\)/);
  });

  it('a boxed task keeps its box under a boxed recipe; --max-new-tokens still sets the tokens', async () => {
    const c = await auditCondition(task({ id: 'hub:gsm8k-boxed', requireBoxed: true }), { ...choice, recipe: 'oat-zero', maxNewTokens: 64 });
    expect(c).toMatchObject({ requireBoxed: true, maxNewTokens: 64 });
  });

  it('a study plan names one, and a plan without one keeps its shape', () => {
    expect(normalizePlan({ models: ['m'], tasks: ['hub:math-500'], recipe: 'oat-zero' }).recipe).toBe('oat-zero');
    expect('recipe' in normalizePlan({ models: ['m'], tasks: ['hub:math-500'] })).toBe(false);
    expect(() => normalizePlan({ models: ['m'], tasks: ['t'], recipe: 'grpo' })).toThrow(/recipe: expected one of "qwen2.5-math-cot", "simplerl-zoo", "oat-zero", "dapo", got "grpo"/);
  });
});

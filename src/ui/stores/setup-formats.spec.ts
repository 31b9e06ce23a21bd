// Setup's answer formats and math recipes: each choice leaves a condition the audit core accepts,
// and the permalink carries it back.

import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { validateCondition } from '../../audit/condition';
import { MATH_VERSION } from '../../audit/formats/math/index';
import { RECIPES } from '../../audit/recipes';
import SetupScreen from '../components/SetupScreen.svelte';
import { parsePermalink } from '../lib/permalink';
import { TestBackend } from '../testing/test-backend';
import { AppState } from './app.svelte';

describe("Setup's answer formats and recipes", () => {
  it('offers every format of the registry and every recipe, each recipe naming its source', () => {
    const body = render(SetupScreen, { props: { app: new AppState(new TestBackend(), null) } }).body;
    for (const f of ['numeric', 'mc-letter', 'exact', 'math']) expect(body).toContain(`<option value="${f}"`);
    for (const r of RECIPES) expect(body).toContain(`value="${r.name}" title="${r.source}"`);
    expect(body).toContain('data-testid="answer-line"');
  });

  it('a format brings its own grader version and scoring; the condition stays valid and travels in the link', () => {
    const s = new AppState(new TestBackend(), null).setup;
    s.setAnswerFormat('math');
    expect(s.condition).toMatchObject({ answerFormat: 'math', graderVersion: MATH_VERSION });
    validateCondition(s.runCondition);
    expect(parsePermalink(s.permalink).condition).toMatchObject({ answerFormat: 'math', graderVersion: MATH_VERSION });
    s.setAnswerFormat('mc-letter');
    expect(s.condition).toMatchObject({ answerFormat: 'mc-letter', graderVersion: 3, mcMode: 'loglik' });
    s.setAnswerFormat('numeric');
    expect(s.condition.mcMode).toBeUndefined();
    validateCondition(s.runCondition);
  });

  it('a recipe sets its prompt, decoding, tokens and answer line; the link keeps them, 20480 tokens included', () => {
    const s = new AppState(new TestBackend(), null).setup;
    s.applyRecipe('dapo');
    validateCondition(s.runCondition);
    expect(s.runCondition).toMatchObject({ answerFormat: 'math', chatTemplate: true, answerLine: 'Answer:', maxNewTokens: 20480 });
    expect(parsePermalink(s.permalink)).toMatchObject({ errors: [], condition: { answerLine: 'Answer:', maxNewTokens: 20480 } });
    s.applyRecipe('oat-zero');
    expect(s.condition.answerLine).toBeUndefined();
    validateCondition(s.runCondition);
  });
});

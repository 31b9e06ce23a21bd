// The math Hub presets against a local rows-API server serving rows written by
// test/fixtures/math-rows.ts (MATH-500, AIME 2024, DART-Math's pool, GSM8K shapes).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aime2024Rows, dartPoolRows, gsm8kRows, math500Rows, MATH_ANSWERS } from '../../../test/fixtures/math-rows';
import { startRowsServer, type RowsServer } from '../../../test/rows-server';
import { defaultCondition } from '../condition';
import { grade, normalizeGold } from '../graders';
import { graderVersionOf } from '../formats/registry';
import { COLA_EVAL_RANGE, DART_SAMPLE_SIZE } from './dart-math';
import { fileTask } from './file';
import { loadTask } from './index';

const POOL = dartPoolRows(12_000);
let server: RowsServer;

beforeAll(async () => {
  server = await startRowsServer({
    'HuggingFaceH4/MATH-500/default/test': math500Rows(),
    'HuggingFaceH4/aime_2024/default/train': aime2024Rows(),
    'hkust-nlp/dart-math-pool-math/default/train': POOL,
    'openai/gsm8k/main/test': gsm8kRows(),
  });
});
afterAll(() => server.close());

const load = (spec: string, questions: number, trainQuestions = 0) => loadTask(spec, { questions, trainQuestions, rowsEndpoint: server.endpoint });

/** CoLa's rule written as plain array steps: the first `size` rows of the level, first row per query. */
function colaSample(level: number, size: number) {
  const rows = POOL.map((row, i) => ({ row, i })).filter((x) => (x.row.query_metadata as { level: number }).level === level).slice(0, size);
  return rows.filter((x, k) => rows.findIndex((y) => y.row.query_id === x.row.query_id) === k);
}

describe('math Hub presets', () => {
  it('MATH-500: problem and answer as the math format reads them, subject and level kept', async () => {
    const t = await load('hub:math-500', 30);
    expect(t.test).toHaveLength(MATH_ANSWERS.length);
    expect(t.test[4]).toMatchObject({ id: 'test-4', target: '\\text{Evelyn}', raw: { subject: 'Number Theory', level: 5, unique_id: 'test/number_theory/104.json' } });
    expect(t.spec).toMatchObject({ id: 'hub:math-500', answerFormat: 'math', numTest: MATH_ANSWERS.length, numTrain: 0 });
    const c = defaultCondition(t.spec, 'f32');
    expect(c).toMatchObject({ answerFormat: 'math', graderVersion: graderVersionOf('math'), stopSequences: [] });
    expect(c.promptTemplate).toContain('\\boxed{}');
    // every gold graded against its own solution's box is right
    for (const [i, d] of t.test.entries()) expect(grade('math', d.target, (d.raw as { solution: string }).solution).correct, MATH_ANSWERS[i]).toBe(true);
    await expect(load('hub:math-500', 5, 3)).rejects.toThrow(/MATH-500 \(test\) has no train split to draw 3 few-shot/);
  });

  it('AIME 2024: its train split as the test questions', async () => {
    const t = await load('hub:aime-2024', 5);
    expect(t.test.map((d) => d.target)).toEqual(['17', '90', '163', '236', '309']);
    expect(t.spec.name).toBe('AIME 2024');
    expect(server.requests.at(-1)).toMatchObject({ dataset: 'HuggingFaceH4/aime_2024', split: 'train' });
  });

  it('GSM8K boxed: the math format, the answer read only from the last \\boxed{}', async () => {
    const t = await load('hub:gsm8k-boxed', 3);
    const c = defaultCondition(t.spec, 'f32');
    expect(c).toMatchObject({ answerFormat: 'math', requireBoxed: true });
    expect(t.test[2].target).toBe('510');
    expect(grade('math', t.test[2].target, 'so \\boxed{510}', { requireBoxed: true }).correct).toBe(true);
    expect(grade('math', t.test[2].target, 'The answer is 510.', { requireBoxed: true }).correct).toBe(false);
    // the plain preset is unchanged
    expect(defaultCondition((await load('hub:gsm8k', 1)).spec, 'f32')).toMatchObject({ answerFormat: 'numeric', graderVersion: 3 });
  });

  it('DART-Math by level: the first distinct queries of the level, reading only the pages needed', async () => {
    const before = server.requests.length;
    const t = await load('hub:dart-math:level3', 10);
    const want = colaSample(3, DART_SAMPLE_SIZE).slice(0, 10);
    expect(t.test.map((d) => d.id)).toEqual(want.map((x) => `train-${x.i}`));
    expect(t.test.map((d) => d.target)).toEqual(want.map((x) => x.row.gt_ans));
    expect(new Set(t.test.map((d) => (d.raw as { query_id: string }).query_id)).size).toBe(10);
    expect(server.requests.length - before).toBeLessThanOrEqual(3);
    expect(t.spec.answerFormat).toBe('math');
    // the pool's num_rows_total is not the level's size: a selection reports no source count
    expect(t.sourceRows).toBeUndefined();
  });

  it("DART-Math CoLa evaluation: positions 1500–2000 of the de-duplicated first 2000 rows of the level", async () => {
    const sample = colaSample(2, DART_SAMPLE_SIZE);
    expect(sample.length).toBeGreaterThan(COLA_EVAL_RANGE[0]);
    expect(sample.length).toBeLessThan(COLA_EVAL_RANGE[1]);
    const t = await load('hub:dart-math:level2:cola-eval', 500);
    expect(t.test.map((d) => d.id)).toEqual(sample.slice(COLA_EVAL_RANGE[0]).map((x) => `train-${x.i}`));
    const few = await load('hub:dart-math:level2:cola-eval', 4);
    expect(few.test.map((d) => d.id)).toEqual(sample.slice(COLA_EVAL_RANGE[0], COLA_EVAL_RANGE[0] + 4).map((x) => `train-${x.i}`));
    expect(t.spec.name).toBe("DART-Math level 2, CoLa's evaluation questions 1500–2000");
  });

  it('refuses bad preset names and unreadable golds by name', async () => {
    await expect(load('hub:dart-math:level9', 1)).rejects.toThrow(/must be dart-math:level1 … level5, optionally followed by :cola-eval/);
    const bad = await startRowsServer({ 'HuggingFaceH4/MATH-500/default/test': [{ problem: 'p', answer: '\\frac{' }] });
    await expect(loadTask('hub:math-500', { questions: 1, rowsEndpoint: bad.endpoint })).rejects.toThrow('test-0: math gold answer "\\\\frac{" holds no readable answer');
    await bad.close();
  });

  it('a task file under --answer-format math: the math format\'s prompt, tokens and version', () => {
    const text = math500Rows().slice(0, 3).map((r) => JSON.stringify(r)).join('\n');
    const t = fileTask({ name: 'm.jsonl', text, mapping: { question: 'problem', answer: 'answer' }, answerFormat: 'math' });
    // the file reader keeps the gold in its canonical form (the answer as written is its rationale)
    expect(t.test.map((d) => d.target)).toEqual(MATH_ANSWERS.slice(0, 3).map((a) => normalizeGold('math', a)));
    expect(t.test[2].rationale).toBe(MATH_ANSWERS[2]);
    expect(defaultCondition(t.spec, 'f32')).toMatchObject({ answerFormat: 'math', graderVersion: graderVersionOf('math'), promptTemplate: t.spec.promptTemplate });
    expect(() => fileTask({ name: 'bad.jsonl', text: JSON.stringify({ problem: 'p', answer: '$$' }), mapping: { question: 'problem', answer: 'answer' }, answerFormat: 'math' })).toThrow('row 1 of "bad.jsonl": math gold answer "$$" holds no readable answer');
  });
});

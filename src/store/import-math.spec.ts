// An lm-eval samples file of a math task imports with every sample regraded under the math format;
// other tasks keep the file's own metric.

import { describe, expect, it } from 'vitest';
import { importFile, type ImportSource } from './import-file.ts';
import { lmEvalFormatOf } from './import.ts';
import { MemoryRunStore } from './memory-store.ts';
import { lmEvalSamplesText } from './testing/lm-eval-samples.ts';

const source = (name: string, text: string): ImportSource => {
  const blob = new Blob([text]);
  return { name, size: blob.size, stream: () => blob.stream() };
};

/** A minerva_math sample: lm-eval's own verdict (exact_match) as its string check gives it. */
const line = (i: number, target: string, response: string, exact: number) =>
  JSON.stringify({
    doc_id: i,
    doc: { problem: `Problem ${i}`, solution: `... $\\boxed{${target}}$`, answer: target },
    target,
    arguments: { gen_args_0: { arg_0: `Problem:\nProblem ${i}\n\nSolution:` } },
    resps: [[response]],
    filtered_resps: [response.split('answer is ').at(-1)!],
    doc_hash: `d${i}`,
    prompt_hash: `p${i}`,
    exact_match: exact,
  });

const opts = { appVersion: 'test', runId: 'lm-math' };

describe('lm-eval samples of a math task', () => {
  it('names the harness math tasks by their file names', () => {
    for (const t of ['minerva_math_algebra', 'hendrycks_math_geometry', 'leaderboard_math_hard_algebra_hard']) expect(lmEvalFormatOf(t)).toBe('math');
    for (const t of ['gsm8k', 'arc_easy', 'mathqa']) expect(lmEvalFormatOf(t)).toBeNull();
  });

  it('regrades each first response against its target by equivalence, whatever the file says', async () => {
    const text = [
      line(0, '\\frac{1}{2}', 'So the final answer is $0.5$', 0),
      line(1, '(3, \\frac{\\pi}{2})', 'Final Answer: The final answer is $\\left( 3, \\frac{\\pi}{2} \\right)$. I hope it is correct.', 0),
      line(2, '4', 'The final answer is $3$. I hope it is correct.', 1),
    ].join('\n');
    const store = new MemoryRunStore();
    const res = await importFile(store, source('samples_minerva_math_algebra_2024-12-01T00-00-00.jsonl', text), opts);
    expect(res.records).toBe(3);
    const records = (await store.recordsForRun('lm-math')).map((r) => r.record).sort((a, b) => a.doc_id.localeCompare(b.doc_id));
    expect(records.map((r) => [r.attempts[0].extracted, r.attempts[0].correct, r.realized])).toEqual([
      ['0.5', true, true],
      ['( 3, \\frac{\\pi}{2} )', true, true],
      ['3', false, false],
    ]);
    // the file's own filtered responses are kept beside the regrade
    expect(records[0].filtered_resps).toEqual(['$0.5$']);
  });

  it('refuses a sample whose target is no answer, naming its line; other tasks keep their metric', async () => {
    const bad = [line(0, '1', 'so $1$', 1), line(1, '\\frac{', 'so $1$', 1)].join('\n');
    await expect(importFile(new MemoryRunStore(), source('samples_hendrycks_math_algebra_x.jsonl', bad), opts)).rejects.toThrow(
      'samples_hendrycks_math_algebra_x.jsonl line 2: target: math gold answer "\\\\frac{" holds no readable answer',
    );
    const store = new MemoryRunStore();
    await importFile(store, source('samples_gsm8k_x.jsonl', lmEvalSamplesText(3)), opts);
    const correct = (await store.recordsForRun('lm-math')).map((r) => r.record).sort((a, b) => a.doc_id.localeCompare(b.doc_id)).map((r) => r.attempts[0].correct);
    expect(correct).toEqual([false, true, true]);
  });
});

import { describe, expect, it } from 'vitest';
import { generateArith } from './arith';
import { loadTask } from './index';
import { BUILTIN_TASKS, HUB_TASKS, taskEntry } from './registry';
import { startRowsServer } from '../../../test/rows-server';
import { gsm8kRows } from '../../../test/fixtures/math-rows';

describe('the task registry', () => {
  it('counts a built-in level\'s test problems as its generator yields them', () => {
    const one = taskEntry('builtin:arith-1d')!;
    // asked for more than exist, the generator stops at every test problem of the level
    expect(generateArith('arith-1d', 'test', one.rows + 50, 1)).toHaveLength(one.rows);
    expect(BUILTIN_TASKS.every((t) => t.rows > 0)).toBe(true);
  });

  it('every entry loads through loadTask under its ref, with the entry\'s answer format', async () => {
    for (const t of BUILTIN_TASKS) expect((await loadTask(t.ref, { questions: 1 })).spec.answerFormat).toBe(t.answerFormat);
    const server = await startRowsServer({ 'openai/gsm8k/main/test': gsm8kRows() });
    try {
      const gsm8k = taskEntry('hub:gsm8k')!;
      const task = await loadTask(gsm8k.ref, { questions: 2, rowsEndpoint: server.endpoint });
      expect(task.spec.answerFormat).toBe(gsm8k.answerFormat);
    } finally {
      await server.close();
    }
  });

  it('labels a Hub entry with its dataset, split and declared rows', () => {
    expect(taskEntry('hub:gsm8k')).toMatchObject({ source: 'openai/gsm8k main/test', answerFormat: 'numeric' });
    expect(HUB_TASKS.every((t) => t.label.includes(t.source) && t.label.includes(`${t.rows} rows`))).toBe(true);
    expect(taskEntry('hub:nope')).toBeUndefined();
  });
});

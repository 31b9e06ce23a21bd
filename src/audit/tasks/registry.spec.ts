import { describe, expect, it } from 'vitest';
import { generateArith } from './arith';
import { loadTask } from './index';
import { BUILTIN_TASKS, HUB_TASKS, rowsText, taskChoiceLabel, taskEntry, taskRows } from './registry';
import { HUB_PRESETS, hubPreset } from './hub';
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

  it('labels a Hub entry with its dataset and split, its rows marked declared until a load read them', () => {
    const gsm8k = taskEntry('hub:gsm8k')!;
    expect(gsm8k).toMatchObject({ source: 'openai/gsm8k main/test', answerFormat: 'numeric', rows: HUB_PRESETS.gsm8k.declaredRows, rowsDeclared: true });
    expect(HUB_TASKS.every((t) => t.label.includes(t.source) && taskChoiceLabel(t).endsWith(`, ${t.rows} rows (declared)`))).toBe(true);
    expect([taskChoiceLabel(gsm8k, 7), taskRows(gsm8k, 7), taskRows(gsm8k)]).toEqual([`${gsm8k.label}, 7 rows`, 7, gsm8k.rows]);
    // a built-in level's count is counted, not declared
    expect(BUILTIN_TASKS.every((t) => !t.rowsDeclared && !rowsText(t).includes('declared'))).toBe(true);
    expect(taskEntry('hub:nope')).toBeUndefined();
  });

  it('is the preset table: one entry per offered preset, each loadable by its id', () => {
    expect(HUB_TASKS.map((t) => t.id)).toEqual(Object.keys(HUB_PRESETS));
    for (const t of HUB_TASKS) expect(hubPreset(t.id)).toBe(HUB_PRESETS[t.id]);
  });

  it('a Hub load reports the split\'s size as the server gives it', async () => {
    const rows = gsm8kRows();
    const server = await startRowsServer({ 'openai/gsm8k/main/test': rows });
    try {
      const task = await loadTask('hub:gsm8k', { questions: 2, rowsEndpoint: server.endpoint });
      expect([task.test.length, task.sourceRows]).toEqual([2, rows.length]);
      expect(rows.length).not.toBe(HUB_PRESETS.gsm8k.declaredRows);
    } finally {
      await server.close();
    }
  });
});

// Issue 43: a study link asking more questions than its task holds is flagged before Start, in the
// words the study CLI refuses it with once the task is loaded.
import { describe, expect, it } from 'vitest';
import { loadTask } from '../../audit/index';
import { normalizePlan } from '../../audit/study-plan';
import { studyTaskOptions, questionsRefusal } from '../../store/study';
import { questionShortfalls } from './study-link';
import { HUB_PRESETS, hubTaskSpec } from '../../audit/tasks/hub';
import { noteRowsRead } from '../stores/task-rows.svelte';

const plan = (questions: number, tasks: string[]) => normalizePlan({ models: ['builtin:micro-arith'], tasks, questions });

describe('a study link asking more questions than its task holds', () => {
  it('is flagged with the CLI\'s words for a built-in task and a Hub preset', async () => {
    const p = plan(1e15, ['builtin:arith-1d', 'hub:gsm8k']);
    const held = (await loadTask('builtin:arith-1d', studyTaskOptions(p))).test.length;
    expect(await questionShortfalls(p)).toEqual([
      questionsRefusal(1e15, 'builtin:arith-1d', held),
      questionsRefusal(1e15, 'hub:gsm8k', HUB_PRESETS.gsm8k.declaredRows),
    ]);
    expect(questionsRefusal(1e15, 'hub:gsm8k', 1319)).toBe('the plan asks for 1000000000000000 questions, but hub:gsm8k has 1319 test questions: set "questions" to at most 1319');
  });

  it("measures a Hub preset by the count a load read from the source, once one has", async () => {
    const p = plan(6, ['hub:arc-easy']);
    expect(await questionShortfalls(p)).toEqual([]);
    noteRowsRead('hub:arc-easy', { spec: hubTaskSpec('arc-easy', 5), test: [], train: [], sourceRows: 5 });
    expect(await questionShortfalls(p)).toEqual([questionsRefusal(6, 'hub:arc-easy', 5)]);
  });

  it('is not flagged when every task holds the questions', async () => {
    expect(await questionShortfalls(plan(20, ['builtin:arith-2d', 'hub:gsm8k']))).toEqual([]);
  });
});

describe('the Study screen', () => {
  it('shows the shortfall of a linked plan before Start', async () => {
    const { StudyState } = await import('../stores/study.svelte');
    const { TestBackend } = await import('../testing/test-backend');
    const { parseStudyLink, encodeStudyLink } = await import('./study-link');
    const st = new StudyState(new TestBackend());
    st.applyLink(parseStudyLink(encodeStudyLink({ models: ['builtin:micro-arith'], tasks: ['hub:gsm8k'], questions: 1e15 }))!);
    await expect.poll(() => st.linkProblem).toBe(`The plan in the study link cannot run as written: ${questionsRefusal(1e15, 'hub:gsm8k', 1319)}.`);
  });
});

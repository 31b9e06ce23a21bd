import { describe, expect, it } from 'vitest';
import type { StudyProgress } from '../../store/study-runner';
import { studyProgressLines } from './study-progress';

const base: StudyProgress = { plan_key: 'k', runsDone: 2, runsTotal: 12, current: null, status: 'running' };

describe('study progress in words', () => {
  it('counts the run being worked on, its questions, and the time left once measured', () => {
    const p: StudyProgress = { ...base, current: { model: 'builtin:micro-arith', task: 'builtin:arith-2d', label: 'sampling', runId: 'r', questionsDone: 40, questionsTotal: 200, etaSec: 30 }, etaSec: 330 };
    const lines = studyProgressLines(p, { sec: 330, guess: null }, 95_000);
    expect(lines.runs).toBe('Run 3 of 12 (2 done)');
    expect(lines.current).toBe('builtin:micro-arith · builtin:arith-2d · sampling — 40 of 200 questions');
    expect(lines.eta).toBe('Time left: about 6 min');
    expect(lines.elapsed).toBe('Elapsed 2 min');
    expect(studyProgressLines(p, { sec: 200, guess: 'from the runs before this one, until it measures its own pace' }, 0).eta).toBe('Time left: about 3 min (a guess: from the runs before this one, until it measures its own pace)');
  });

  it('says the time left is not known before a run was timed, and names no run between runs', () => {
    const lines = studyProgressLines(base, null, 0);
    expect(lines.runs).toBe('Run 2 of 12 (2 done)');
    expect(lines.current).toBeNull();
    expect(lines.eta).toBe('Time left: measured once a run has been computed');
  });
});

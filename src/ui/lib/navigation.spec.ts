import { describe, expect, it } from 'vitest';
import type { RunProgress } from '../backend';
import { progressSentence, progressStep } from './navigation';

const progress = (over: Partial<RunProgress>): RunProgress => ({
  runId: 'r', manifestKey: 'k', status: 'running', recordsDone: 0, recordsTotal: 40, questionsDone: 0, questionsTotal: 20,
  attemptsDone: 0, attemptsPerSec: null, etaSec: null, currentDocId: null, currentProbe: null, reused: 0, storage: 'indexeddb',
  ...over,
}) as RunProgress;

describe('navigation', () => {
  it('announces a running audit once per tenth, and every change of status', () => {
    expect(progressStep(progress({ recordsDone: 3 }))).toBe('0');
    expect(progressStep(progress({ recordsDone: 4 }))).toBe('1');
    expect(progressStep(progress({ recordsDone: 7 }))).toBe('1');
    expect(progressStep(progress({ recordsDone: 40, status: 'finished' }))).toBe('finished');
    expect(progressStep(progress({ recordsTotal: 0 }))).toBe('0');
  });

  it('says how many questions are done, and why a run stopped', () => {
    expect(progressSentence(progress({ questionsDone: 5 }))).toBe('Audit running: 5 of 20 questions done.');
    expect(progressSentence(progress({ questionsDone: 20, status: 'finished' }))).toBe('Audit finished: 20 of 20 questions. Results are ready.');
    expect(progressSentence(progress({ questionsDone: 2, status: 'interrupted', message: 'The tab was closed.' }))).toBe('Audit interrupted: 2 of 20 questions done. The tab was closed.');
  });
});

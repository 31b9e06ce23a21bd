import { describe, expect, it } from 'vitest';
import { compareRecords, LOGPROB_BOUND } from './same-records.ts';

const rec = (response: string, lp: number) => ({ doc_id: '1+1=', attempts: [{ response, meanLogprob: lp }], realized: response === '2' });

describe('records of two runtimes side by side', () => {
  it('takes meanLogprob within the bound and every other field exactly', () => {
    const a = new Map([['k1', [rec('2', -0.5)]]]);
    expect(compareRecords(a, new Map([['k1', [rec('2', -0.5 + LOGPROB_BOUND / 2)]]]))).toMatchObject({ runs: 1, records: 1, differences: [] });
    const far = compareRecords(a, new Map([['k1', [rec('2', -0.6)]]]));
    expect(far.differences).toEqual(['run k1 record 0.attempts.0.meanLogprob: -0.5 vs -0.6']);
    expect(compareRecords(a, new Map([['k1', [rec('3', -0.5)]]])).differences).toEqual(['run k1 record 0.attempts.0.response: "2" vs "3"', 'run k1 record 0.realized: true vs false']);
    expect(compareRecords(a, new Map()).differences).toEqual(['run k1: only in the first']);
  });
});

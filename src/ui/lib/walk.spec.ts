import { describe, expect, it } from 'vitest';
import { isDeployment } from '../../audit';
import type { QuestionRecord } from '../../audit/types';
import { scriptedRun } from '../testing/scripted-run';
import { groupByQuestion } from './analysis';
import { walkOf } from './walk';

const run = scriptedRun();

describe('the guided walk', () => {
  it('tells a question the deployed model gets wrong, with the route that reached it and the layer that repairs it', () => {
    const walk = walkOf(run.records);
    expect(walk).not.toBeNull();
    const { question, route, repair } = walk!;
    expect(question.realized).toBe(false);
    expect(question.deployed).not.toBe(question.target);
    // the route is the reach probe's first success, as stored
    expect(route).not.toBeNull();
    const reach = question.records.find((r) => !isDeployment(r) && r.first_success === route!.attempt && r.attempts[route!.attempt]?.route?.join() === route!.route.join());
    expect(reach?.attempts[route!.attempt].correct).toBe(true);
    expect(route!.answer).toBe(reach!.attempts[route!.attempt].extracted);
    // the repair: silencing that one layer answers right on this question
    expect(repair).not.toBeNull();
    const fix = question.records.find((r) => r.probe === 'mlp-silencing')!.attempts.find((a) => a.silence.join() === String(repair!.layer));
    expect(fix?.correct).toBe(true);
    // what it breaks, counted here independently over the realized questions
    const realized = groupByQuestion(run.records).filter((q) => q.realized);
    const silenced = realized.map((q) => q.records.find((r) => r.probe === 'mlp-silencing')?.attempts.find((a) => a.silence.join() === String(repair!.layer))).filter((a) => a !== undefined);
    expect(repair!.realized).toBe(silenced.length);
    expect(repair!.breaks).toBe(silenced.filter((a) => !a.correct).length);
  });

  it('prefers a question with a route and a repair over one with a route only', () => {
    const questions = groupByQuestion(run.records).filter((q) => !q.realized && q.deployed !== null);
    const chosen = walkOf(run.records)!;
    const best = questions.some((q) => q.records.some((r) => r.probe === 'mlp-silencing' && r.attempts.some((a) => a.correct)) && q.records.some((r) => r.first_success !== null && r.probe !== 'mlp-silencing'));
    expect(best, "the scripted run holds such a question").toBe(true);
    expect([chosen.route !== null, chosen.repair !== null]).toEqual([true, true]);
  });

  it('has nothing to tell when every question is answered right as deployed', () => {
    const realizedOnly = new Set(groupByQuestion(run.records).filter((q) => q.realized).map((q) => q.doc_id));
    const records: QuestionRecord[] = run.records.filter((r) => realizedOnly.has(r.doc_id));
    expect(records.length).toBeGreaterThan(0);
    expect(walkOf(records)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../audit/types';
import { auditedRun } from '../testing/test-backend';
import { groupByQuestion, silencingOf } from './analysis';
import { noRepairSentence, noWalkSentence, walkComplete, walkOf } from './walk';

const run = await auditedRun();

describe('the guided walk', () => {
  it('tells a question wrong as deployed, reached without its decoy, and repaired out of sample', () => {
    const walk = walkOf(run.records)!;
    expect(walk).not.toBeNull();
    const { question, reach, repair, scan } = walk;
    expect(question.realized).toBe(false);
    expect(question.deployed).not.toBe(question.target);
    // the reach is the probe's stored first success, and the probe never gave the decoy within its budget
    const rec = question.records.find((r) => r.probe_key === reach.probe_key)!;
    expect([rec.reachable, rec.reachable_decoy, rec.first_success]).toEqual([true, false, reach.attempt]);
    expect(rec.attempts[reach.attempt]).toMatchObject({ correct: true, extracted: reach.answer, route: reach.route });
    expect(rec.attempts.slice(0, rec.budget).some((a) => a.extracted === rec.decoy)).toBe(false);
    // the repair: the layer identified on the other half, and this question is a held-out failure it repairs
    expect(repair).not.toBeNull();
    expect(walkComplete(walk)).toBe(true);
    const view = silencingOf(run.records, reach.probe_key);
    expect(view && 'scan' in view ? view.scan : null).toEqual(scan);
    expect(scan!.identification.layer).toBe(repair!.layer);
    expect(scan!.identification.doc_ids).not.toContain(question.doc_id);
    expect(scan!.evaluation.doc_ids).toContain(question.doc_id);
    const fix = question.records.find((r) => r.probe === 'mlp-silencing')!.attempts.find((a) => a.silence.join() === String(repair!.layer));
    expect(fix).toMatchObject({ correct: true, extracted: repair!.answer });
    // what it breaks, counted here independently over the realized questions of the scan
    const realized = groupByQuestion(run.records).filter((q) => scan!.realized_set.includes(q.doc_id));
    const silenced = realized.map((q) => q.records.find((r) => r.probe === 'mlp-silencing')!.attempts.find((a) => a.silence.join() === String(repair!.layer))!);
    expect([repair!.breaks, repair!.realized]).toEqual([silenced.filter((a) => !a.correct).length, silenced.length]);
    // the held-out half's count apart (what the figure's label says), never mixed with the in-sample one
    expect([repair!.heldOutBreaks, repair!.heldOutRealized]).toEqual([scan!.evaluation.collateral, scan!.evaluation.realized]);
    expect(repair!.heldOutRealized).toBeLessThan(repair!.realized);
    expect([repair!.heldOutRepaired, repair!.heldOut]).toEqual([scan!.evaluation.repaired, scan!.evaluation.failures]);
  });

  it('takes no question whose probe also gave the decoy, and says so in one sentence when none is left', () => {
    const decoyEverywhere: QuestionRecord[] = run.records.map((r) => (r.reachable_decoy === false ? { ...r, reachable_decoy: true } : r));
    expect(walkOf(decoyEverywhere)).toBeNull();
    const sentence = noWalkSentence(decoyEverywhere);
    const questions = groupByQuestion(run.records);
    const wrong = questions.filter((q) => !q.realized).length;
    expect(sentence).toBe(`Of ${questions.length} questions the model answers ${wrong} wrong as deployed, and on none of them did a random route or a sample reach the right answer without also reaching a wrong one of its kind (the decoy), so there is no failure to follow.`);
    expect(sentence.split('. ')).toHaveLength(1);
  });

  it('has nothing to tell when every question is answered right as deployed', () => {
    const realizedOnly = new Set(groupByQuestion(run.records).filter((q) => q.realized).map((q) => q.doc_id));
    const records = run.records.filter((r) => realizedOnly.has(r.doc_id));
    expect(records.length).toBeGreaterThan(0);
    expect(walkOf(records)).toBeNull();
    expect(noWalkSentence(records)).toBe(`The model answered all ${realizedOnly.size} questions right as deployed, so there is no failure to follow.`);
  });

  it('without an out-of-sample repair, keeps the reach and says in one sentence why step 4 has none', () => {
    // every failure's silencing attempts wrong: no silenced layer repairs any of them
    const failures = new Set(groupByQuestion(run.records).filter((q) => !q.realized).map((q) => q.doc_id));
    const broken = run.records.map((r) => (failures.has(r.doc_id) && r.probe === 'mlp-silencing' ? { ...r, attempts: r.attempts.map((a) => ({ ...a, correct: false })) } : r));
    const walk = walkOf(broken)!;
    expect(walk.reach).not.toBeNull();
    expect(walkComplete(walk)).toBe(false);
    const sentence = noRepairSentence(walk);
    expect(sentence).toMatch(/^(Silencing layer \d+, the MLP block identified on the other \d+ failures, does not repair this question|This question is one of the \d+ failures|No silenced MLP block repairs any)/);
    expect(sentence.split('. ')).toHaveLength(1);
    // no scan at all: the run holds no silencing records
    const noScan = walkOf(run.records.filter((r) => r.probe !== 'mlp-silencing'))!;
    expect([noScan.scan, noScan.repair]).toEqual([null, null]);
    expect(noRepairSentence(noScan)).toMatch(/holds no silencing scan/);
  });
});

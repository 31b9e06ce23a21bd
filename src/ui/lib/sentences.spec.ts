import { describe, expect, it } from 'vitest';
import { auditedRun } from '../testing/test-backend';
import { reachProbes, summaryOf } from './analysis';
import { ceilingNotes, resultsSentence } from './sentences';

const run = await auditedRun();

describe('the Results sentence', () => {
  const summary = summaryOf(run.records);
  const probes = reachProbes(summary, run.records);

  it('says the counts in plain words, one clause per probe with its budget', () => {
    expect(resultsSentence(summary, probes)).toBe(
      '11 of 24 questions were answered correctly as deployed; 8 more were reachable with random routes within 16 attempts, ' +
        '6 more with MCTS routes (CoLa) within 16 attempts, 6 more with sampling within 8 samples.',
    );
    // the counts are the core's: realized, and ceiling minus realized
    expect(summary.realized_count).toBe(11);
    expect(probes.map((p) => p.summary.counts.ceiling! - p.summary.counts.realized)).toEqual([8, 6, 6]);
  });

  it('says one question in the singular, and no probe clause without probes', async () => {
    const one = await auditedRun(1);
    const s = summaryOf(one.records.filter((r) => r.probe === 'deployment'));
    expect(resultsSentence(s, [])).toMatch(/^[01] of 1 question was answered correctly as deployed\.$/);
  });

  it('explains a ceiling equal to reachable, and only then', () => {
    expect(ceilingNotes(probes)).toEqual([
      'ceiling@16 equals reachable@16 for random routes: every question realized as deployed was also reached by random routes.',
      'ceiling@16 equals reachable@16 for MCTS routes (CoLa): every question realized as deployed was also reached by MCTS routes (CoLa).',
      'ceiling@8 equals reachable@8 for sampling: every question realized as deployed was also reached by sampling.',
    ]);
    // a realized question the probe never reached: the ceiling is above reachable, no note
    const realizedId = run.records.find((r) => r.probe === 'deployment' && r.realized)!.doc_id;
    const unreached = run.records.map((r) =>
      r.doc_id === realizedId && r.probe === 'sampling' ? { ...r, reachable: false, first_success: null, attempts: r.attempts.map((a) => ({ ...a, correct: false })) } : r,
    );
    const s2 = summaryOf(unreached);
    const sampling = reachProbes(s2, unreached).filter((p) => p.spec.probe === 'sampling');
    expect(sampling[0].summary.counts.ceiling).toBeGreaterThan(sampling[0].summary.counts.reachable!);
    expect(ceilingNotes(sampling)).toEqual([]);
  });

  it('says no question was realized, not that every realized one was reached, when none was', () => {
    const wrong = run.records.map((r) => (r.probe === 'deployment' ? { ...r, realized: false, attempts: r.attempts.map((a) => ({ ...a, correct: false })) } : r));
    const s = summaryOf(wrong);
    const notes = ceilingNotes(reachProbes(s, wrong));
    expect(s.realized_count).toBe(0);
    expect(notes.length).toBeGreaterThan(0);
    for (const n of notes) {
      expect(n).not.toMatch(/every question realized/);
      expect(n).toMatch(/: no question was realized as deployed, so the ceiling is what .+ reaches\.$/);
    }
  });
});

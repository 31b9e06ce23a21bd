import { describe, expect, it } from 'vitest';
import { defaultCondition } from './condition';
import { colaMcts } from './probes/mcts';
import { randomRoutes } from './probes/random-routes';
import { samplingCeiling } from './probes/sampling';
import { blocksSpace } from './routes';
import { runAudit } from './run';
import { selectorPick, withSelectorPicks } from './selectors';
import { summarize } from './summary';
import { FakeEngine } from './testing/fake-engine';
import { toyTask } from './testing/toy-task';
import type { ProbeSpec, QuestionRecord } from './types';

const L = 6;
const task = toyTask(Array.from({ length: 5 }, (_, i) => ({ id: `q${i}`, text: `${i}+${i}=`, target: String(2 * i) })));
const cond = defaultCondition(task.spec, 'f32');
const probes: ProbeSpec[] = [{ probe: 'deployment' }, randomRoutes(blocksSpace(L), 6, 1), colaMcts(L, 4, 1), samplingCeiling(5, 1)];

/** Answers that vary with the route and the sample, with log-probs that vary too. */
const engine = () =>
  new FakeEngine({
    numLayers: L,
    answer: (q) => {
      const h = [...q.route, q.sampling.kind === 'sample' ? q.sampling.seed % 7 : 0].reduce((s, x) => (s * 31 + x) % 97, 0);
      return { text: String(h % 3 === 0 ? 2 * Number(q.prompt[0]) : h % 5), logprob: -(h % 11) / 10 };
    },
  });

const stripped = (rs: readonly QuestionRecord[]) => rs.map(({ selectors: _, ...r }) => r as QuestionRecord);

describe('selector picks at read time', () => {
  it('equal the picks the audit stored, for every record and selector', async () => {
    const res = await runAudit(engine(), { task, condition: cond, probes, selectors: ['majority', 'max-logprob'] });
    const withPicks = res.records.filter((r) => r.selectors);
    expect(withPicks.length).toBe(15);
    for (const r of withPicks) {
      const bare = stripped([r])[0];
      for (const name of ['majority', 'max-logprob'] as const) expect(selectorPick(bare, name)).toEqual(r.selectors![name]);
    }
    // over MCTS attempts the pick is not answer-blind
    expect(withPicks.filter((r) => r.probe === 'mcts-routes').every((r) => selectorPick(r, 'majority')!.blind === false)).toBe(true);
  });

  it('let a run stored without picks answer with them, as a run that asked for them', async () => {
    const asked = await runAudit(engine(), { task, condition: cond, probes, selectors: ['majority', 'max-logprob'] });
    const earlier = await runAudit(engine(), { task, condition: cond, probes });
    expect(earlier.records.some((r) => r.selectors)).toBe(false);
    expect(summarize(withSelectorPicks(earlier.records))).toEqual(summarize(asked.records));
  });

  it('leave deployment records and an unstored fixed route without a pick', async () => {
    const res = await runAudit(engine(), { task, condition: cond, probes: probes.slice(0, 2) });
    expect(selectorPick(res.records[0], 'majority')).toBeNull();
    expect(selectorPick(res.records[5], 'fixed-route')).toBeNull();
    expect(withSelectorPicks(res.records, ['fixed-route'])).toEqual(res.records);
  });
});

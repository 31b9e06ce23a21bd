import { describe, expect, it } from 'vitest';
import { defaultCondition } from './condition';
import { programSelectionMcts, randomRoutes, samplingCeiling } from './presets';
import { isDeployment } from './probes/registry';
import { replayProblem } from './replay';
import { blocksSpace, routeToString } from './routes';
import { runAudit } from './run';
import { FakeEngine, type FakeQuery } from './testing/fake-engine';
import type { Doc, LoadedTask, ProbeSpec, QuestionRecord } from './types';

const L = 4;
const docs: Doc[] = Array.from({ length: 8 }, (_, i) => ({ id: `q${i}`, text: `${i}+${i}=`, target: String(2 * i) }));
const task: LoadedTask = { spec: { id: 'test:toy', name: 'toy', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 8, numTrain: 0 }, test: docs, train: [] };
const condition = defaultCondition(task.spec, 'f32');
const DEFAULT = '0,1,2,3';
const gold = (q: FakeQuery) => String(2 * Number(q.prompt.split('+')[0]));

/** Records of an audit whose engine answers the default route right the first time a question asks
 *  for it (the deployment attempt) and wrong on a search's later revisit of it; `revisits` counts
 *  those revisits. Other routes are right when they repeat a layer, on odd questions. */
async function audit(probes: ProbeSpec[]): Promise<{ records: QuestionRecord[]; revisits: number }> {
  const seen = new Set<string>();
  let revisits = 0;
  const engine = new FakeEngine({
    numLayers: L,
    answer: (q) => {
      if (routeToString(q.route) === DEFAULT && q.silence.length === 0 && q.sampling.kind === 'greedy') {
        if (!seen.has(q.prompt)) return seen.add(q.prompt), gold(q);
        revisits++;
        return 'x';
      }
      return Number(q.prompt.split('+')[0]) % 2 === 1 && new Set(q.route).size < q.route.length ? gold(q) : 'x';
    },
  });
  const { records } = await runAudit(engine, { task, condition, probes: [{ probe: 'deployment' }, ...probes] });
  return { records, revisits };
}

const ctx = { numLayers: L, condition, dependency: [] };
const deployed = (records: QuestionRecord[], doc: string) => records.find((r) => isDeployment(r) && r.doc_id === doc)!.attempts[0].correct;

describe('replayProblem', () => {
  it('finds every attempt of a genuine record, a search\'s revisit graded otherwise than the deployment attempt included', async () => {
    const spec = programSelectionMcts(L, 12, 3);
    const { records, revisits } = await audit([spec]);
    expect(revisits, 'the search revisits the default route').toBeGreaterThan(0);
    const mine = records.filter((x) => x.probe === spec.probe);
    for (const r of mine) expect(replayProblem(spec, r, ctx, deployed(records, r.doc_id)), r.doc_id).toBeNull();
    // every revisit was graded wrong and every deployment attempt right: without the deployment
    // record, a record whose search revisited cannot be replayed
    const stuck = mine.map((r) => replayProblem(spec, r, ctx, null)).filter((p) => p !== null);
    expect(stuck.length).toBeGreaterThan(0);
    expect(stuck[0]!.why).toMatch(/^cannot be replayed: the search revisits the default route, whose grade is the deployment record's, and the run holds no deployment record of question q\d$/);
  });

  it('names the first attempt that is not the session\'s ask, and a record holding more or fewer attempts', async () => {
    const specs = [randomRoutes(blocksSpace(L), 6, 2), samplingCeiling(4, 1)];
    const { records } = await audit(specs);
    const rr = records.find((r) => r.probe === 'random-routes')!;
    const sp = records.find((r) => r.probe === 'sampling')!;
    const moved = { ...rr, attempts: rr.attempts.map((a, k) => (k === 2 ? { ...a, route: [0, 1, 2, 3] } : a)) };
    expect(replayProblem(specs[0], moved, ctx, null)).toEqual({ field: 'attempts[2]', why: expect.stringMatching(/^says \{"route":\[0,1,2,3\].*but the probe's session under this spec asks for \{"route":\[/) });
    expect(replayProblem(specs[0], { ...rr, attempts: rr.attempts.slice(0, 5) }, ctx, null)).toEqual({ field: 'attempts', why: "hold 5, but the probe's session under this spec asks for more" });
    expect(replayProblem(specs[0], { ...rr, attempts: [...rr.attempts, rr.attempts[0]] }, ctx, null)).toEqual({ field: 'attempts', why: "hold 7, but the probe's session under this spec makes 6" });
    const resampled = { ...sp, attempts: sp.attempts.map((a, k) => (k === 1 ? { ...a, sample: 3 } : a)) };
    expect(replayProblem(specs[1], resampled, ctx, null)?.field).toBe('attempts[1]');
    expect(replayProblem(specs[1], sp, ctx, null)).toBeNull();
  });
});

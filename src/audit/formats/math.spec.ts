import { describe, expect, it } from 'vitest';
import { defaultCondition, validateCondition } from '../condition';
import { decoyFields, decoyOf, decoyControl } from '../decoy';
import { grade, isAnswer } from '../graders';
import { runAudit } from '../run';
import { majorityVote } from '../selectors';
import { FakeEngine } from '../testing/fake-engine';
import type { Attempt, Doc, LoadedTask, TaskSpec } from '../types';
import { MATH_VERSION } from './math/index';
import { answerKeyOf, formatOf, graderVersionOf } from './registry';

const spec: TaskSpec = { id: 'test:math', name: 'math', answerFormat: 'math', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 3, numTrain: 0 };
const attempt = (index: number, extracted: string, correct = false): Attempt => ({ index, route: [index], silence: [], response: extracted, extracted, correct, meanLogprob: null });

describe('the math format', () => {
  it("grades the issue's examples through the one grade() every attempt goes through", () => {
    expect(grade('math', '2\\sqrt{5}', 'so \\boxed{\\sqrt{20}}')).toEqual({ extracted: '\\sqrt{20}', correct: true });
    expect(grade('math', '(3, \\frac{\\pi}{2})', 'so \\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}').correct).toBe(true);
    expect(grade('math', '4', '\\boxed{3}')).toEqual({ extracted: '3', correct: false });
    // requireBoxed: only the last box counts
    expect(grade('math', '\\frac12', 'The answer is $0.5$', { requireBoxed: true })).toEqual({ extracted: '[invalid]', correct: false });
    expect(grade('math', '\\frac12', 'so \\boxed{0.5}', { requireBoxed: true }).correct).toBe(true);
    // answerLine: DAPO's last "Answer:" line, the rest of the response ignored
    expect(grade('math', '\\frac12', 'try \\boxed{3}\nAnswer: 1/2', { answerLine: 'Answer:' }).correct).toBe(true);
    expect(grade('math', '\\frac12', 'so \\boxed{\\frac12}', { answerLine: 'Answer:' })).toEqual({ extracted: '[invalid]', correct: false });
  });

  it('has its own grader version, recorded by math conditions only', () => {
    const c = defaultCondition(spec, 'f32');
    expect(c.graderVersion).toBe(MATH_VERSION);
    expect(graderVersionOf('math')).toBe(MATH_VERSION);
    expect(graderVersionOf('numeric')).toBe(3);
    expect(c).toMatchObject({ maxNewTokens: formatOf('math').maxNewTokens, stopSequences: [], answerFormat: 'math' });
    expect(c.mcMode).toBeUndefined();
    expect(() => validateCondition({ ...c, graderVersion: 3 + MATH_VERSION })).toThrow(/not this app's version of the math grader/);
    expect(() => validateCondition({ ...c, mcMode: 'loglik' })).toThrow(/loglik needs answerFormat mc-letter/);
    expect(() => validateCondition({ ...c, answerLine: ' ' })).toThrow('condition.answerLine: expected a non-empty marker such as "Answer:", got " "');
  });

  it('votes on equivalence classes: \\frac12, 0.5 and \\dfrac{1}{2} are one answer', () => {
    const attempts = [attempt(0, '3'), attempt(1, '\\frac{1}{2}', true), attempt(2, '3'), attempt(3, '0.5', true), attempt(4, '\\dfrac{1}{2}', true)];
    expect(majorityVote(attempts)).toEqual({ extracted: '3', correct: false, attempt: 0 });
    expect(majorityVote(attempts, answerKeyOf(defaultCondition(spec, 'f32')))).toEqual({ extracted: '\\frac{1}{2}', correct: true, attempt: 1 });
  });

  it('makes decoys of the gold kind that are never the gold, and finds them among equivalent answers', () => {
    const golds = ['\\frac{3}{4}', '2\\sqrt{5}', '(3, \\frac{\\pi}{2})', '12', '-7', '[0, 1)', 'x^2 + 1'];
    for (const [i, g] of golds.entries()) {
      for (const seed of [1, 2, 3]) {
        const d = decoyOf({ id: `q${i}`, target: g }, 'math', seed);
        expect(d, g).not.toBeNull();
        expect(isAnswer('math', g, d!), `${g} vs decoy ${d}`).toBe(false);
        expect(decoyOf({ id: `q${i}`, target: g }, 'math', seed)).toBe(d);
      }
    }
    const doc: Doc = { id: 'q', text: 'q', target: '\\frac{1}{2}' };
    const decoy = decoyOf(doc, 'math', 4)!;
    const control = decoyControl({ ...defaultCondition(spec, 'f32'), fewShot: { n: 0, seed: 4 } });
    const f = decoyFields({ probe: 'sampling', doc, budget: 3, attempts: [attempt(0, '0.5'), attempt(1, `\\left(${decoy}\\right)`)] }, control);
    expect(f).toMatchObject({ decoy, decoy_first_success: 1, reachable_decoy: true });
  });

  it('runs an audit: records graded by equivalence, majority by class', async () => {
    const docs: Doc[] = [
      { id: 'a', text: 'half', target: '\\frac{1}{2}' },
      { id: 'b', text: 'root', target: '2\\sqrt{5}' },
      { id: 'c', text: 'pair', target: '(1, 2)' },
    ];
    const task: LoadedTask = { spec, test: docs, train: [] };
    const answers: Record<string, string[]> = { half: ['$0.5$', '\\boxed{\\tfrac12}', '3'], root: ['\\boxed{\\sqrt{20}}', '\\boxed{4}', '\\boxed{4}'], pair: ['(2, 1)', 'so $\\left(1,2\\right)$', '7'] };
    const engine = new FakeEngine({
      numLayers: 3,
      answer: (q) => (q.sampling.kind === 'greedy' ? answers[q.prompt][2] : answers[q.prompt][q.sampling.seed % 2]),
    });
    const res = await runAudit(engine, {
      task,
      condition: defaultCondition(spec, 'f32'),
      probes: [{ probe: 'deployment' }, { probe: 'sampling', budget: 4, temperature: 0.7, topP: 0.9, seed: 2 }],
      selectors: ['majority'],
    });
    const sampled = res.records.filter((r) => r.probe === 'sampling');
    expect(res.records.filter((r) => r.probe === 'deployment').map((r) => r.realized)).toEqual([false, false, false]);
    expect(sampled.map((r) => r.reachable)).toEqual([true, true, true]);
    for (const r of sampled) for (const a of r.attempts) expect(a.correct).toBe(grade('math', r.doc.target, a.response).correct);
    // question a: every sample is ½ in one form or another, so the vote is one class
    expect(sampled[0].selectors?.majority?.correct).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { defaultCondition } from './condition';
import { ceilingDecoy, decoyControl, decoyFields, decoyOf, goldMinusDecoy, NO_DECOY, reachesBeyondDecoy } from './decoy';
import { graderVersionOf } from './formats/registry';
import { routeToString } from './routes';
import { runAudit } from './run';
import { summarize } from './summary';
import { FakeEngine, type FakeQuery } from './testing/fake-engine';
import { toyTask } from './testing/toy-task';
import type { Attempt, Doc, ProbeSpec, QuestionRecord, RouteSpace } from './types';

/** An exact value of a canonical number ("-12", "2.5", "-7/3") as a fraction, read here by hand. */
function value(s: string): { p: bigint; q: bigint } {
  const [num, den = '1'] = s.split('/');
  const neg = num.startsWith('-');
  const [int, frac = ''] = num.replace('-', '').split('.');
  const p = BigInt(int + frac) * (neg ? -1n : 1n);
  return { p, q: BigInt(den) * 10n ** BigInt(frac.length) };
}
/** a − b as a fraction, exactly. */
const minus = (a: string, b: string) => {
  const x = value(a);
  const y = value(b);
  return { p: x.p * y.q - y.p * x.q, q: x.q * y.q };
};

const SEEDS = Array.from({ length: 40 }, (_, i) => i * 7919);
const doc = (target: string, id = 'q1', choices?: string[]): Doc => ({ id, text: '?', target, ...(choices ? { choices } : {}) });

describe('decoyOf', () => {
  // gold as written → its canonical form (what the grader extracts), the decoy's kind
  const numeric: [string, string, 'int' | 'dec' | 'frac'][] = [
    ['0', '0', 'int'],
    ['1', '1', 'int'],
    ['2', '2', 'int'],
    ['46', '46', 'int'],
    ['-1', '-1', 'int'],
    ['-17', '-17', 'int'],
    ['1,234', '1234', 'int'],
    ['#### 72', '72', 'int'],
    ['2.5', '2.5', 'dec'],
    ['0.25', '0.25', 'dec'],
    ['-0.5', '-0.5', 'dec'],
    ['.5', '0.5', 'dec'],
    ['1/3', '1/3', 'frac'],
    ['-7/2', '-3.5', 'dec'],
    ['-2/3', '-2/3', 'frac'],
  ];

  it('a numeric decoy is never the gold: the gold ± 1..3, same sign, same kind (integers stay integers)', () => {
    for (const [written, gold, kind] of numeric) {
      for (const seed of SEEDS) {
        for (const id of ['a', 'b', 'test-17']) {
          const d = decoyOf(doc(written, id), 'numeric', seed)!;
          expect(d, `${written} seed ${seed}`).not.toBe(gold);
          const diff = minus(d, gold);
          // |d − gold| is a whole number 1, 2 or 3
          expect(diff.p % diff.q, `${d} − ${gold}`).toBe(0n);
          expect([1n, 2n, 3n]).toContain((diff.p < 0n ? -diff.p : diff.p) / diff.q);
          expect(value(d).p < 0n, `${d} keeps the sign of ${gold}`).toBe(value(gold).p < 0n);
          expect(d).toMatch(kind === 'int' ? /^-?\d+$/ : kind === 'dec' ? /^-?\d+\.\d+$/ : /^-?\d+\/\d+$/);
        }
      }
    }
  });

  it('zero and small golds only move away from the sign boundary: 0 → 1..3, -1 → -2..-4', () => {
    const zero = new Set(SEEDS.map((s) => decoyOf(doc('0'), 'numeric', s)));
    expect([...zero].sort()).toEqual(['1', '2', '3']);
    const minusOne = new Set(SEEDS.map((s) => decoyOf(doc('-1'), 'numeric', s)));
    expect([...minusOne].sort()).toEqual(['-2', '-3', '-4']);
    // 1 may go down to 0 (still not negative), never to −1 or −2
    const one = new Set(SEEDS.flatMap((s) => ['a', 'b', 'c'].map((id) => decoyOf(doc('1', id), 'numeric', s))));
    expect([...one].sort()).toEqual(['0', '2', '3', '4']);
  });

  it('is fixed by the question seed and the question id', () => {
    for (const [written] of numeric) {
      for (const seed of SEEDS.slice(0, 5)) expect(decoyOf(doc(written), 'numeric', seed)).toBe(decoyOf(doc(written), 'numeric', seed));
    }
    // across seeds (same question) and across questions (same seed) the decoy varies
    expect(new Set(SEEDS.map((s) => decoyOf(doc('46'), 'numeric', s))).size).toBeGreaterThan(3);
    expect(new Set(Array.from({ length: 40 }, (_, i) => decoyOf(doc('46', `q${i}`), 'numeric', 1))).size).toBeGreaterThan(3);
    // every one of the six offsets occurs: the draw is not stuck on one side
    expect(new Set(SEEDS.map((s) => decoyOf(doc('46'), 'numeric', s)))).toEqual(new Set(['43', '44', '45', '47', '48', '49']));
  });

  it('a letter decoy is another option among the question’s choices', () => {
    const choices = ['red', 'green', 'blue', 'black'];
    for (const gold of ['A', 'B', 'C', 'D', '(b)', 'd.']) {
      const g = gold.replace(/[^a-z]/gi, '').toUpperCase();
      const seen = new Set<string>();
      for (const seed of SEEDS) {
        const d = decoyOf(doc(gold, 'q', choices), 'mc-letter', seed)!;
        expect(['A', 'B', 'C', 'D']).toContain(d);
        expect(d).not.toBe(g);
        seen.add(d);
      }
      expect(seen.size).toBe(3); // each other option occurs
    }
    // two options: always the other one; no options listed: within A–E as the grader reads letters
    expect(new Set(SEEDS.map((s) => decoyOf(doc('A', 'q', ['yes', 'no']), 'mc-letter', s)))).toEqual(new Set(['B']));
    expect(new Set(SEEDS.map((s) => decoyOf(doc('C'), 'mc-letter', s)))).toEqual(new Set(['A', 'B', 'D', 'E']));
  });

  it('is null where no wrong answer of the same kind can be made', () => {
    expect(decoyOf(doc('Paris'), 'exact', 1)).toBeNull();
    expect(decoyOf(doc('A', 'q', ['only']), 'mc-letter', 1)).toBeNull();
    expect(decoyOf(doc('no number here'), 'numeric', 1)).toBeNull();
  });
});

describe('decoyControl and decoyFields', () => {
  const cond = defaultCondition({ id: 'builtin:toy', name: 'toy', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 1, numTrain: 0 }, 'f32');
  const attempt = (index: number, extracted: string): Attempt => ({ index, route: [0], silence: [], response: extracted, extracted, correct: false, meanLogprob: null });

  it('takes the question seed from the condition (few-shot seed) and refuses unknown or other-grader conditions', () => {
    expect(decoyControl({ ...cond, fewShot: { n: 0, seed: 9 } })).toEqual({ format: 'numeric', questionSeed: 9 });
    expect(decoyControl(null)).toBeNull();
    expect(decoyControl({ ...cond, graderVersion: graderVersionOf('numeric') - 1 })).toBeNull();
  });

  it('grades the attempts against the decoy: first hit, realized on deployment, reachable within the budget on probes', () => {
    const control = { format: 'numeric' as const, questionSeed: 3 };
    const d = doc('46');
    const decoy = decoyOf(d, 'numeric', 3)!;
    const other = '7'; // more than 3 from 46: never a decoy
    const probe = (budget: number, extracted: string[]) => decoyFields({ probe: 'sampling', doc: d, budget, attempts: extracted.map((x, i) => attempt(i, x)) }, control);
    expect(probe(3, [other, '46', decoy])).toEqual({ decoy, decoy_first_success: 2, realized_decoy: null, reachable_decoy: true });
    // the hit is past the budget (a record whose attempts outnumber the budget): not reachable
    expect(probe(2, [other, '46', decoy])).toEqual({ decoy, decoy_first_success: 2, realized_decoy: null, reachable_decoy: false });
    expect(probe(3, [other, '[invalid]', '46'])).toEqual({ decoy, decoy_first_success: null, realized_decoy: null, reachable_decoy: false });
    const deployment = decoyFields({ probe: 'deployment', doc: d, budget: 0, attempts: [attempt(0, decoy)] }, control);
    expect(deployment).toEqual({ decoy, decoy_first_success: 0, realized_decoy: true, reachable_decoy: null });
    expect(decoyFields({ probe: 'deployment', doc: d, budget: 0, attempts: [attempt(0, decoy)] }, null)).toEqual(NO_DECOY);
    expect(decoyFields({ probe: 'sampling', doc: doc('Paris'), budget: 1, attempts: [attempt(0, 'paris')] }, { format: 'exact', questionSeed: 1 })).toEqual(NO_DECOY);
  });

  it('ceiling against the decoy: deployment or probe hits it; unknown when either has no decoy', () => {
    expect(ceilingDecoy({ realized_decoy: true }, { reachable_decoy: false })).toBe(true);
    expect(ceilingDecoy({ realized_decoy: false }, { reachable_decoy: true })).toBe(true);
    expect(ceilingDecoy({ realized_decoy: false }, { reachable_decoy: false })).toBe(false);
    expect(ceilingDecoy({ realized_decoy: null }, { reachable_decoy: true })).toBeNull();
    expect(ceilingDecoy({ realized_decoy: true }, { reachable_decoy: null })).toBeNull();
  });
});

describe('the decoy control through an audit (scripted engine)', () => {
  const L = 4;
  const task = toyTask([
    { id: 'q1', text: '1+1=', target: '2' },
    { id: 'q2', text: '2+2=', target: '4' },
    { id: 'q3', text: '3+3=', target: '6' },
  ]);
  const cond = { ...defaultCondition({ ...task.spec, id: 'builtin:toy' }, 'f32'), fewShot: { n: 0, seed: 11 } };
  // 14 routes (skip or repeat 1–2 adjacent layers): a budget of 14 draws every one
  const space: RouteSpace = { kind: 'blocks', numLayers: L, minLen: 1, maxLen: 8, maxBlock: 2, maxEdits: 1 };
  const REPEAT1 = '0,1,1,2,3';
  const decoys = new Map(task.test.map((d) => [d.text, decoyOf(d, 'numeric', 11)!]));
  const isDefault = (q: FakeQuery) => routeToString(q.route) === '0,1,2,3';
  const gold = (prompt: string) => task.test.find((d) => d.text === prompt)!.target;

  it('grades the same attempts against the decoy without a model call: reachable_decoy and ceiling_decoy by hand', async () => {
    // q1: deployment right; the route repeating layer 1 gives the decoy, the rest "99" (never a decoy)
    // q2: deployment "99"; routes give the gold on REPEAT1, "99" elsewhere: the decoy is never said
    // q3: deployment gives the decoy; every route "99"
    const answer = (q: FakeQuery): string => {
      if (isDefault(q)) return q.prompt === '1+1=' ? '2' : q.prompt === '3+3=' ? decoys.get(q.prompt)! : '99';
      if (routeToString(q.route) !== REPEAT1) return '99';
      return q.prompt === '1+1=' ? decoys.get(q.prompt)! : q.prompt === '2+2=' ? gold(q.prompt) : '99';
    };
    const engine = new FakeEngine({ numLayers: L, answer });
    const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 14, seed: 5, shared: false }];
    const res = await runAudit(engine, { task, condition: cond, probes });
    expect(engine.rowsRequested).toBe(3 + 3 * 14); // the decoy costs no attempt
    const rec = (id: string, probe: string) => res.records.find((r) => r.doc_id === id && r.probe === probe)!;
    for (const d of task.test) {
      for (const p of ['deployment', 'random-routes']) {
        expect(rec(d.id, p).decoy).toBe(decoys.get(d.text));
        expect(rec(d.id, p).decoy).not.toBe(d.target);
      }
    }
    expect([rec('q1', 'deployment').realized_decoy, rec('q2', 'deployment').realized_decoy, rec('q3', 'deployment').realized_decoy]).toEqual([false, false, true]);
    const q1 = rec('q1', 'random-routes');
    expect(q1.reachable_decoy).toBe(true);
    expect(q1.decoy_first_success).toBe(q1.attempts.findIndex((a) => routeToString(a.route!) === REPEAT1));
    expect(q1.reachable).toBe(false); // the decoy is not the gold
    expect([rec('q2', 'random-routes').reachable_decoy, rec('q2', 'random-routes').reachable]).toEqual([false, true]);
    expect([rec('q3', 'random-routes').reachable_decoy, rec('q3', 'random-routes').decoy_first_success]).toEqual([false, null]);
    expect(rec('q1', 'deployment').reachable_decoy).toBeNull();
    expect(q1.realized_decoy).toBeNull();

    const p = res.summary.probes[0];
    // reachable: q2 of 3; decoy: q1 of 3. ceiling: q1 (realized), q2 → 2 of 3; decoy: q1 (probe), q3 (deployment) → 2 of 3
    expect([p.counts.reachable, p.counts.reachable_decoy, p.counts.ceiling, p.counts.ceiling_decoy]).toEqual([1, 1, 2, 2]);
    expect(p.reachable_decoy).toBeCloseTo(1 / 3, 12);
    expect(p.ceiling_decoy).toBeCloseTo(2 / 3, 12);
  });

  it('a probe summary reports no decoy rate when a question has no decoy', async () => {
    const engine = new FakeEngine({ numLayers: L, answer: (q) => (isDefault(q) ? '99' : gold(q.prompt)) });
    const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'random-routes', space, budget: 3, seed: 5, shared: false }];
    const res = await runAudit(engine, { task, condition: cond, probes });
    const withoutOne: QuestionRecord[] = res.records.map((r) => (r.doc_id === 'q2' ? { ...r, ...NO_DECOY } : r));
    const p = summarize(withoutOne).probes[0];
    expect([p.reachable_decoy, p.ceiling_decoy, p.counts.reachable_decoy, p.counts.ceiling_decoy]).toEqual([null, null, null, null]);
    expect(p.reachable).toBe(1); // the gold rates are untouched
    const exact = await runAudit(new FakeEngine({ numLayers: L, answer: () => 'x' }), {
      task: { ...task, spec: { ...task.spec, answerFormat: 'exact' } },
      condition: { ...cond, answerFormat: 'exact' },
      probes,
    });
    expect(exact.records.every((r) => r.decoy === null && r.reachable_decoy === null && r.realized_decoy === null)).toBe(true);
    expect(exact.summary.probes[0]).toMatchObject({ reachable_decoy: null, ceiling_decoy: null });
  });
});

describe('goldMinusDecoy', () => {
  it('pairs gold and decoy reach by question: Δ, Newcombe interval and McNemar over the discordant questions', () => {
    // 20 questions: 12 reach the gold only, 2 the decoy only, 6 neither
    const hits = [...Array(12).fill({ gold: true, decoy: false }), ...Array(2).fill({ gold: false, decoy: true }), ...Array(6).fill({ gold: false, decoy: false })];
    const gap = goldMinusDecoy(hits)!;
    expect(gap.diff).toBeCloseTo(0.5, 12);
    expect(gap.mcnemar).toMatchObject({ b: 2, c: 12 });
    expect(gap.ci.lo).toBeGreaterThan(0);
    expect(reachesBeyondDecoy(gap)).toBe(true);
  });

  it('as many decoy as gold hits is indistinguishable from producing many answers; a question without a decoy gives no gap', () => {
    const even = goldMinusDecoy([...Array(10).fill({ gold: true, decoy: true }), { gold: true, decoy: false }, { gold: false, decoy: true }])!;
    expect(even.diff).toBe(0);
    expect(reachesBeyondDecoy(even)).toBe(false);
    expect(goldMinusDecoy([{ gold: true, decoy: false }, { gold: true, decoy: null }])).toBeNull();
    expect(reachesBeyondDecoy(null)).toBeNull();
  });
});

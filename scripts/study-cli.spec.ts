import { describe, expect, it } from 'vitest';
import { loadTask } from '../src/audit/index.ts';
import { normalizePlan } from '../src/audit/study-plan.ts';
import type { StudyReport } from '../src/audit/study-report.ts';
import { FakeEngine } from '../src/audit/testing/fake-engine.ts';
import { routeToString } from '../src/audit/routes.ts';
import { studyTaskOptions } from '../src/store/study.ts';
import { parseCli, runCli, type CliDeps } from './audit-cli.ts';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkFolders, modelSource, parseStudyCli, runStudy, runStudyExport, StudyCliError } from './study-cli.ts';
import type { StudyDeps } from './lib/study-records.ts';

// Two 6-layer fakes. A: right under the default route when a+b is even, under any route repeating a
// layer, and with layer 3's MLP silenced. B (the "trained" one): also right on the default route
// when a+b ≡ 1 (mod 4), and never with a silenced MLP.
const answer = (model: string) => (q: { prompt: string; route: number[]; silence: number[]; sampling: { kind: string; seed?: number } }) => {
  const m = /^(\d+)([+-])(\d+)=$/.exec(q.prompt)!;
  const v = m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
  const right = String(v);
  if (q.silence.length) return model === 'A' && q.silence[0] === 3 ? right : '0';
  if (q.sampling.kind === 'sample') return (q.sampling.seed ?? 0) % 3 === 0 ? right : '1';
  const isDefault = routeToString(q.route) === '0,1,2,3,4,5';
  if (isDefault) return v % 2 === 0 || (model === 'B' && ((v % 4) + 4) % 4 === 1) ? right : String(v + 1);
  return new Set(q.route).size < q.route.length ? right : '0';
};
/** The value of "a+b=" / "a-b=". */
const eval0 = (prompt: string) => {
  const m = /(\d+)([+-])(\d+)=$/.exec(prompt)!;
  return m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
};
const fake = (model: string) => new FakeEngine({ numLayers: 6, fingerprint: `fake-${model}`, answer: answer(model) });

const PLAN = {
  name: 'test study',
  models: ['A'],
  tasks: ['builtin:arith-2d'],
  probes: [
    { probe: 'random-routes', space: 'blocks' },
    { probe: 'mcts-routes', space: 'blocks' },
    { probe: 'sampling' },
  ],
  budget: 6,
  questions: 10,
  question_seed: 3,
  seed: 2,
  scan: true,
  selectors: ['majority', 'max-logprob'],
  pairs: [{ base: 'A', trained: 'B' }],
};

function deps(files: Map<string, string>): StudyDeps & { opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    openEngine: async (ref) => (opened.push(ref), fake(ref)),
    loadTask: (spec, plan) => loadTask(spec, studyTaskOptions(plan)),
    readRun: (key) => files.get(key) ?? null,
    writeRun: (key, text) => void files.set(key, text),
    log: () => {},
    appVersion: 'test',
    appCommit: 'test-commit',
  };
}
const cliDeps: CliDeps = { loadEngine: async (dir) => fake(dir), readText: async () => '' };
const cli = async (args: string) => (await runCli(parseCli(args.split(' ')), cliDeps)) as Record<string, unknown>;
const base = '--task builtin:arith-2d --questions 10 --question-seed 3 --budget 6 --seed 2 --selectors majority,max-logprob';
const strip = (r: StudyReport & { computed: number; reused: number; shard?: string }) => {
  const { computed: _c, reused: _r, shard: _s, ...rest } = r;
  return rest;
};

describe('study CLI', () => {
  it('equals, to the last digit, the single audits it is made of', async () => {
    const plan = normalizePlan(PLAN);
    const report = await runStudy(plan, null, deps(new Map()));
    expect(report.missing).toEqual([]);
    expect(report.computed).toBe(2 * (3 + 1));
    for (const model of ['A', 'B']) {
      const s = report.settings.find((x) => x.model === model)!;
      const rr = await cli(`--model ${model} ${base} --probe random-routes --space blocks`);
      const mc = await cli(`--model ${model} ${base} --probe mcts-routes,depth-matched-routes --space blocks`);
      const sp = await cli(`--model ${model} ${base} --probe sampling`);
      expect(s.run_keys).toEqual([rr.run_key, mc.run_key, sp.run_key]);
      expect(s.realized).toBe(rr.realized);
      expect(s.reachable).toEqual({ 'random-routes/blocks': rr.reachable, 'mcts-routes/blocks': mc.reachable, sampling: sp.reachable });
      expect(s.ceiling).toEqual({ 'random-routes/blocks': rr.ceiling, 'mcts-routes/blocks': mc.ceiling, sampling: sp.ceiling });
      expect(s.reachable_decoy).toEqual({ 'random-routes/blocks': rr.reachable_decoy, 'mcts-routes/blocks': mc.reachable_decoy, sampling: sp.reachable_decoy });
      expect(s.ceiling_decoy).toEqual({ 'random-routes/blocks': rr.ceiling_decoy, 'mcts-routes/blocks': mc.ceiling_decoy, sampling: sp.ceiling_decoy });
      expect(Object.values(s.reachable_decoy).every((x) => typeof x === 'number')).toBe(true); // numeric answers: every question has a decoy
      expect(s.selectors['random-routes/blocks']).toEqual(Object.fromEntries(Object.entries(rr.selectors as Record<string, { accuracy: number; blind: boolean; retained_gain: number | null; retained_gain_ci: { lo: number; hi: number } | null; retained_gain_reason: string | null; retained_gain_note: string }>).map(([k, v]) => [k, { accuracy: v.accuracy, blind: v.blind, retained_gain: v.retained_gain, retained_gain_ci: v.retained_gain_ci, retained_gain_reason: v.retained_gain_reason, retained_gain_note: v.retained_gain_note }])));
      // each probe's gold − decoy reach is the audit's
      expect(s.gold_minus_decoy['random-routes/blocks']).toEqual(rr.gold_minus_decoy);
      // random − MCTS at matched attempts: the CLI's two-probe audit compares the same records
      const both = await cli(`--model ${model} ${base} --probe random-routes,mcts-routes --space blocks`);
      const [cmp] = both.comparisons as { diff: { diff: number; ci: { lo: number; hi: number }; mcnemar: { exactP: number } }; matched_attempts: number; a: { reachable_decoy: number }; b: { reachable_decoy: number } }[];
      expect(s.random_minus_structured['mcts-routes/blocks']).toMatchObject({
        diff: cmp.diff.diff, ci: cmp.diff.ci, mcnemar_p: cmp.diff.mcnemar.exactP, matched_attempts: cmp.matched_attempts,
        random_reachable_decoy: cmp.a.reachable_decoy, structured_reachable_decoy: cmp.b.reachable_decoy,
      });
      // depth-matched walks − MCTS: the CLI's guidance comparison of the same MCTS run
      const [g] = mc.guidance as { preset: string; depth_matched: { diff: { diff: number; ci: { lo: number; hi: number } }; matched_attempts: number; a: { reachable: number } } }[];
      expect(g.preset).toBe('cola');
      expect(s.random_minus_structured['mcts-routes/blocks'].depth_matched).toMatchObject({
        diff: g.depth_matched.diff.diff, ci: g.depth_matched.diff.ci, matched_attempts: g.depth_matched.matched_attempts, walks_reachable: g.depth_matched.a.reachable,
      });
      // the silencing scan: the CLI's --scan on the random-routes run
      const scan = (await cli(`--model ${model} ${base} --probe random-routes --space blocks --scan`)).silencing as {
        identification: { layer: number | null };
        evaluation: { failures: number; repaired: number; rate: number; ci: { lo: number; hi: number }; collateral: number };
        failure_set: string[];
      };
      const c = report.f2.cases.find((x) => x.model === model)!;
      // 10 questions leave fewer than 10 held-out failures: no case, so no layer and no rate
      expect(scan.evaluation.failures).toBeLessThan(10);
      expect(c).toMatchObject({ status: 'no-case', layer: null, rate: null, ci: null, failures: scan.failure_set.length, evaluated: scan.evaluation.failures });
    }
    // the pair: the CLI's --compare on each probe
    const pair = report.f3.pairs[0];
    const cmpRoutes = (await cli(`--model A --compare B ${base} --probe random-routes --space blocks`)).compare as { comparison: { deployed: { diff: number; ci: { lo: number; hi: number } }; ceiling: { diff: number; ci: { lo: number; hi: number } } } };
    const cmpSampling = (await cli(`--model A --compare B ${base} --probe sampling`)).compare as {
      comparison: { ceiling: { diff: number; ci: { lo: number; hi: number } }; transitions: unknown; a: { ceiling_decoy: number }; b: { ceiling_decoy: number } };
    };
    expect(pair).toMatchObject({ base: 'A', trained: 'B', ceiling_probe: 'random-routes/blocks' });
    expect([pair.deployed_delta, pair.deployed_ci]).toEqual([cmpRoutes.comparison.deployed.diff, { lo: cmpRoutes.comparison.deployed.ci.lo, hi: cmpRoutes.comparison.deployed.ci.hi }]);
    expect([pair.ceiling_delta, pair.ceiling_ci]).toEqual([cmpRoutes.comparison.ceiling.diff, { lo: cmpRoutes.comparison.ceiling.ci.lo, hi: cmpRoutes.comparison.ceiling.ci.hi }]);
    expect([pair.ceilings.sampling.diff, pair.ceilings.sampling.ci]).toEqual([cmpSampling.comparison.ceiling.diff, { lo: cmpSampling.comparison.ceiling.ci.lo, hi: cmpSampling.comparison.ceiling.ci.hi }]);
    expect(pair.ceilings.sampling.transitions).toEqual(cmpSampling.comparison.transitions);
    expect([pair.ceilings.sampling.base_decoy, pair.ceilings.sampling.trained_decoy]).toEqual([cmpSampling.comparison.a.ceiling_decoy, cmpSampling.comparison.b.ceiling_decoy]);
    expect(pair.ceilings['random-routes/blocks'].transitions).toEqual(pair.transitions);
    // B is right on the default route on more questions than A: a positive deployed Δ
    expect(pair.deployed_delta).toBeGreaterThan(0);
  });

  it('runs a probe entry under its own settings, as the single audit with those flags', async () => {
    const plan = normalizePlan({ ...PLAN, models: ['A'], pairs: [], scan: false, probes: [{ probe: 'sampling' }, { probe: 'sampling', budget: 3, temperature: 1 }] });
    const report = await runStudy(plan, null, deps(new Map()));
    const own = await cli(`--model A ${base.replace('--budget 6', '--budget 3')} --probe sampling --temperature 1`);
    const plain = await cli(`--model A ${base} --probe sampling`);
    expect(report.settings[0].run_keys).toEqual([plain.run_key, own.run_key]);
    expect(report.settings[0].attempts).toEqual({ sampling: 6, 'sampling (budget 3, temperature 1)': 3 });
  });

  it('F2 with enough held-out failures equals the audit CLI\'s --scan: A\'s layer 3 repairs every held-out failure, B\'s silencing none', async () => {
    const plan = normalizePlan({ ...PLAN, questions: 80, probes: [{ probe: 'random-routes', space: 'blocks' }], selectors: [], pairs: [{ base: 'A', trained: 'B' }] });
    const report = await runStudyExport(plan, null, deps(new Map()));
    for (const model of ['A', 'B']) {
      const scan = (await cli(`--model ${model} --task builtin:arith-2d --questions 80 --question-seed 3 --budget 6 --seed 2 --probe random-routes --space blocks --scan`)).silencing as {
        identification: { layer: number | null };
        evaluation: { failures: number; repaired: number; rate: number; ci: { lo: number; hi: number }; collateral: number };
        failure_set: string[];
      };
      expect(scan.evaluation.failures).toBeGreaterThanOrEqual(10);
      const c = report.f2.cases.find((x) => x.model === model)!;
      expect(c).toMatchObject({ status: 'case', layer: scan.identification.layer, failures: scan.failure_set.length, evaluated: scan.evaluation.failures, repaired: scan.evaluation.repaired, collateral: scan.evaluation.collateral });
      if (c.layer !== null) expect([c.rate, c.ci]).toEqual([scan.evaluation.rate, scan.evaluation.ci]);
    }
    expect(report.f2.cases.find((x) => x.model === 'A')).toMatchObject({ layer: 3, rate: 1 });
    expect(report.f2.cases.find((x) => x.model === 'B')).toMatchObject({ layer: null, repaired: 0, rate: null });
    expect(report.verdicts.f2.evidence.find((e) => e.startsWith('A ·'))).toMatch(/silencing layer 3's MLP \(chosen as the layer that repairs the most of the other \d+ failures\) repairs (\d+) of \1 held-out failures \(100\.0%/);
    expect(report.verdicts.f2.evidence.find((e) => e.startsWith('B ·'))).toMatch(/no layer's silencing repairs any/);
  });

  it('shards compute disjoint settings; merged, they report exactly what one unsharded run does', async () => {
    const plan = normalizePlan(PLAN);
    const whole = await runStudy(plan, null, deps(new Map()));
    const shared = new Map<string, string>();
    const s1 = await runStudy(plan, { index: 1, count: 2 }, deps(shared));
    const s2 = await runStudy(plan, { index: 2, count: 2 }, deps(shared));
    expect(s1.computed + s2.computed).toBe(whole.computed);
    expect(s1.missing.length).toBeGreaterThan(0);
    expect(s1.shard).toBe('1/2');
    const d = deps(shared);
    const merged = await runStudy(plan, null, d);
    expect(merged.computed).toBe(0);
    expect(merged.reused).toBe(whole.computed);
    expect(strip(merged)).toEqual(strip(whole));
  });

  it('computes a run again, with a warning naming the file, when its stored file is another run or cannot be read', async () => {
    const one = (budget: number) => normalizePlan({ ...PLAN, models: ['A'], pairs: [], scan: false, probes: [{ probe: 'sampling' }], budget });
    const smallFiles = new Map<string, string>();
    const largeFiles = new Map<string, string>();
    const genuine = await runStudy(one(4), null, deps(smallFiles));
    await runStudy(one(8), null, deps(largeFiles));
    const [key] = genuine.settings[0].run_keys;
    const bad = [
      [[...largeFiles.values()][0], `${key}.json is another run`], // the budget-8 run's file under the budget-4 run's name
      [smallFiles.get(key)!.slice(0, 200), `${key}.json cannot be read`], // truncated
    ] as const;
    for (const [text, warning] of bad) {
      const files = new Map([[key, text]]);
      const d = deps(files);
      const logged: string[] = [];
      d.log = (line) => void logged.push(line);
      const report = await runStudy(one(4), null, d);
      expect(logged.some((l) => l.startsWith('warning:') && l.includes(warning)), logged.join('\n')).toBe(true);
      expect([report.computed, report.reused]).toEqual([1, 0]);
      expect(strip(report)).toEqual(strip(genuine));
      // rewritten as the genuine run (its timestamps aside)
      const [now, was] = [files.get(key)!, smallFiles.get(key)!].map((t) => JSON.parse(t) as { run_key: string; records: unknown[] });
      expect([now.run_key, now.records]).toEqual([was.run_key, was.records]);
    }
    expect((await runStudy(one(4), null, deps(new Map(smallFiles)))).reused).toBe(1);
  });

  it('verifies a stored run file as the app\'s import does: a tampered or incomplete file is named in a warning and recomputed, never reused', async () => {
    const plan = normalizePlan({ ...PLAN, models: ['A'], pairs: [], scan: false, probes: [{ probe: 'random-routes', space: 'blocks' }], budget: 4, questions: 6, selectors: ['majority'] });
    const files = new Map<string, string>();
    const genuine = await runStudy(plan, null, deps(files));
    const [key] = genuine.settings[0].run_keys;
    const text = files.get(key)!;
    type R = { doc_id: string; probe: string; realized: boolean | null; reachable: boolean | null; model_fingerprint: string; condition_key: string; doc_hash: string; target: string; attempts: { response: string; extracted: string }[] };
    const tamper = (edit: (f: { records: R[] }) => void) => {
      const f = JSON.parse(text) as { records: R[] };
      edit(f);
      return JSON.stringify(f);
    };
    const deployment = (f: { records: R[] }) => f.records.filter((r) => r.probe === 'deployment');
    const cases: [string, string, RegExp][] = [
      ['one realized flipped', tamper((f) => void (deployment(f)[0].realized = !deployment(f)[0].realized)), /realized says/],
      ['every deployment answer "999"', tamper((f) => deployment(f).forEach((r) => r.attempts.forEach((a) => Object.assign(a, { response: '999', extracted: '999' })))), /attempts\[0\]\.correct says|resps says/],
      ['reachable: true on every record', tamper((f) => f.records.forEach((r) => (r.reachable = true))), /reachable says true/],
      ['a duplicated record', tamper((f) => void f.records.push(f.records[1])), /the same question and probe as records\[1\]/],
      ['another fingerprint', tamper((f) => void (f.records[2].model_fingerprint = 'fake-B')), /model or condition key differ/],
      ['another condition key', tamper((f) => void (f.records[2].condition_key = 'c'.repeat(64))), /model or condition key differ/],
      ['another doc hash', tamper((f) => void (f.records[2].doc_hash = 'd'.repeat(64))), /question content or prompt/],
      ['another target', tamper((f) => void (f.records[2].target = '12345')), /target says "12345"/],
      ['a moved doc id', tamper((f) => void (deployment(f)[0].doc_id = deployment(f)[1].doc_id)), /question content or prompt|doc_id says/],
      ['records dropped', tamper((f) => void f.records.splice(3, 2)), /holds 10 of the 12 records its run asks for/],
      ['records: []', tamper((f) => void (f.records = [])), /holds 0 of the 12 records/],
    ];
    for (const [what, bad, why] of cases) {
      for (const dir of ['records', 'import']) {
        // --records: the file is read where it is rewritten; --import: read from a second folder
        const stored = new Map([[key, bad]]);
        const written = new Map<string, string>();
        const d = deps(stored);
        if (dir === 'import') d.writeRun = (k, t) => void written.set(k, t);
        const logged: string[] = [];
        d.log = (line) => void logged.push(line);
        const report = await runStudy(plan, null, d);
        const warning = logged.find((l) => l.startsWith('warning:'));
        expect(warning, `${what} (${dir}): ${logged.join('\n')}`).toContain(`${key}.json`);
        expect(warning, what).toMatch(why);
        expect([report.computed, report.reused], what).toEqual([1, 0]);
        expect(strip(report), what).toEqual(strip(genuine));
        expect(JSON.parse((dir === 'import' ? written : stored).get(key)!).records, what).toEqual(JSON.parse(text).records);
      }
    }
    expect((await runStudy(plan, null, deps(new Map(files)))).reused).toBe(1);
  });

  it('reports an empty failure set as a stated case, not an error (a model right on every question, and one right on none)', async () => {
    for (const [kind, answerOf] of [
      ['always right', (q: { prompt: string }) => String(eval0(q.prompt))],
      ['never right', () => 'x'],
    ] as const) {
      const d = deps(new Map());
      d.openEngine = async () => new FakeEngine({ numLayers: 6, fingerprint: `fake-${kind}`, answer: answerOf });
      const plan = normalizePlan({ ...PLAN, pairs: [], probes: [{ probe: 'random-routes', space: 'blocks' }], scan: true });
      const report = await runStudyExport(plan, null, d);
      expect(report.missing).toEqual([]);
      expect(report.f2.cases).toHaveLength(1);
      expect(report.f2.cases[0]).toMatchObject({ status: 'no-failures', failures: 0, layer: null, rate: null, ci: null });
      expect(report.verdicts.f2.evidence[0]).toMatch(/no failures to repair/);
      expect(report.verdicts.f2.sentence).toMatch(/1 has no failures to repair/);
      expect(JSON.stringify(report.verdicts)).not.toMatch(/0\/0|0\.000|NaN/);
    }
  });

  it('exports the plan as run (read back as the same plan), both seeds, the app and each cited run\'s manifest facts', async () => {
    const plan = normalizePlan(PLAN);
    const report = await runStudyExport(plan, null, deps(new Map()));
    expect(normalizePlan(JSON.parse(JSON.stringify(report.plan)))).toEqual(plan);
    // the same report as runStudy's, with the verdicts and the provenance added
    const { verdicts: _v, provenance: _p, ...rest } = report;
    expect(strip(rest)).toEqual(strip(await runStudy(plan, null, deps(new Map()))));
    expect(report.provenance.seeds).toEqual({ question_seed: 3, seed: 2, split_seed: 0 });
    expect(report.provenance.app).toEqual({ version: 'test', commit: 'test-commit' });
    expect(report.provenance.unavailable).toEqual([]);
    const cited = new Set([...report.settings.flatMap((s) => s.run_keys), ...report.f2.cases.flatMap((c) => c.run_keys)]);
    expect(new Set(report.provenance.runs.map((r) => r.run_key))).toEqual(cited);
    for (const r of report.provenance.runs) {
      expect(r.model.fingerprint).toMatch(/^fake-[AB]$/);
      expect(r.condition?.engineDtype).toBe('f32');
      expect(r.condition_key).toMatch(/^[0-9a-f]{64}$/);
      expect(r.engine).not.toBeNull();
    }
    expect(report.provenance.definitions.map((x) => x.term)).toContain('retained gain');
  });

  it('refuses bad plans and arguments by name', () => {
    expect(() => normalizePlan({ models: [], tasks: ['builtin:arith-2d'] })).toThrow(/models: expected at least 1 entry/);
    expect(() => normalizePlan({ models: ['A'], tasks: ['t'], probes: [{ probe: 'beam' }] })).toThrow(/probes\[0\]\.probe: expected one of "random-routes", "mcts-routes", "sampling"/);
    expect(() => normalizePlan({ models: ['A'], tasks: ['t'], budget: 0 })).toThrow(/budget: expected an integer from 1 to 10000, got number 0/);
    expect(() => normalizePlan({ models: ['A'], tasks: ['t'], colour: 1 })).toThrow(/colour: expected a known field \(name, models, /);
    expect(() => normalizePlan({ models: ['A'], tasks: ['t'], probes: [{ probe: 'sampling' }, { probe: 'sampling' }] })).toThrow(/probes: expected no repeats, got sampling twice/);
    expect(() => parseStudyCli([])).toThrow(StudyCliError);
    expect(() => parseStudyCli(['--plan', 'p.json', '--shard', '3/2'])).toThrow(/--shard must be i\/n with 1 ≤ i ≤ n/);
    expect(modelSource('builtin:micro-arith', '/r')).toEqual({ kind: 'fs', dir: '/r/public/hub/reachlab/micro-arith/resolve/main' });
    expect(modelSource('Qwen/Qwen2.5-0.5B@abc', '/r', { endpoint: 'http://x' })).toEqual({ kind: 'hub', repo: 'Qwen/Qwen2.5-0.5B', revision: 'abc', endpoint: 'http://x' });
    expect(() => modelSource('not a model', '/r')).toThrow(/neither builtin:<name>, a folder with config.json, nor a Hub id/);
  });

  it('refuses record folders that are not folders, and a plan asking more questions than its task holds, by name', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'study-cli-'));
    try {
      const file = path.join(dir, 'a-file');
      writeFileSync(file, 'x');
      expect(() => checkFolders({ records: file, imports: [] })).toThrow(new StudyCliError(`--records ${file}: not a directory`));
      expect(() => checkFolders({ records: path.join(file, 'below'), imports: [] })).toThrow(/^--records .*below: cannot create the folder \(ENOTDIR\)$/);
      expect(() => checkFolders({ records: dir, imports: [path.join(dir, 'nonexistent')] })).toThrow(new StudyCliError(`--import ${path.join(dir, 'nonexistent')}: no such directory`));
      expect(() => checkFolders({ records: dir, imports: [file] })).toThrow(new StudyCliError(`--import ${file}: not a directory`));
      checkFolders({ records: path.join(dir, 'made'), imports: [dir] });
      expect(existsSync(path.join(dir, 'made'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true });
    }
    const plan = normalizePlan({ ...PLAN, pairs: [], scan: false, probes: [{ probe: 'sampling' }], questions: 1e15 });
    await expect(runStudy(plan, null, deps(new Map()))).rejects.toThrow('the plan asks for 1000000000000000 questions, but builtin:arith-2d has 3219 test questions: set "questions" to at most 3219');
  });
});

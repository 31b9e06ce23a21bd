import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../src/audit/testing/fake-engine.ts';
import { PROBE_NAMES } from '../src/audit/probes/registry.ts';
import { routeToString } from '../src/audit/routes.ts';
import { CliError, parseCli, runCli, type CliDeps } from './audit-cli.ts';

// a 6-layer fake: right under the default route when a+b is even, and under any route repeating a layer
// (the question raw, or as the fake's chat template renders it)
const answerOf = (prompt: string, route: number[], silence: number[]) => {
  const m = /^(?:<\|im_start\|>user\n)?(\d+)([+-])(\d+)=(?:<\|im_end\|>\n<\|im_start\|>assistant\n)?$/.exec(prompt)!;
  const v = m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
  const isDefault = routeToString(route) === '0,1,2,3,4,5';
  if (silence[0] === 3) return String(v);
  if (isDefault) return v % 2 === 0 ? String(v) : String(v + 1);
  return new Set(route).size < route.length ? String(v) : '0';
};
const deps = (fingerprint = 'fake-A'): CliDeps => ({
  loadEngine: async (dir) =>
    new FakeEngine({ numLayers: 6, fingerprint: dir === 'B' ? 'fake-B' : fingerprint, answer: (q) => `${answerOf(q.prompt, q.route, q.silence)}\nmore` }),
  readText: async () => '',
});
const argv = (s: string) => s.split(' ');

describe('audit CLI', () => {
  it('prints the headline shape for the documented command', async () => {
    const out = (await runCli(parseCli(argv('--model A --task builtin:arith-2d --questions 20 --probe random-routes --space blocks --budget 16 --seed 1')), deps())) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(expect.arrayContaining(['condition_key', 'realized', 'reachable', 'ceiling', 'reach_at_k', 'records']));
    expect(out.condition_key).toMatch(/^[0-9a-f]{64}$/);
    const records = out.records as { doc_id: string; realized: boolean; reachable: boolean; ceiling: boolean; attempts: unknown[]; budget: number }[];
    expect(records).toHaveLength(20);
    expect(records.every((r) => r.attempts.length === 16 && r.budget === 16)).toBe(true);
    expect(out.reach_at_k as number[]).toHaveLength(16);
    const realized = records.filter((r) => r.realized).length / 20;
    expect(out.realized).toBe(realized);
    expect(out.ceiling).toBe(records.filter((r) => r.ceiling).length / 20);
    expect(out.reachable).toBe(records.filter((r) => r.reachable).length / 20);
    // the default condition stops at a newline: "46\nmore" is read as 46
    expect(records.every((r) => !JSON.stringify(r).includes('more'))).toBe(true);
  });

  it('carries reachable_decoy and ceiling_decoy beside reachable and ceiling, as graded from the attempts', async () => {
    const out = (await runCli(parseCli(argv('--model A --questions 20 --probe random-routes,sampling --budget 8')), deps())) as Record<string, unknown> & {
      probes: { probe_key: string; n: number; joined: number; reachable: number; ceiling: number; reachable_decoy: number | null; ceiling_decoy: number | null }[];
    };
    type Row = {
      probe_key: string; target: string; budget: number; decoy: string | null; reachable_decoy: boolean | null; realized_decoy: boolean | null; ceiling_decoy: boolean | null;
      attempts: { extracted: string }[]; deployment: { extracted: string };
    };
    const rows = out.records as Row[];
    expect(out.probes).toHaveLength(2);
    for (const p of out.probes) {
      const mine = rows.filter((r) => r.probe_key === p.probe_key);
      expect(mine).toHaveLength(20);
      for (const r of mine) {
        // the numeric decoy is a wrong answer; the probe reaches it when one of its first B answers is it
        expect(r.decoy).not.toBeNull();
        expect(r.decoy).not.toBe(r.target);
        expect(r.reachable_decoy).toBe(r.attempts.slice(0, r.budget).some((a) => a.extracted === r.decoy));
        expect(r.realized_decoy).toBe(r.deployment.extracted === r.decoy);
        expect(r.ceiling_decoy).toBe(r.realized_decoy || r.reachable_decoy);
      }
      expect(p.reachable_decoy).toBe(mine.filter((r) => r.reachable_decoy).length / p.n);
      expect(p.ceiling_decoy).toBe(mine.filter((r) => r.ceiling_decoy).length / p.joined);
    }
    // the first probe's numbers at the top level, the decoy's beside reachable and ceiling
    expect([out.reachable, out.reachable_decoy, out.ceiling, out.ceiling_decoy]).toEqual([out.probes[0].reachable, out.probes[0].reachable_decoy, out.probes[0].ceiling, out.probes[0].ceiling_decoy]);
    // some of this fake's wrong answers are decoys (v + 1 on the default route, "0" under routes
    // that repeat no layer), so the check above is not vacuous
    expect(rows.some((r) => r.reachable_decoy)).toBe(true);
  });

  it('runs every probe name, the neighborhood space, the scan and the comparison', async () => {
    for (const probe of ['deployment', 'mcts-routes', 'sampling', 'mlp-silencing']) {
      const out = (await runCli(parseCli(argv(`--model A --questions 4 --probe ${probe}${probe === 'deployment' || probe === 'mlp-silencing' ? '' : ' --budget 4'}`)), deps())) as {
        records: unknown[];
        reach_at_k: number[];
      };
      expect(out.records).toHaveLength(4);
      expect(out.reach_at_k).toHaveLength(probe === 'deployment' ? 0 : probe === 'mlp-silencing' ? 6 : 4);
    }
    const hood = (await runCli(parseCli(argv('--model A --questions 3 --space neighborhood --radius 2 --max-edits 3 --budget 8')), deps())) as {
      probe: { space: unknown };
    };
    expect(hood.probe.space).toEqual({ kind: 'neighborhood', numLayers: 6, radius: 2, maxEdits: 3 });
    const scanned = (await runCli(parseCli(argv('--model A --questions 10 --budget 8 --scan --split-seed 1')), deps())) as {
      silencing: {
        failure_set: string[];
        identification: { doc_ids: string[]; layer: number };
        evaluation: { doc_ids: string[]; failures: number; repaired: number; rate: number; ci: { lo: number; hi: number }; collateral: number };
        in_sample: { best: { layer: number } };
      };
    };
    // silencing layer 3 makes every question right: identified on one half, it repairs the whole
    // other half and breaks nothing
    const { identification, evaluation } = scanned.silencing;
    expect(identification.layer).toBe(3);
    expect([...identification.doc_ids, ...evaluation.doc_ids].sort()).toEqual([...scanned.silencing.failure_set].sort());
    expect(evaluation.failures).toBe(evaluation.doc_ids.length);
    expect(evaluation).toMatchObject({ repaired: evaluation.failures, rate: 1, collateral: 0 });
    expect(evaluation.ci.hi).toBe(1);
    expect(scanned.silencing.in_sample.best.layer).toBe(3);
    const cmp = (await runCli(parseCli(argv('--model A --compare B --questions 6 --budget 4')), deps())) as {
      compare: { model: { fingerprint: string }; comparison: { n: number; transitions: unknown } };
    };
    expect(cmp.compare.model.fingerprint).toBe('fake-B');
    expect(cmp.compare.comparison.n).toBe(6);
  });

  it('prints run_key, question_seed, stop_reason and selectors; --seed never changes the questions', async () => {
    type Out = {
      run_key: string;
      condition_key: string;
      question_seed: number;
      seed: number;
      records: { doc_id: string; doc_hash: string; stop_reason: string; attempts: { route: number[] }[] }[];
      selectors: Record<string, { accuracy: number; blind: boolean; retained_gain: number | null }>;
    };
    const run = async (extra: string) => (await runCli(parseCli(argv(`--model A --questions 12 --budget 6 --selectors majority,max-logprob ${extra}`.trim())), deps())) as Out;
    const a = await run('--seed 1');
    expect(a.run_key).toMatch(/^[0-9a-f]{64}$/);
    expect(a.question_seed).toBe(1);
    expect(a.seed).toBe(1);
    expect(a.records.every((r) => r.stop_reason === 'budget')).toBe(true);
    for (const name of ['majority', 'max-logprob']) {
      expect(a.selectors[name].blind).toBe(true);
      expect(Object.keys(a.selectors[name]).sort()).toEqual(['accuracy', 'blind', 'correct', 'n', 'retained_gain', 'retained_gain_ci', 'retained_gain_note', 'retained_gain_reason']);
    }
    expect((await run('--seed 1')).run_key).toBe(a.run_key);
    // another probe seed: same questions (ids and content), same condition; other draws, other run
    const b = await run('--seed 2');
    expect(b.records.map((r) => r.doc_hash)).toEqual(a.records.map((r) => r.doc_hash));
    expect(b.condition_key).toBe(a.condition_key);
    expect(b.run_key).not.toBe(a.run_key);
    expect(JSON.stringify(b.records.map((r) => r.attempts.map((x) => x.route)))).not.toBe(JSON.stringify(a.records.map((r) => r.attempts.map((x) => x.route))));
    // another question seed: other questions
    const c = await run('--seed 1 --question-seed 7');
    expect(c.question_seed).toBe(7);
    expect(c.records.map((r) => r.doc_hash)).not.toEqual(a.records.map((r) => r.doc_hash));
  });

  it('MCTS at budget B on an 8-layer model makes B distinct attempts per question; two probes are compared at matched attempts', async () => {
    const eight: CliDeps = { loadEngine: async () => new FakeEngine({ numLayers: 8, answer: (q) => (q.route.length < 8 ? '0' : q.prompt.slice(0, 1)) }), readText: async () => '' };
    for (const space of ['blocks', 'neighborhood']) {
      const out = (await runCli(parseCli(argv(`--model A --questions 5 --probe random-routes,mcts-routes --space ${space} --budget 40`)), eight)) as {
        probes: { probe: string; mean_attempts: number; space_exhausted: number }[];
        records: { probe: string; attempts: { route: number[] }[]; stop_reason: string }[];
        comparisons: { n: number; matched_attempts: number; diff: { diff: number; ci: { lo: number; hi: number } } }[];
      };
      const mcts = out.records.filter((r) => r.probe === 'mcts-routes');
      expect(mcts).toHaveLength(5);
      for (const r of mcts) {
        expect(new Set(r.attempts.map((a) => a.route.join(','))).size).toBe(40);
        expect(r.stop_reason).toBe('budget');
      }
      expect(out.probes.map((p) => [p.probe, p.mean_attempts, p.space_exhausted])).toEqual([
        ['random-routes', 40, 0],
        ['mcts-routes', 40, 0],
      ]);
      expect(out.comparisons).toHaveLength(1);
      expect(out.comparisons[0]).toMatchObject({ n: 5, matched_attempts: 40 });
    }
  });

  it('takes the condition\'s prompt template and stop sequences as Setup sets them (escapes as its stop field writes them)', async () => {
    const cmd = parseCli(['--model', 'A', '--prompt-template', 'Q: {{question}}\\nA:', '--stop', '\\n', '--stop', '###']);
    if (cmd.kind !== 'audit') throw new Error('expected an audit');
    expect(cmd.opts.promptTemplate).toBe('Q: {{question}}\\nA:'); // the template is taken as written
    expect(cmd.opts.stopSequences).toEqual(['\n', '###']);
    type Out = { condition_key: string; realized: number };
    const run = async (extra: string[]) => (await runCli(parseCli(['--model', 'A', '--questions', '6', '--budget', '4', ...extra]), deps())) as Out;
    const plain = await run([]);
    // the built-in task's own template and stops name the same condition; another stop set is another condition
    expect((await run(['--prompt-template', '{{question}}', '--stop', '\\n'])).condition_key).toBe(plain.condition_key);
    const other = await run(['--stop', '###']);
    expect(other.condition_key).not.toBe(plain.condition_key);
  });

  it('rejects bad arguments with a clear message', () => {
    const bad: [string, RegExp | string][] = [
      ['--probe nope --model A', `--probe must be one of ${PROBE_NAMES.join(', ')}, got "nope"`],
      ['--questions 20', /--model DIR is required/],
      ['--model A --budget 0', /--budget must be an integer from 1 to 10000, got "0"/],
      ['--model A --budget 10001', /--budget must be an integer from 1 to 10000, got "10001"/],
      ['--model A --budget x', /--budget must be an integer/],
      ['--model A --space ring', /--space must be one of blocks, neighborhood/],
      ['--model A --probe mlp-silencing --budget 3', /does not apply to mlp-silencing/],
      ['--model A --probe random-routes,random-routes', /lists a probe twice/],
      ['--model A --question-seed x', /--question-seed must be an integer ≥ 0/],
      ['--model A --seed 99999999999999999999', /--seed must be at most 9007199254740991 \(larger integers are not exact in JSON\), got "99999999999999999999"/],
      ['--model A --top-p 2', /--top-p must be a number in \(0, 1\]/],
      ['--model A --selectors best', /--selectors must be one of majority, max-logprob, fixed-route/],
      ['--model A --frobnicate', /Unknown option '--frobnicate'/],
      ['--model A --prompt-template Q:', /--prompt-template must contain \{\{question\}\}/],
      ['grade --format numeric --gold 3', /grade needs --format, --gold and --response/],
      ['grade --format roman --gold 3 --response 3', /--format must be one of numeric, mc-letter, exact/],
    ];
    for (const [args, re] of bad) {
      expect(() => parseCli(argv(args))).toThrow(CliError);
      expect(() => parseCli(argv(args))).toThrow(re);
    }
  });

  it('sets the chat template variables of the condition (--chat --template-var), each in the key', async () => {
    const run = async (extra: string[]) => (await runCli(parseCli(['--model', 'A', '--questions', '3', '--chat', ...extra]), deps())) as Record<string, unknown>;
    const plain = await run([]);
    expect(plain.template_vars).toEqual({ add_generation_prompt: true, date_string: '26 Jul 2024' });
    const set = await run(['--template-var', 'enable_thinking=false', '--template-var', 'date_string=06 Dec 2026']);
    expect(set.template_vars).toEqual({ add_generation_prompt: true, date_string: '06 Dec 2026', enable_thinking: false });
    expect(set.condition_key).not.toBe(plain.condition_key);
    expect(() => parseCli(['--model', 'A', '--chat', '--template-var', 'tools=1'])).toThrow(/^--template-var: expected one of the template variables .*, got an unknown template variable "tools"/);
    expect(() => parseCli(['--model', 'A', '--chat', '--template-var', 'enable_thinking=no'])).toThrow('--template-var: enable_thinking: expected true or false (a boolean), got "no"');
    await expect(runCli(parseCli(['--model', 'A', '--template-var', 'enable_thinking=false']), deps())).rejects.toThrow('template variables need the chat template');
    await expect(run(['--template-var', 'date_string=tomorrow'])).rejects.toThrow(/date_string: expected a day as a string "%d %b %Y"/);
  });

  it('grades one response', async () => {
    expect(await runCli(parseCli(['grade', '--format', 'numeric', '--gold', '#### 72', '--response', 'She has $72.']), deps())).toEqual({ extracted: '72', correct: true });
    expect(await runCli(parseCli(['grade', '--format', 'mc-letter', '--gold', 'C', '--response', 'answer: c', '--choices', 'A,B,C,D']), deps())).toEqual({
      extracted: 'C',
      correct: true,
    });
    expect(await runCli(parseCli(['grade', '--format', 'numeric', '--gold', '5', '--response', 'no idea']), deps())).toEqual({ extracted: '[invalid]', correct: false });
  });

  it('grades the issue\'s math examples under --format math', async () => {
    const g = (gold: string, response: string) => runCli(parseCli(['grade', '--format', 'math', '--gold', gold, '--response', response]), deps());
    expect(await g('2\\sqrt{5}', 'so \\boxed{\\sqrt{20}}')).toEqual({ extracted: '\\sqrt{20}', correct: true });
    expect(await g('(3, \\frac{\\pi}{2})', 'so \\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}')).toMatchObject({ correct: true });
    expect(await g('4', '\\boxed{3}')).toEqual({ extracted: '3', correct: false });
  });

  it('grades a file of cases in order, one line each, naming each bad line by its number', async () => {
    const text = [
      JSON.stringify({ gold: '\\frac12', response: 'so \\boxed{0.5}' }),
      '',
      '{"gold": "1", "response": ',
      JSON.stringify({ gold: 4, response: 'it is 3' }),
      JSON.stringify({ response: 'x' }),
      JSON.stringify({ gold: '\\frac{', response: '1' }),
      JSON.stringify({ gold: '2', response: 'the answer is 2' }),
    ].join('\n');
    const cmd = parseCli(['grade', '--format', 'math', '--cases', 'cases.jsonl']);
    const out = (await runCli(cmd, { ...deps(), readText: async () => text })) as { lines: string[]; problems: string[] };
    expect(out.lines.map((l) => JSON.parse(l))).toEqual([
      { extracted: '0.5', correct: true },
      { line: 3, error: expect.stringMatching(/JSON/) },
      { extracted: '3', correct: false },
      { line: 5, error: '"gold" must be text or a number, got nothing' },
      { line: 6, error: 'math gold answer "\\\\frac{" holds no readable answer' },
      { extracted: '2', correct: true },
    ]);
    expect(out.problems).toEqual([expect.stringMatching(/^cases\.jsonl line 3: /), 'cases.jsonl line 5: "gold" must be text or a number, got nothing', 'cases.jsonl line 6: math gold answer "\\\\frac{" holds no readable answer']);
    // mc-letter cases carry their options
    const mc = parseCli(['grade', '--format', 'mc-letter', '--cases', 'mc.jsonl']);
    const letters = (await runCli(mc, { ...deps(), readText: async () => JSON.stringify({ gold: 'B', response: 'Paris', choices: ['Rome', 'Paris'] }) })) as { lines: string[] };
    expect(letters.lines).toEqual(['{"extracted":"B","correct":true}']);
    expect(() => parseCli(['grade', '--cases', 'x.jsonl'])).toThrow('grade --cases needs --format');
    expect(() => parseCli(['grade', '--format', 'math', '--cases', 'x.jsonl', '--gold', '1'])).toThrow(/drop --gold, --response and --choices/);
  });
});

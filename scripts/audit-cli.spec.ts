import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../src/audit/testing/fake-engine.ts';
import { routeToString } from '../src/audit/routes.ts';
import { CliError, parseCli, runCli, type CliDeps } from './audit-cli.ts';

// a 6-layer fake: right under the default route when a+b is even, and under any route repeating a layer
const answerOf = (prompt: string, route: number[], silence: number[]) => {
  const m = /^(\d+)([+-])(\d+)=$/.exec(prompt)!;
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
    const scanned = (await runCli(parseCli(argv('--model A --questions 10 --budget 8 --scan --split-half 1')), deps())) as {
      scan: { best: { layer: number; repaired: number; failures: number } };
    };
    // silencing layer 3 makes every question right: it repairs the whole failure set
    expect(scanned.scan.best.layer).toBe(3);
    expect(scanned.scan.best.repaired).toBe(scanned.scan.best.failures);
    const cmp = (await runCli(parseCli(argv('--model A --compare B --questions 6 --budget 4')), deps())) as {
      compare: { model: { fingerprint: string }; comparison: { n: number; transitions: unknown } };
    };
    expect(cmp.compare.model.fingerprint).toBe('fake-B');
    expect(cmp.compare.comparison.n).toBe(6);
  });

  it('rejects bad arguments with a clear message', () => {
    const bad: [string, RegExp][] = [
      ['--probe nope --model A', /--probe must be one of deployment, random-routes, mcts-routes, sampling, mlp-silencing/],
      ['--questions 20', /--model DIR is required/],
      ['--model A --budget 0', /--budget must be an integer ≥ 1/],
      ['--model A --budget x', /--budget must be an integer/],
      ['--model A --space ring', /--space must be one of blocks, neighborhood/],
      ['--model A --probe mlp-silencing --budget 3', /does not apply to mlp-silencing/],
      ['--model A --top-p 2', /--top-p must be a number in \(0, 1\]/],
      ['--model A --selectors best', /--selectors must be one of majority, max-logprob, fixed-route/],
      ['--model A --frobnicate', /Unknown option '--frobnicate'/],
      ['grade --format numeric --gold 3', /grade needs --format, --gold and --response/],
      ['grade --format roman --gold 3 --response 3', /--format must be one of numeric, mc-letter, exact/],
    ];
    for (const [args, re] of bad) {
      expect(() => parseCli(argv(args))).toThrow(CliError);
      expect(() => parseCli(argv(args))).toThrow(re);
    }
  });

  it('grades one response', async () => {
    expect(await runCli(parseCli(['grade', '--format', 'numeric', '--gold', '#### 72', '--response', 'She has $72.']), deps())).toEqual({ extracted: '72', correct: true });
    expect(await runCli(parseCli(['grade', '--format', 'mc-letter', '--gold', 'C', '--response', 'answer: c', '--choices', 'A,B,C,D']), deps())).toEqual({
      extracted: 'C',
      correct: true,
    });
    expect(await runCli(parseCli(['grade', '--format', 'numeric', '--gold', '5', '--response', 'no idea']), deps())).toEqual({ extracted: '[invalid]', correct: false });
  });
});

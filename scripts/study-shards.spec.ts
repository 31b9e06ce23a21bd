// A scheduled study, simulated here: N copies of `study --shard auto` run at once with the variables
// a Kubernetes Indexed Job or a Slurm job array gives each copy, all writing to one shared records
// folder (deploy/ has the Job manifest and the sbatch script); the merge (--import of that folder)
// then computes nothing and reports exactly what one unsharded run does.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'study-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// two settings (the micro model and its RL-trained pair), small enough for a test
const PLAN = {
  name: 'scheduled shards',
  models: ['builtin:micro-arith'],
  tasks: ['builtin:arith-2d'],
  probes: [{ probe: 'random-routes', space: 'blocks' }, { probe: 'sampling' }],
  budget: 3,
  questions: 4,
  question_seed: 5,
  seed: 3,
  scan: false,
  selectors: ['majority'],
  pairs: [{ base: 'builtin:micro-arith', trained: 'builtin:micro-arith-rl' }],
};
const planFile = path.join(dir, 'plan.json');
writeFileSync(planFile, JSON.stringify(PLAN));

const SCHEDULER_VARS = ['JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID', 'SLURM_ARRAY_TASK_MIN', 'SLURM_ARRAY_TASK_COUNT', 'SLURM_ARRAY_TASK_STEP'];

type Report = Record<string, unknown> & { computed: number; reused: number; shard?: string };

/** One copy of the study CLI with `vars` set; its report. */
function study(args: string[], vars: Record<string, string> = {}): Promise<Report> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...vars };
  for (const v of SCHEDULER_VARS) if (!(v in vars)) delete env[v];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/study-cli.ts'), '--plan', planFile, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Report) : reject(new Error(`study ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

const strip = ({ computed: _c, reused: _r, shard: _s, ...rest }: Report) => rest;

describe('a study sharded by a scheduler', () => {
  let whole: Report;

  it.each([
    ['a Kubernetes Indexed Job (completions 2)', [{ JOB_COMPLETION_INDEX: '0' }, { JOB_COMPLETION_INDEX: '1' }]],
    ['a Slurm job array (--array=1-2)', [1, 2].map((id) => ({ SLURM_ARRAY_TASK_ID: String(id), SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '2' }))],
  ])('merges into the unsharded report: %s', async (_name, copies) => {
    whole ??= await study(['--records', mkdtempSync(path.join(dir, 'whole-'))]);
    const shared = mkdtempSync(path.join(dir, 'shared-'));
    const shards = await Promise.all(copies.map((vars) => study(['--shard', 'auto', '--records', shared], vars)));
    expect(shards.map((s) => s.shard)).toEqual(['1/2', '2/2']);
    for (const s of shards) expect(s.computed, `shard ${s.shard} computes its setting's runs`).toBeGreaterThan(0);
    expect(shards[0].computed + shards[1].computed).toBe(whole.computed);
    const merged = await study(['--records', mkdtempSync(path.join(dir, 'merged-')), '--import', shared]);
    expect(merged.computed).toBe(0);
    expect(merged.reused).toBe(whole.computed);
    expect(strip(merged)).toEqual(strip(whole));
  }, 600_000);
});

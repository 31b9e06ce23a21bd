// The shipped RL sibling (public/hub/reachlab/micro-arith-rl/resolve/main): its card lists every
// configuration the trainer's sweep tried, and — through the real engine and audit core — its
// deployment realizes the count its card quotes, more than the base's on the same questions.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultCondition, loadTask, runAudit } from '../src/audit/index';
import { createEngine } from '../src/engine/engine';

const HUB = join(__dirname, '../public/hub/reachlab');
const RL = join(HUB, 'micro-arith-rl/resolve/main');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

interface SweepEntry {
  options: Record<string, number>;
  validation: number;
  base_validation: number;
}

describe('shipped RL micro model', () => {
  it('its card lists every configuration the sweep tried, with its validation accuracy, and ships one of them', () => {
    const card = readFileSync(join(RL, 'README.md'), 'utf8');
    const sweep = readJson(join(__dirname, '../trainer/rft-sweep.json')) as SweepEntry[];
    const ev = readJson(join(RL, 'eval_results.json'));
    expect(sweep.length).toBeGreaterThanOrEqual(2);
    sweep.forEach((e, i) => expect(card).toMatch(new RegExp(`^\\| ${i + 1}( \\*\\*shipped\\*\\*)? \\|.*\\| ${(100 * e.validation).toFixed(1)}% \\|`, 'm')));
    const shipped = sweep.findIndex((e) => JSON.stringify(e.options) === JSON.stringify(ev.options));
    expect(shipped).toBeGreaterThanOrEqual(0);
    expect(card).toMatch(new RegExp(`^\\| ${shipped + 1} \\*\\*shipped\\*\\* \\|`, 'm'));
    // what the sweep measured for these options is what the training run measured
    expect(ev.validation.trained).toBe(sweep[shipped].validation);
    expect(ev.validation.trained).toBeGreaterThan(ev.validation.base);
  });

  it('realizes the count its card quotes on the 200 audited questions, more than the base does', async () => {
    const ev = readJson(join(RL, 'eval_results.json'));
    const engine = createEngine();
    try {
      await engine.load({ kind: 'fs', dir: RL }, { ep: 'wasm', dtype: 'f32' });
      const task = await loadTask('builtin:arith-2d', { questions: 200, seed: 1 });
      const res = await runAudit(engine, { task, condition: defaultCondition(task.spec, 'f32'), probes: [{ probe: 'deployment' }] });
      expect(res.summary.n).toBe(200);
      expect(res.summary.realized_count).toBe(Math.round(200 * ev.audit.random_routes.trained.realized));
      const base = readJson(join(HUB, 'micro-arith/resolve/main/eval_results.json'));
      expect(res.summary.realized_count).toBeGreaterThan(base.audit.random_routes.counts.realized);
    } finally {
      await engine.dispose();
    }
  });
});

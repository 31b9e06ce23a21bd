// Audit benchmark (Node, WASM EP): attempts/s of the random-routes probe on a generated
// checkpoint, route set drawn per question versus one route set shared by all questions
// (route-major rows across questions). Prints one JSON object on stdout, a short table on stderr.
//
//   npm run -s bench:audit [-- --questions 16 --budget 16 --rows-per-call 64]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from '../src/engine/engine.ts';
import { blocksSpace, defaultCondition, loadTask, randomRoutes, runAudit } from '../src/audit/index.ts';
import { AUDIT_BENCH_SHAPE, writeCheckpoint } from './lib/make-checkpoint.ts';
import { answerHelp } from './lib/cli-help.ts';
import { intArg } from './lib/bench-args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function main() {
  answerHelp(process.argv.slice(2), import.meta.url);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({ options: { questions: { type: 'string' }, budget: { type: 'string' }, 'rows-per-call': { type: 'string' } }, strict: true }).values as Record<string, string | undefined>;
  } catch (e) {
    process.stderr.write(`bench:audit: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const questions = intArg('bench:audit', 'questions', values.questions, 16);
  const budget = intArg('bench:audit', 'budget', values.budget, 16);
  const rowsPerCall = intArg('bench:audit', 'rows-per-call', values['rows-per-call'], 64);

  const dir = mkdtempSync(join(tmpdir(), 'reachlab-bench-audit-'));
  try {
    const tokDir = join(root, 'test/fixtures/reference/tiny-qwen2');
    writeCheckpoint(dir, tokDir, AUDIT_BENCH_SHAPE);
    const engine = createEngine();
    const info = await engine.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: 'f32' });
    const task = await loadTask('builtin:arith-2d', { questions, trainQuestions: 0, seed: 1 });
    const condition = defaultCondition(task.spec, info.dtype);
    const space = blocksSpace(info.numLayers);
    // warm-up: session creation and first-call costs stay out of the timings
    await runAudit(engine, { task, condition, probes: [randomRoutes(space, 2, 99, true)], questions: 2, rowsPerCall });
    const measure = async (shared: boolean) => {
      const t0 = performance.now();
      const res = await runAudit(engine, { task, condition, probes: [randomRoutes(space, budget, 1, shared)], rowsPerCall });
      const s = (performance.now() - t0) / 1000;
      const attempts = res.records.reduce((n, r) => n + r.attempts.length, 0);
      return { attempts, seconds: Number(s.toFixed(3)), attempts_per_s: Number((attempts / s).toFixed(2)) };
    };
    const perQuestion = await measure(false);
    const shared = await measure(true);
    await engine.dispose();
    const out = {
      bench: 'audit random-routes',
      checkpoint: { kind: 'generated', ...AUDIT_BENCH_SHAPE, engineDtype: info.dtype, ep: info.ep },
      task: task.spec.id,
      questions,
      budget,
      rows_per_call: rowsPerCall,
      max_new_tokens: condition.maxNewTokens,
      space: space,
      per_question: perQuestion,
      shared: shared,
      shared_speedup: Number((shared.attempts_per_s / perQuestion.attempts_per_s).toFixed(3)),
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    process.stderr.write(
      [
        'route draw     attempts  seconds  attempts/s',
        `per-question   ${String(perQuestion.attempts).padStart(8)}  ${perQuestion.seconds.toFixed(2).padStart(7)}  ${perQuestion.attempts_per_s.toFixed(1).padStart(10)}`,
        `shared         ${String(shared.attempts).padStart(8)}  ${shared.seconds.toFixed(2).padStart(7)}  ${shared.attempts_per_s.toFixed(1).padStart(10)}`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  process.stderr.write(`bench:audit: ${(e as Error).message}\n`);
  process.exit(1);
});

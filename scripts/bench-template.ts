// Template sandbox benchmark (Node, WASM EP): what rendering chat templates in the sandbox worker
// costs a chat audit, against rendering them in-process. A chat audit (the checkpoint's ChatML
// template, deployment plus random routes) of N questions runs three times on a generated
// checkpoint: templates in-process, in the sandbox (its worker started, its cache empty), and again
// in that sandbox (every prompt from its cache); apart, the first render of a fresh sandbox (the
// worker's start). Audit seconds move with the machine's load; the render times are the cost.
// Prints one JSON object on stdout, a short table on stderr.
//
//   npm run -s bench:template [-- --questions 200 --budget 4]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from '../src/engine/engine.ts';
import { compileChatTemplate } from '../src/engine/chat-template.ts';
import { spawnTemplateWorker } from '../src/engine/template-host.ts';
import { TemplateSandbox, type TemplateRenderer } from '../src/engine/template-sandbox.ts';
import type { ChatMessage, TemplateVars } from '../src/engine/types.ts';
import { blocksSpace, defaultCondition, loadTask, randomRoutes, runAudit } from '../src/audit/index.ts';
import { AUDIT_BENCH_SHAPE, writeCheckpoint } from './lib/make-checkpoint.ts';
import { answerHelp } from './lib/cli-help.ts';
import { intArg } from './lib/bench-args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The baseline: the same bounded interpreter on the engine's own thread, no worker. */
const inProcess: TemplateRenderer = {
  template(source, file) {
    const t = compileChatTemplate(source, file);
    return { render: async (vars, templateVars) => t.render(vars, templateVars) };
  },
};

async function main() {
  answerHelp(process.argv.slice(2), import.meta.url);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({ options: { questions: { type: 'string' }, budget: { type: 'string' } }, strict: true }).values as Record<string, string | undefined>;
  } catch (e) {
    process.stderr.write(`bench:template: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const questions = intArg('bench:template', 'questions', values.questions, 200);
  const budget = intArg('bench:template', 'budget', values.budget, 4);

  const dir = mkdtempSync(join(tmpdir(), 'reachlab-bench-template-'));
  try {
    writeCheckpoint(dir, join(root, 'test/fixtures/reference/tiny-qwen2'), AUDIT_BENCH_SHAPE);
    const task = await loadTask('builtin:arith-2d', { questions, trainQuestions: 0, seed: 1 });
    const sandbox = new TemplateSandbox(spawnTemplateWorker);

    /** One chat audit with templates rendered by `templates`: its seconds, and those spent rendering. */
    const measure = async (templates: TemplateRenderer) => {
      const engine = createEngine({ templates });
      const info = await engine.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: 'f32' });
      let renderMs = 0;
      let renders = 0;
      const timedRender = async (messages: ChatMessage[], vars: TemplateVars) => {
        const t0 = performance.now();
        try {
          return await engine.applyChatTemplate(messages, vars);
        } finally {
          renderMs += performance.now() - t0;
          renders++;
        }
      };
      // the engine with its renders timed; every other call goes to the engine itself
      const timed = new Proxy(engine, {
        get: (target, key) => {
          if (key === 'applyChatTemplate') return timedRender;
          const v = Reflect.get(target, key) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const condition = defaultCondition(task.spec, info.dtype, { chatTemplate: true });
      // warm-up: session creation stays out of the timings
      const otherVars = { ...condition.templateVars!, date_string: '01 Jan 2025' }; // not the measured prompts' cache keys
      await runAudit(engine, { task, condition: { ...condition, maxNewTokens: 1, templateVars: otherVars }, probes: [randomRoutes(blocksSpace(info.numLayers), 1, 99, false)], questions: 1 });
      const t0 = performance.now();
      const res = await runAudit(timed, { task, condition, probes: [randomRoutes(blocksSpace(info.numLayers), budget, 1, false)] });
      const seconds = (performance.now() - t0) / 1000;
      await engine.dispose();
      const attempts = res.records.reduce((n, r) => n + r.attempts.length, 0);
      return { seconds: Number(seconds.toFixed(3)), attempts, renders, render_ms: Number(renderMs.toFixed(1)), render_ms_per_prompt: Number((renderMs / Math.max(1, renders)).toFixed(3)) };
    };

    const t0 = performance.now();
    await sandbox.template('{{ messages[0].content }}', 'start').render({ messages: [{ role: 'user', content: 'x' }] }, { add_generation_prompt: true, date_string: '26 Jul 2024' });
    const workerStartMs = Number((performance.now() - t0).toFixed(1));
    const baseline = await measure(inProcess);
    const cold = await measure(sandbox);
    const cached = await measure(sandbox);
    sandbox.close();
    const out = {
      bench: 'template sandbox on a chat audit',
      checkpoint: { kind: 'generated', ...AUDIT_BENCH_SHAPE, ep: 'wasm', chat_template: 'tokenizer_config.json (ChatML)' },
      task: task.spec.id,
      questions: task.test.length,
      budget,
      in_process: baseline,
      sandbox_worker_start_ms: workerStartMs,
      sandbox: cold,
      sandbox_cached: cached,
      sandbox_extra_seconds: Number((cold.seconds - baseline.seconds).toFixed(3)),
      sandbox_extra_render_ms: Number((cold.render_ms - baseline.render_ms).toFixed(1)),
      sandbox_extra_share: Number(((cold.render_ms - baseline.render_ms) / 1000 / baseline.seconds).toFixed(4)),
    };
    process.stdout.write(JSON.stringify(out) + '\n');
    const row = (name: string, m: typeof baseline) =>
      `${name.padEnd(15)} ${m.seconds.toFixed(2).padStart(9)}  ${String(m.renders).padStart(7)}  ${m.render_ms.toFixed(1).padStart(9)}  ${m.render_ms_per_prompt.toFixed(3).padStart(10)}`;
    process.stderr.write(
      [
        `templates       audit (s)  renders  render ms  ms/prompt   (${out.questions} questions, budget ${budget})`,
        row('in-process', baseline),
        row('sandbox', cold),
        row('sandbox, cached', cached),
        `sandbox worker start (first render of a fresh sandbox): ${workerStartMs} ms`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  process.stderr.write(`bench:template: ${(e as Error).message}\n`);
  process.exit(1);
});

// Study benchmark: the built-in study (studies/builtin.json: both built-in models, all three
// findings) from nothing, headless in Node (WASM EP) and in the production app in headless
// Chromium (WASM EP, the app's own Study screen, fresh profile). Prints one JSON object on stdout,
// a short table on stderr. The classroom target: under 5 minutes in the browser. app_over_cli is
// the app's time over the CLI's in this run; app_estimate_over_actual checks the Study screen's
// time left as it goes (elapsed + time left over the time taken), and the app's time is what the
// home card states (src/ui/lib/study-estimate.ts).
//
//   npm run -s bench:study [-- --skip-browser] [-- --plan studies/builtin.json]
// The browser part builds the app and serves it with vite preview on port 4174
// (scripts/lib/chromium.ts withPreview); run it under the team's e2e lock.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { normalizePlan, plannedRuns } from '../src/audit/study-plan.ts';
import type { StudyReport } from '../src/audit/study-report.ts';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { withPreview } from './lib/chromium.ts';
import { answerHelp } from './lib/cli-help.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PORT = 4174;
/** Headless Chromium without its WebGPU flags: the app's 'auto' picks the WASM EP, as on a laptop without WebGPU. */
const WASM_ONLY_ARGS = CHROMIUM_ARGS.filter((a) => !/webgpu|vulkan/i.test(a));

/** A command's stdout (its stderr, the study's progress, is dropped). */
function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((ok, fail) => {
    const p = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? ok(out) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}`))));
  });
}

async function nodeStudy(planFile: string): Promise<{ seconds: number; report: StudyReport }> {
  const dir = mkdtempSync(join(tmpdir(), 'reachlab-bench-study-'));
  try {
    const t0 = performance.now();
    const out = await run('npx', ['tsx', 'scripts/study-cli.ts', '--plan', planFile, '--records', dir]);
    return { seconds: (performance.now() - t0) / 1000, report: JSON.parse(out) as StudyReport };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The Study screen's time left as the study goes: each sample's elapsed + time left over the
 *  study's measured time (1 = a perfect estimate). */
type EtaCheck = { first: number; min: number; max: number; samples: number };

async function browserStudy(): Promise<{ seconds: number; eta: EtaCheck | null }> {
  return withPreview({ root, port: PORT, build: true, log: (line) => process.stderr.write(`${line}\n`) }, async ({ base }) => {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: WASM_ONLY_ARGS });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${base}/`);
      const t0 = performance.now();
      await page.getByTestId('home-reproduce').click();
      const samples: { t: number; left: number }[] = [];
      const report = page.getByTestId('screen-study-report');
      while (!(await report.isVisible())) {
        if ((performance.now() - t0) / 1000 > 3600) throw new Error('the app\'s study took over an hour');
        const left = await page.getByTestId('study-time-left').getAttribute('data-seconds', { timeout: 1000 }).catch(() => null);
        if (left) samples.push({ t: (performance.now() - t0) / 1000, left: Number(left) });
        await report.waitFor({ timeout: 15_000 }).catch(() => {});
      }
      const seconds = (performance.now() - t0) / 1000;
      const ratios = samples.map((x) => Number(((x.t + x.left) / seconds).toFixed(2)));
      return { seconds, eta: ratios.length ? { first: ratios[0], min: Math.min(...ratios), max: Math.max(...ratios), samples: ratios.length } : null };
    } finally {
      await browser.close();
    }
  });
}

async function main() {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { values } = parseArgs({ options: { 'skip-browser': { type: 'boolean' }, plan: { type: 'string' } }, strict: true });
  const planFile = (values.plan as string | undefined) ?? 'studies/builtin.json';
  const plan = normalizePlan(JSON.parse(readFileSync(join(root, planFile), 'utf8')));
  const node = await nodeStudy(planFile);
  const browser = values['skip-browser'] ? null : await browserStudy();
  const out = {
    plan: planFile,
    runs: plannedRuns(plan).length,
    questions: plan.questions,
    budget: plan.budget,
    node_wasm_s: Number(node.seconds.toFixed(1)),
    chromium_wasm_s: browser ? Number(browser.seconds.toFixed(1)) : null,
    /** The app's time over the CLI's, both measured in this run: the app's own overhead. */
    app_over_cli: browser ? Number((browser.seconds / node.seconds).toFixed(2)) : null,
    /** The Study screen's estimate of the whole study (elapsed + time left) over its measured time. */
    app_estimate_over_actual: browser?.eta ?? null,
    target_s: 300,
    findings: { f1: node.report.f1, f2_cases: node.report.f2.cases.length, f3_pairs: node.report.f3.pairs.length },
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.stderr.write(
    `\nbuilt-in study (${out.runs} runs, ${plan.questions} questions, budget ${plan.budget})\n` +
      `  node (WASM EP, headless CLI)      ${out.node_wasm_s.toFixed(1).padStart(7)} s\n` +
      `  chromium (WASM EP, the app)       ${browser ? browser.seconds.toFixed(1).padStart(7) + ' s' : '   skipped'}   (target < ${out.target_s} s)\n`,
  );
}

void main().catch((e) => {
  process.stderr.write(`bench:study: ${(e as Error).message}\n`);
  process.exit(1);
});

// The native runtime's CLI checks (npm --prefix native run check; CI runs it):
//  1. every case of the three reference checkpoints through the engine CLI with --ep cpu: last
//     logits within expected.json's tolerance, greedy tokens equal;
//  2. a study (default the built-in one) on --ep wasm and on --ep cpu, each into its own records
//     folder: every record equal (meanLogprob within same-records.ts LOGPROB_BOUND), and the two
//     reports equal but for the engine each run's provenance names.
// Prints one JSON object; exits 1 naming what differs.
//   tsx scripts/native/check.ts [--plan studies/builtin.json] [--skip-study]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { maxAbsDiff, type Expected } from '../../src/engine/conformance.ts';
import { answerHelp } from '../lib/cli-help.ts';
import { compareRecords, jsonDifferences } from './same-records.ts';

const root = path.resolve(import.meta.dirname, '../..');
const MODELS = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'];
const log = (line: string) => process.stderr.write(`native check: ${line}\n`);

function cli(script: string, args: string[]): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, script), ...args], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`${script} ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr.trim().split('\n').at(-1)}`);
  return r.stdout;
}

/** 1: the engine CLI on every reference case, on the native CPU EP. */
function engineCases(): { cases: number; maxAbsDiff: number; failures: string[] } {
  let cases = 0;
  let worst = 0;
  const failures: string[] = [];
  for (const m of MODELS) {
    const dir = path.join(root, 'test/fixtures/reference', m);
    const e = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
    for (const c of e.cases) {
      const args = ['logits', '--model', dir, '--ids', e.input_ids.join(','), '--route', c.route.join(','), '--silence', c.silence.join(','), '--new-tokens', String(e.max_new_tokens), '--ep', 'cpu'];
      const out = JSON.parse(cli('scripts/engine-cli.ts', args)) as { last_logits: number[]; greedy_tokens: number[] };
      const d = maxAbsDiff(out.last_logits, c.last_logits);
      worst = Math.max(worst, d);
      cases++;
      if (!(d <= e.tolerance.abs)) failures.push(`${m} ${c.name}: last logits max |diff| ${d}`);
      if (out.greedy_tokens.join(',') !== c.greedy_tokens.join(',')) failures.push(`${m} ${c.name}: greedy ${out.greedy_tokens.join(',')} vs ${c.greedy_tokens.join(',')}`);
    }
  }
  return { cases, maxAbsDiff: worst, failures };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A records folder's run files: run key → records. */
function recordsOf(dir: string): Map<string, Json[]> {
  return new Map(readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => {
    const file = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { run_key: string; records: Json[] };
    return [file.run_key, file.records];
  }));
}

/** A report without what names the engine (each cited run's provenance.engine). */
function withoutEngine(report: { provenance: { runs: { engine: unknown }[] } }): unknown {
  return { ...report, provenance: { ...report.provenance, runs: report.provenance.runs.map((r) => ({ ...r, engine: null })) } };
}

/** 2: one study on wasm and on cpu. */
function study(plan: string) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'native-check-'));
  try {
    const runs = (['wasm', 'cpu'] as const).map((ep) => {
      const records = path.join(tmp, ep);
      log(`study ${plan} on --ep ${ep}…`);
      const t0 = performance.now();
      const report = JSON.parse(cli('scripts/study-cli.ts', ['--plan', plan, '--ep', ep, '--records', records])) as { provenance: { runs: { engine: { ep: string } }[] } };
      return { ep, report, records: recordsOf(records), seconds: (performance.now() - t0) / 1000 };
    });
    const [wasm, cpu] = runs;
    const records = compareRecords(wasm.records, cpu.records);
    const reportDifferences = jsonDifferences(withoutEngine(wasm.report) as Json, withoutEngine(cpu.report) as Json, 'report');
    const sameReport = reportDifferences.length === 0;
    const engines = runs.map((r) => [...new Set(r.report.provenance.runs.map((x) => x.engine.ep))].join(','));
    return { plan, engines, seconds: runs.map((r) => Math.round(r.seconds)), ...records, sameReport, reportDifferences };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function main(): void {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { values } = parseArgs({ args: process.argv.slice(2), options: { plan: { type: 'string' }, 'skip-study': { type: 'boolean' } }, strict: true });
  const load = loadavg();
  log('engine CLI, every reference case, --ep cpu…');
  const engine = engineCases();
  const s = values['skip-study'] ? null : study(values.plan ?? path.join(root, 'studies/builtin.json'));
  const failures = [...engine.failures, ...(s ? [...s.differences, ...(s.sameReport ? [] : [`the two study reports differ beyond the engine they name: ${s.reportDifferences.join('; ')}`])] : [])];
  if (s && s.engines.join('|') !== 'wasm|cpu') failures.push(`the studies ran on ${s.engines.join(' and ')}, not wasm and cpu`);
  process.stdout.write(JSON.stringify({ load_average: load.map((x) => Number(x.toFixed(2))), engine_cli: engine, study: s, pass: failures.length === 0, failures }) + '\n');
  process.stderr.write(`native check: engine CLI ${engine.cases} cases, max |Δ| ${engine.maxAbsDiff.toExponential(2)}; `
    + (s ? `study: ${s.runs} runs, ${s.records} records, max |Δ meanLogprob| ${s.maxLogprobDiff.toExponential(2)}, reports ${s.sameReport ? 'equal' : 'differ'}; ` : '')
    + `${failures.length ? `FAIL: ${failures.join('; ')}` : 'pass'}\n`);
  if (failures.length) process.exit(1);
}

main();

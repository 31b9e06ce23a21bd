// Scale benchmark: full-size generated checkpoints (scripts/lib/scale-models.ts: the real shapes of
// Qwen2.5-0.5B/1.5B/3B, Qwen3-0.6B and Llama-3.2-1B, seeded random BF16 weights, generated once into
// .cache/scale/) served by the local Hub-layout server (test/hub-server.ts) and loaded through the
// app's Hub reader: in Node on the WASM EP (each row in its own process), then in headless
// Chromium on its WASM and WebGPU EPs (through the weight cache). Prints one JSON object
// { "runs": [ { shape, runtime, dtype, ok, error, params, load_s, read_s, peak_mem_mb,
// prefill_tok_s, decode_tok_s, runs_per_token } ] } on stdout and a table on stderr.
// Each row follows src/selftest/scale-run.ts (what read_s, load_s, prefill and decode measure).
//
//   npm run -s bench:scale [-- --runtime node-wasm,chromium-wasm,chromium-webgpu] [--shape qwen2.5-0.5b,...]
//                          [--prompt-tokens 64] [--new-tokens 4] [--webgpu-prompt-tokens 8] [--webgpu-new-tokens 2]
//                          [--no-build] [--row-timeout 1800]
// WebGPU rows take fewer tokens: on SwiftShader (this project's test machines) a 0.5B decode step
// takes tens of seconds.
//
// Chromium rows build the app and serve it with vite preview: run the benchmark under the team's
// e2e lock (see README).
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHubServer } from '../test/hub-server.ts';
import type { EngineDtype } from '../src/engine/types.ts';
import type { ScaleRow, ScaleRowSpec, ScaleRuntime } from '../src/selftest/scale-run.ts';
import { parameterCount } from './lib/make-checkpoint.ts';
import { ensureScaleCheckpoint, SCALE_SHAPES, type ScaleModel } from './lib/scale-models.ts';
import { failed, runBrowserRows } from './lib/scale-browser.ts';
import { answerHelp } from './lib/cli-help.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The rows, node-wasm first. The f32 rows of 1.5B and 3B do not fit a WebAssembly heap: they show the refusal. */
const ROWS: Array<[ScaleModel, ScaleRuntime, EngineDtype]> = [
  ['qwen2.5-0.5b', 'node-wasm', 'f32'],
  ['qwen2.5-0.5b', 'node-wasm', 'q4'],
  ['qwen3-0.6b', 'node-wasm', 'f32'],
  ['qwen2.5-1.5b', 'node-wasm', 'q4'],
  ['llama-3.2-1b', 'node-wasm', 'q4'],
  ['qwen2.5-3b', 'node-wasm', 'q4'],
  ['qwen2.5-1.5b', 'node-wasm', 'f32'],
  ['qwen2.5-3b', 'node-wasm', 'f32'],
  ['qwen2.5-0.5b', 'chromium-wasm', 'q4'],
  ['qwen2.5-0.5b', 'chromium-webgpu', 'f32'],
  ['qwen2.5-0.5b', 'chromium-webgpu', 'q4'],
  ['qwen2.5-1.5b', 'chromium-webgpu', 'q4'],
  ['llama-3.2-1b', 'chromium-webgpu', 'q4'],
  ['qwen2.5-3b', 'chromium-webgpu', 'q4'],
];

function options() {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { values } = parseArgs({
    options: {
      runtime: { type: 'string' },
      shape: { type: 'string' },
      'prompt-tokens': { type: 'string', default: '64' },
      'new-tokens': { type: 'string', default: '4' },
      'webgpu-prompt-tokens': { type: 'string', default: '8' },
      'webgpu-new-tokens': { type: 'string', default: '2' },
      'no-build': { type: 'boolean', default: false },
      'row-timeout': { type: 'string', default: '1800' },
    },
    strict: true,
  });
  const list = (v: string | undefined) => (v === undefined ? null : v.split(','));
  const int = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${v}`);
    return n;
  };
  const runtimes = list(values.runtime);
  const shapes = list(values.shape);
  for (const s of shapes ?? []) if (!(s in SCALE_SHAPES)) throw new Error(`unknown --shape ${s} (known: ${Object.keys(SCALE_SHAPES).join(', ')})`);
  return {
    rows: ROWS.filter(([s, r]) => (!runtimes || runtimes.includes(r)) && (!shapes || shapes.includes(s))),
    tokens: {
      cpu: { prompt: int('prompt-tokens', values['prompt-tokens']!), new: int('new-tokens', values['new-tokens']!) },
      gpu: { prompt: int('webgpu-prompt-tokens', values['webgpu-prompt-tokens']!), new: int('webgpu-new-tokens', values['webgpu-new-tokens']!) },
    },
    build: !values['no-build'],
    rowTimeoutS: int('row-timeout', values['row-timeout']!),
  };
}

const log = (line: string) => process.stderr.write(`bench:scale: ${line}\n`);

/** One node-wasm row in a child process (fresh heap; its own peak RSS). */
function nodeRow(spec: ScaleRowSpec, timeoutS: number): Promise<ScaleRow> {
  return new Promise((ok) => {
    const child = spawn('npx', ['tsx', 'scripts/lib/scale-row.ts', JSON.stringify(spec)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutS * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        ok(JSON.parse(line) as ScaleRow);
      } catch {
        ok(failed(spec, code === null ? `no result within ${timeoutS} s` : `row process exited with ${code} and no result`));
      }
    });
  });
}

const fmt = (x: number | null, digits = 2) => (x === null ? '—' : x.toFixed(digits));

function table(rows: ScaleRow[]): string {
  const head = ['shape', 'runtime', 'dtype', 'params', 'load s', 'read s', 'load/read', 'peak MB', 'prefill t/s', 'decode t/s', 'pre/dec', 'runs/tok'];
  const body = rows.map((r) =>
    r.ok
      ? [r.shape, r.runtime, r.dtype, `${((r.params ?? 0) / 1e9).toFixed(2)}B`, fmt(r.load_s, 1), fmt(r.read_s, 1), fmt(r.load_s! / r.read_s!),
          String(r.peak_mem_mb ?? '—'), fmt(r.prefill_tok_s), fmt(r.decode_tok_s), r.decode_tok_s ? fmt(r.prefill_tok_s! / r.decode_tok_s, 1) : '—', fmt(r.runs_per_token, 1)]
      : [r.shape, r.runtime, r.dtype, `${((r.params ?? 0) / 1e9).toFixed(2)}B`, `not ok: ${r.error}`],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b.length === head.length || i < 4 ? b[i].length : 0))));
  const line = (cells: string[]) => (cells.length === head.length ? cells.map((c, i) => c.padEnd(widths[i])).join('  ') : cells.slice(0, 4).map((c, i) => c.padEnd(widths[i])).join('  ') + '  ' + cells[4]);
  return [line(head), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const o = options();
  const shapes = [...new Set(o.rows.map(([s]) => s))];
  const dirs = Object.fromEntries(shapes.map((s) => [`scale/${s}`, ensureScaleCheckpoint(root, s, log)]));
  const hub = await startHubServer({ repos: dirs });
  const specOf = ([shape, runtime, dtype]: (typeof ROWS)[number]): ScaleRowSpec => {
    const t = runtime === 'chromium-webgpu' ? o.tokens.gpu : o.tokens.cpu;
    return { shape, runtime, dtype, source: { kind: 'hub', repo: `scale/${shape}`, revision: 'main', endpoint: hub.url }, promptTokens: t.prompt, newTokens: t.new };
  };
  const rows: ScaleRow[] = [];
  try {
    for (const r of o.rows.filter(([, rt]) => rt === 'node-wasm')) {
      log(`node-wasm ${r[0]} ${r[2]}…`);
      rows.push(await nodeRow(specOf(r), o.rowTimeoutS));
    }
    const browserSpecs = o.rows.filter(([, rt]) => rt !== 'node-wasm').map(specOf);
    if (browserSpecs.length) rows.push(...(await runBrowserRows(browserSpecs, { root, port: Number(process.env.BENCH_PORT ?? 4177), build: o.build, rowTimeoutS: o.rowTimeoutS, log })));
  } finally {
    await hub.close();
  }
  for (const r of rows) r.params = parameterCount(SCALE_SHAPES[r.shape as ScaleModel]);
  process.stdout.write(JSON.stringify({ runs: rows }) + '\n');
  process.stderr.write(table(rows) + '\n');
}

main().catch((e) => {
  process.stderr.write(`bench:scale: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

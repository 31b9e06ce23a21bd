// Where a load's time goes: bench:peer's generated Qwen2.5-0.5B-shaped checkpoint (BF16 on disk)
// loaded once per runtime, each in its own process, the time between the engine's progress events
// split into reading and converting tensors (up to a session's creation), creating sessions
// (onnxruntime's copy of the weights, graph optimisation, kernel prepacking) and the rest, with the
// process's peak resident memory. JSON on stdout, a table on stderr.
//   npm run -s bench:load [-- --runtime native,wasm] [--dtype f32]
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from '../src/engine/engine.ts';
import { ENGINE_DTYPES, type EngineDtype, type LoadProgress } from '../src/engine/types.ts';
import { answerHelp } from './lib/cli-help.ts';
import { ensureScaleCheckpoint } from './lib/scale-models.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNTIMES = { native: 'cpu', wasm: 'wasm' } as const;

interface Profile {
  runtime: string;
  dtype: string;
  load_s: number;
  /** Reading and converting tensors: the time up to each session's creation. */
  read_convert_s: number;
  /** Creating sessions: from each 'session' event to the next event or the end. */
  sessions_s: number;
  peak_rss_mb: number;
}

/** One load in this process (the child side). */
async function profile(dir: string, runtime: keyof typeof RUNTIMES, dtype: EngineDtype): Promise<Profile> {
  const engine = createEngine();
  let last = performance.now();
  let lastPhase: LoadProgress['phase'] | null = null;
  const spent = { read: 0, session: 0 };
  const t0 = last;
  await engine.load({ kind: 'fs', dir }, { ep: RUNTIMES[runtime], dtype }, (p) => {
    const now = performance.now();
    // the interval before a 'session' event read and converted its weights; the one after created it
    if (lastPhase === 'session') spent.session += now - last;
    else spent.read += now - last;
    last = now;
    lastPhase = p.phase;
  });
  const end = performance.now();
  if (lastPhase === 'session') spent.session += end - last;
  else spent.read += end - last;
  await engine.dispose();
  return { runtime, dtype, load_s: (end - t0) / 1000, read_convert_s: spent.read / 1000, sessions_s: spent.session / 1000, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) };
}

async function main(): Promise<void> {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { values } = parseArgs({ args: process.argv.slice(2), options: { runtime: { type: 'string', default: 'native,wasm' }, dtype: { type: 'string', default: 'f32' }, child: { type: 'string' }, dir: { type: 'string' } }, strict: true });
  const dtype = values.dtype as EngineDtype;
  if (!ENGINE_DTYPES.includes(dtype)) throw new Error(`--dtype must be one of ${ENGINE_DTYPES.join(', ')}, got "${values.dtype}"`);
  if (values.child) {
    process.stdout.write(JSON.stringify(await profile(values.dir!, values.child as keyof typeof RUNTIMES, dtype)) + '\n');
    process.exit(0); // onnxruntime's threads would keep the process alive
  }
  const runtimes = values.runtime!.split(',');
  const bad = runtimes.filter((r) => !(r in RUNTIMES));
  if (bad.length) throw new Error(`--runtime takes ${Object.keys(RUNTIMES).join(', ')}, got "${bad.join(',')}"`);
  const dir = ensureScaleCheckpoint(root, 'qwen2.5-0.5b', (l) => process.stderr.write(`bench:load: ${l}\n`));
  const before = loadavg();
  const rows = runtimes.map((rt) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', rt, '--dir', dir, '--dtype', dtype], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (r.status !== 0) throw new Error(`the ${rt} load exited with ${r.status ?? r.signal}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Profile;
  });
  const out = { model: 'qwen2.5-0.5b shape, generated (BF16 on disk)', dtype, load_average: { before, after: loadavg() }, rows };
  process.stdout.write(JSON.stringify(out) + '\n');
  const f = (x: number) => x.toFixed(2).padStart(8);
  process.stderr.write(`${'runtime'.padEnd(8)}${'load s'.padStart(8)}${'read+conv'.padStart(10)}${'sessions'.padStart(9)}${'peak MB'.padStart(9)}\n`
    + rows.map((r) => `${r.runtime.padEnd(8)}${f(r.load_s)}${f(r.read_convert_s).padStart(10)}${f(r.sessions_s).padStart(9)}${String(r.peak_rss_mb).padStart(9)}`).join('\n')
    + `\nload average before ${before.map((x) => x.toFixed(2)).join(' ')}, after ${out.load_average.after.map((x) => x.toFixed(2)).join(' ')}\n`);
}

main().catch((e) => {
  process.stderr.write(`bench:load: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

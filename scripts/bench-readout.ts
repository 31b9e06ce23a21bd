// Read-out benchmark (Node, WASM EP, f32): the look inside one row (engine readout: logit lens and
// direct attribution, src/engine/readout.ts) against a plain forward pass of the same row (engine
// logits: prefill + head), for the built-in model and the full-size Qwen2.5-0.5B shape (seeded
// random weights generated once, as bench:scale does). Prints one JSON object
// { "rows": [ { model, layers, prompt_tokens, forward_s, readout_s, ratio } ] } (medians of --reps).
//
//   npm run -s bench:readout [-- --prompt-tokens 64] [--reps 3]
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from '../src/engine/engine.ts';
import { answerHelp } from './lib/cli-help.ts';
import { ensureScaleCheckpoint } from './lib/scale-models.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
answerHelp(process.argv.slice(2), import.meta.url);
const { values } = parseArgs({ options: { 'prompt-tokens': { type: 'string', default: '64' }, reps: { type: 'string', default: '3' } } });
const T = Number(values['prompt-tokens']);
const reps = Number(values.reps);
if (!Number.isInteger(T) || T < 1) throw new Error(`--prompt-tokens must be a positive integer, got ${values['prompt-tokens']}`);
if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got ${values.reps}`);

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  return median(times);
}

const models = [
  { model: 'builtin:micro-arith', dir: resolve(root, 'public/hub/reachlab/micro-arith/resolve/main') },
  { model: 'qwen2.5-0.5b (full-size shape)', dir: ensureScaleCheckpoint(root, 'qwen2.5-0.5b', (l) => process.stderr.write(`${l}\n`)) },
];
const rows = [];
for (const { model, dir } of models) {
  const engine = createEngine();
  const info = await engine.load({ kind: 'fs', dir }, { ep: 'wasm', dtype: 'f32', maxSeqLen: T + 16 });
  const promptIds = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % Math.min(info.vocabSize, 1000));
  const row = { promptIds, route: Array.from({ length: info.numLayers }, (_, l) => l), silence: [] };
  await engine.logits(row); // warm-up
  const forward = await timed(() => engine.logits(row));
  const readout = await timed(() => engine.readout('look-inside', { ...row, gold: 1 }));
  rows.push({ model, layers: info.numLayers, prompt_tokens: T, forward_s: +forward.toFixed(3), readout_s: +readout.toFixed(3), ratio: +(readout / forward).toFixed(2) });
  process.stderr.write(`${model}: forward ${forward.toFixed(3)} s, readout ${readout.toFixed(3)} s (×${(readout / forward).toFixed(2)})\n`);
  await engine.dispose();
}
process.stdout.write(JSON.stringify({ rows }) + '\n');

// Chooses the RL model's recipe on validation problems, never on the audited questions: trains one
// RFT configuration (DEFAULT_RFT with `--name=value` overrides) from the base checkpoint, scores it
// on the validation problems (greedy, weights rounded to F16 as shipped) and appends the result to
// rft-sweep.json, which the RL model's card lists in full. Nothing is exported.
// Usage (from the repository root, after npm ci --prefix trainer): npm run sweep:micro-rl [-- --name=value ...]

import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { roundParamsToF16 } from './micro/export';
import { rft } from './micro/rft';
import { accuracy, loadCheckpoint, parseRftOptions, rftProblems } from './micro/rft-setup';
import { SWEEP_FILE, type SweepEntry } from './micro/rft-card';

const ROOT = resolve(import.meta.dirname, '..');
const BASE = join(ROOT, 'public/hub/reachlab/micro-arith/resolve/main');
const OUT = join(import.meta.dirname, SWEEP_FILE);

async function main(): Promise<void> {
  const o = parseRftOptions(process.argv.slice(2), 'rft-sweep');
  await tf.setBackend('wasm');
  await tf.ready();
  const { c, params } = loadCheckpoint(BASE);
  const { validation, pool } = rftProblems();
  const baseValidation = accuracy(validation, params, c);
  console.log(JSON.stringify({ options: o, validationProblems: validation.length, baseValidation }));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const rounds = await rft(params, c, pool, o, (r) => console.log(JSON.stringify(r)), () => accuracy(validation, params, c));
  const cpu = process.cpuUsage(cpu0);
  roundParamsToF16(params);
  const entry: SweepEntry = {
    options: o,
    validation: accuracy(validation, params, c),
    base_validation: baseValidation,
    validation_problems: validation.length,
    rounds,
    wall_s: Math.round((performance.now() - t0) / 1000),
    cpu_s: Math.round((cpu.user + cpu.system) / 1e6),
  };
  const sweep: SweepEntry[] = existsSync(OUT) ? JSON.parse(readFileSync(OUT, 'utf8')) : [];
  writeFileSync(OUT, JSON.stringify([...sweep, entry], null, 1) + '\n');
  console.log(JSON.stringify({ validation: entry.validation, baseValidation, wall_s: entry.wall_s, cpu_s: entry.cpu_s }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

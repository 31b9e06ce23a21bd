// Trains ReachLab's built-in RL model: reachlab/micro-arith further trained with rejection-sampling
// fine-tuning (micro/rft.ts) on the train split, exported beside it in Hugging Face layout with a
// model card quoting what ReachLab's audit measures on the pair.
// Usage (from the repository root, after npm ci --prefix trainer): npm run train:micro-rl [-- --name=value ...]

import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateArith } from '../src/audit/tasks/arith';
import { auditPair } from './micro/audit-pair';
import { microConfigFromHf } from './micro/config';
import { roundParamsToF16, writeCheckpoint } from './micro/export';
import type { Params } from './micro/model';
import { DEFAULT_RFT, rft, type RftOptions } from './micro/rft';
import { rftCard } from './micro/rft-card';
import { decodeSafetensors } from './micro/safetensors';

const ROOT = resolve(import.meta.dirname, '..');
const BASE = join(ROOT, 'public/hub/reachlab/micro-arith/resolve/main');
const OUT = join(ROOT, 'public/hub/reachlab/micro-arith-rl/resolve/main');
const ALL = 1_000_000; // more than a split holds: take all of it

function parseRftOptions(argv: readonly string[]): RftOptions {
  const o = { ...DEFAULT_RFT };
  for (const arg of argv) {
    const m = /^--([A-Za-z]+)=(.+)$/.exec(arg);
    if (!m) throw new Error(`rft-micro: expected --name=value, got "${arg}"`);
    const [, name, raw] = m;
    if (!(name in o)) throw new Error(`rft-micro: unknown option --${name} (known: ${Object.keys(o).join(', ')})`);
    const v = Number(raw);
    if (!Number.isFinite(v)) throw new Error(`rft-micro: --${name} needs a number, got "${raw}"`);
    (o as Record<string, number>)[name] = v;
  }
  return o;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const o = parseRftOptions(argv);
  await tf.setBackend('wasm');
  await tf.ready();
  const c = microConfigFromHf(JSON.parse(readFileSync(join(BASE, 'config.json'), 'utf8')));
  const params: Params = new Map(decodeSafetensors(new Uint8Array(readFileSync(join(BASE, 'model.safetensors')))).map((t) => [t.name, tf.variable(tf.tensor(t.values, t.shape), true, t.name)]));
  const trainSplit = generateArith('arith-2d', 'train', ALL, o.seed);
  console.log(JSON.stringify({ options: o, trainProblems: trainSplit.length }));

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const rounds = await rft(params, c, trainSplit, o, (r) =>
    console.log(`round ${r.round}: sample accuracy ${(100 * r.sampleAccuracy).toFixed(1)}%  solved ${(100 * r.solved).toFixed(1)}%  kept ${r.kept}  loss ${r.loss.toFixed(4)}  ${r.elapsedS.toFixed(0)}s`),
  );
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;

  roundParamsToF16(params);
  writeCheckpoint(OUT, params, c, { trained_by: 'trainer/rft-micro.ts', base_model: 'reachlab/micro-arith', method: 'rejection-sampling fine-tuning', seed: String(o.seed), rounds: String(o.rounds) });
  // the tokenizer is the base model's, byte for byte
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(BASE, f), join(OUT, f));

  console.log('auditing base and RL model …');
  const audit = await auditPair(BASE, OUT);
  const files = ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'eval_results.json'];
  const evalResults = {
    method: 'rejection-sampling fine-tuning',
    options: o,
    rounds,
    wall_s: wallS,
    cpu_s: cpuS,
    audit: {
      questions: audit.questions,
      budget: audit.budget,
      run_keys: { base: [audit.base.routes.run_key, audit.base.sampling.run_key], trained: [audit.trained.routes.run_key, audit.trained.sampling.run_key] },
      random_routes: { base: audit.routes.a, trained: audit.routes.b, deployed: audit.routes.deployed, ceiling: audit.routes.ceiling, transitions: audit.routes.transitions },
      sampling: { base: audit.sampling.a, trained: audit.sampling.b, deployed: audit.sampling.deployed, ceiling: audit.sampling.ceiling },
    },
  };
  writeFileSync(join(OUT, 'eval_results.json'), JSON.stringify(evalResults, null, 1) + '\n');
  const fileBytes = Object.fromEntries(files.map((f) => [f, statSync(join(OUT, f)).size]));
  const command = ['npm run train:micro-rl', ...(argv.length ? ['--', ...argv] : [])].join(' ');
  writeFileSync(join(OUT, 'README.md'), rftCard({ options: o, rounds, trainProblems: trainSplit.length, wallS, cpuS, audit, fileBytes, command }));
  console.log(JSON.stringify({ wallS: Math.round(wallS), cpuS: Math.round(cpuS), deployed: audit.routes.deployed, ceilingRoutes: audit.routes.ceiling, ceilingSampling: audit.sampling.ceiling }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

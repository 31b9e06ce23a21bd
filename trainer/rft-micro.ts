// Trains ReachLab's built-in RL model: reachlab/micro-arith further trained with rejection-sampling
// fine-tuning and a replay anchor (micro/rft.ts) on the train split, exported beside it in Hugging
// Face layout with a model card listing every configuration tried on the validation problems
// (rft-sweep.json) and quoting what ReachLab's audit measures on the pair.
// Usage (from the repository root, after npm ci --prefix trainer): npm run train:micro-rl [-- --name=value ...]
// `npm run train:micro-rl -- --card` only rewrites the card from eval_results.json and rft-sweep.json
// (after a sweep entry is added), without training or auditing.

import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { auditPair, type PairAudit } from './micro/audit-pair';
import { roundParamsToF16, writeCheckpoint } from './micro/export';
import { DEFAULT_RFT, rft, type RftOptions, type RoundLog } from './micro/rft';
import { rftCard, SWEEP_FILE, type SweepEntry } from './micro/rft-card';
import { accuracy, loadCheckpoint, parseRftOptions, rftProblems } from './micro/rft-setup';

const ROOT = resolve(import.meta.dirname, '..');
const BASE = join(ROOT, 'public/hub/reachlab/micro-arith/resolve/main');
const OUT = join(ROOT, 'public/hub/reachlab/micro-arith-rl/resolve/main');

const FILES = ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'eval_results.json'];

/** The command that retrains with these options: the ones that differ from DEFAULT_RFT, as flags. */
function rftCommand(o: RftOptions): string {
  const flags = (Object.keys(o) as (keyof RftOptions)[]).filter((k) => o[k] !== DEFAULT_RFT[k]).map((k) => `--${k}=${o[k]}`);
  return ['npm run train:micro-rl', ...(flags.length ? ['--', ...flags] : [])].join(' ');
}

/** Writes README.md from what eval_results.json and the sweep file hold. */
function writeCard(): void {
  const ev = JSON.parse(readFileSync(join(OUT, 'eval_results.json'), 'utf8'));
  const r = ev.audit.random_routes;
  const s = ev.audit.sampling;
  const audit = {
    questions: ev.audit.questions,
    budget: ev.audit.budget,
    routes: { a: r.base, b: r.trained, deployed: r.deployed, ceiling: r.ceiling, transitions: r.transitions },
    sampling: { a: s.base, b: s.trained, deployed: s.deployed, ceiling: s.ceiling },
  } as unknown as PairAudit; // the fields the card reads
  const sweepPath = join(import.meta.dirname, SWEEP_FILE);
  const sweep: SweepEntry[] = existsSync(sweepPath) ? JSON.parse(readFileSync(sweepPath, 'utf8')) : [];
  const o: RftOptions = ev.options;
  const rounds: RoundLog[] = ev.rounds;
  const fileBytes = Object.fromEntries(FILES.map((f) => [f, statSync(join(OUT, f)).size]));
  const card = rftCard({ options: o, rounds, trainProblems: rftProblems().pool.length, validation: ev.validation, sweep, wallS: ev.wall_s, cpuS: ev.cpu_s, audit, fileBytes, command: rftCommand(o) });
  writeFileSync(join(OUT, 'README.md'), card);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && argv[0] === '--card') return writeCard();
  const o = parseRftOptions(argv, 'rft-micro');
  await tf.setBackend('wasm');
  await tf.ready();
  const { c, params } = loadCheckpoint(BASE);
  const { validation, pool } = rftProblems();
  const baseValidation = accuracy(validation, params, c);
  console.log(JSON.stringify({ options: o, trainProblems: pool.length, validationProblems: validation.length, baseValidation }));

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const rounds = await rft(
    params,
    c,
    pool,
    o,
    (r) => console.log(`round ${r.round}: sample accuracy ${(100 * r.sampleAccuracy).toFixed(1)}%  solved ${(100 * r.solved).toFixed(1)}%  kept ${r.kept}  loss ${r.loss.toFixed(4)}  validation ${(100 * r.validation!).toFixed(1)}%  ${r.elapsedS.toFixed(0)}s`),
    () => accuracy(validation, params, c),
  );
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;

  roundParamsToF16(params);
  const validationAfter = accuracy(validation, params, c);
  writeCheckpoint(OUT, params, c, { trained_by: 'trainer/rft-micro.ts', base_model: 'reachlab/micro-arith', method: 'rejection-sampling fine-tuning with replay', seed: String(o.seed), rounds: String(o.rounds) });
  // the tokenizer is the base model's, byte for byte
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(BASE, f), join(OUT, f));

  console.log('auditing base and RL model …');
  const audit = await auditPair(BASE, OUT);
  const evalResults = {
    method: 'rejection-sampling fine-tuning with replay',
    options: o,
    validation: { problems: validation.length, base: baseValidation, trained: validationAfter },
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
  writeCard();
  console.log(JSON.stringify({ wallS: Math.round(wallS), cpuS: Math.round(cpuS), validationAfter, deployed: audit.routes.deployed, ceilingRoutes: audit.routes.ceiling, ceilingSampling: audit.sampling.ceiling }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Trains ReachLab's built-in micro model (a small Llama) on the built-in arithmetic task and
// exports it in Hugging Face layout with a model card. Usage: npm run train:micro [-- --name=value ...] (from the trainer/ folder: npm ci, then npm run train -- ...)
// Prints the loss curve, held-out realized accuracy and the random-routes reachability estimate, then
// audits the exported checkpoint with ReachLab's own engine and audit core (quoted on the card).

import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { generateArith, arithText } from '../src/audit/tasks/arith';
import { auditModel } from './micro/audit-pair';
import { metricCount, shareValue } from '../src/audit/metrics/registry';
import { CEILING, REACHABLE } from '../src/audit/metrics/reach';
import { parameterCount, validateConfig, type MicroConfig } from './micro/config';
import { modelCard } from './micro/card';
import { roundParamsToF16, writeCheckpoint } from './micro/export';
import { reachability, realized, routeSamples } from './micro/heldout';
import { initParams } from './micro/model';
import { parseOptions } from './micro/options';
import { train } from './micro/train';
import { EOS_ID, VOCAB_SIZE, encodeChars } from './micro/vocab';

const ALL = 1_000_000; // more than a split holds: take all of it
const ROOT = resolve(import.meta.dirname, '..');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const o = parseOptions(argv);
  await tf.setBackend(o.backend);
  await tf.ready();
  const c: MicroConfig = {
    vocabSize: VOCAB_SIZE,
    hiddenSize: o.hiddenSize,
    intermediateSize: o.intermediateSize,
    numLayers: o.numLayers,
    numHeads: o.numHeads,
    numKvHeads: o.numKvHeads,
    headDim: o.hiddenSize / o.numHeads,
    ropeTheta: 10000,
    ropeScaling: null,
    rmsNormEps: 1e-5,
    maxPositionEmbeddings: 512,
    tieWordEmbeddings: false,
    eosTokenId: EOS_ID,
    padTokenId: EOS_ID,
  };
  validateConfig(c);
  const trainSplit = generateArith(o.level, 'train', ALL, o.seed); // seeded order
  const validationSet = trainSplit.slice(0, o.validationQuestions);
  const trainSet = trainSplit.slice(o.validationQuestions);
  const testSet = generateArith(o.level, 'test', ALL, o.seed);
  const curveSet = testSet.slice(0, o.evalCurveQuestions);
  const reachSet = testSet.slice(0, o.reachQuestions);
  console.log(`micro-arith: ${parameterCount(c)} parameters, ${trainSet.length} train / ${testSet.length} test problems (+ ${validationSet.length} validation held back from train), backend ${tf.getBackend()}`);
  console.log(JSON.stringify({ options: o, config: c }));

  const params = initParams(c, o.seed);
  const accuracy = (xs: { correct: boolean }[]) => xs.filter((s) => s.correct).length / xs.length;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const hooks = { validation: () => accuracy(realized(validationSet, params, c)), heldOut: () => accuracy(realized(curveSet, params, c)) };
  const curve = await train(params, c, trainSet, o, hooks, (p) =>
    console.log(`step ${p.step}  loss ${p.loss.toFixed(4)}  lr ${p.lr.toExponential(2)}  ${p.elapsedS.toFixed(0)}s` + (p.heldOut === undefined ? '' : `  validation ${(100 * p.validation!).toFixed(1)}%  held-out ${(100 * p.heldOut).toFixed(1)}%`)),
  );
  const stepsRun = curve[curve.length - 1].step;
  const trainWallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const trainCpuS = (cpu.user + cpu.system) / 1e6;

  roundParamsToF16(params);
  const t1 = performance.now();
  const samples = realized(testSet, params, c);
  const realizedAcc = accuracy(samples);
  console.log(`held-out realized (greedy, default route, F16 weights): ${(100 * realizedAcc).toFixed(2)}% of ${testSet.length}`);
  const reach = reachability(reachSet, params, c, o.maxBlock, o.budget);
  console.log(`random routes (${reach.routes} one-edit blocks routes, budget ${reach.budget}) on ${reach.n} held-out questions: realized ${(100 * reach.realized).toFixed(2)}%  reachable@${reach.budget} ${(100 * reach.reachable).toFixed(2)}%  ceiling@${reach.budget} ${(100 * reach.ceiling).toFixed(2)}%  (${((performance.now() - t1) / 1000).toFixed(0)}s)`);

  const dir = resolve(ROOT, o.out); // npm runs the script in trainer/; --out is relative to the repository root
  writeCheckpoint(dir, params, c, { trained_by: 'trainer/train-micro.ts', level: o.level, seed: String(o.seed), steps: String(stepsRun) });
  checkTokenizer(dir, testSet.map(arithText));
  console.log('auditing the exported checkpoint …');
  const audit = await auditModel(dir);
  const probeOf = (r: typeof audit.routes, probe: string) => r.summary.probes.find((p) => p.probe === probe)!;
  const auditJson = (r: typeof audit.routes, probe: string) => {
    const p = probeOf(r, probe);
    return { run_key: r.run_key, probe: p.probe_key, n: r.summary.n, realized: r.summary.realized, reachable: shareValue(p, REACHABLE), ceiling: shareValue(p, CEILING), counts: { realized: p.counts.realized, reachable: metricCount(p, REACHABLE), ceiling: metricCount(p, CEILING) } };
  };
  const pctOf = (r: typeof audit.routes, probe: string, m: typeof REACHABLE) => (100 * shareValue(probeOf(r, probe), m)!).toFixed(1);
  console.log(`audit (${audit.questions} questions, budget ${audit.budget}): realized ${(100 * audit.routes.summary.realized).toFixed(1)}%  random routes reachable ${pctOf(audit.routes, 'random-routes', REACHABLE)}%  ceiling ${pctOf(audit.routes, 'random-routes', CEILING)}%  sampling reachable ${pctOf(audit.sampling, 'sampling', REACHABLE)}%  ceiling ${pctOf(audit.sampling, 'sampling', CEILING)}%`);
  const files = ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
  const evalResults = {
    task: { generator: 'src/audit/tasks/arith.ts', level: o.level, split: 'test', seed: o.seed, questions: testSet.length },
    realized: { n: testSet.length, accuracy: realizedAcc, decoding: 'greedy', route: 'default', max_new_tokens: 5 },
    random_routes: { space: { kind: 'blocks', edits: 1, maxBlock: o.maxBlock }, routes: reach.routes, budget: reach.budget, n: reach.n, realized: reach.realized, reachable: reach.reachable, ceiling: reach.ceiling, per_route: reach.perRoute },
    greedy_samples: samples.slice(0, 100),
    route_samples: routeSamples(testSet.slice(0, 32), params, c, o.maxBlock),
    audit: { engine: 'reachlab (wasm, f32)', task: 'builtin:arith-2d', questions: audit.questions, question_seed: 1, budget: audit.budget, seed: 1, random_routes: auditJson(audit.routes, 'random-routes'), sampling: auditJson(audit.sampling, 'sampling') },
  };
  writeFileSync(join(dir, 'eval_results.json'), JSON.stringify(evalResults, null, 1) + '\n');
  files.push('eval_results.json');
  const fileBytes = Object.fromEntries(files.map((f) => [f, statSync(join(dir, f)).size]));
  const command = ['npm run train:micro', ...(argv.length ? ['--', ...argv] : [])].join(' ');
  writeFileSync(join(dir, 'README.md'), modelCard({ config: c, options: o, parameters: parameterCount(c), stepsRun, trainProblems: trainSet.length, validationProblems: validationSet.length, testProblems: testSet.length, trainWallS, trainCpuS, realized: realizedAcc, reach, curve, audit, fileBytes, command }));
  console.log(JSON.stringify({ parameters: parameterCount(c), steps: stepsRun, trainWallS: Math.round(trainWallS), trainCpuS: Math.round(trainCpuS), realized: realizedAcc, reachable: reach.reachable, ceiling: reach.ceiling, fileBytes }));
}

/** The shipped tokenizer must give exactly the ids the model was trained on. */
function checkTokenizer(dir: string, texts: string[]): void {
  const tok = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')));
  for (const text of texts) {
    const ids = tok.encode(text).ids;
    if (ids.join(',') !== encodeChars(text).join(',')) throw new Error(`train-micro: tokenizer.json encodes ${JSON.stringify(text)} as [${ids}], training used [${encodeChars(text)}]`);
    if (tok.decode(ids) !== text) throw new Error(`train-micro: tokenizer.json does not round-trip ${JSON.stringify(text)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

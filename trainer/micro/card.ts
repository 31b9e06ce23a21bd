// The model card (README.md, Hugging Face style) written beside the checkpoint from the run's numbers.

import type { AuditSummary, ProbeSummary } from '../../src/audit/index';
import { metricCount, shareValue } from '../../src/audit/metrics/registry';
import type { Metric } from '../../src/audit/metrics/metric';
import { CEILING, REACHABLE } from '../../src/audit/metrics/reach';
import type { ModelAudit } from './audit-pair';
import type { MicroConfig } from './config';
import type { TrainOptions } from './options';
import type { ReachResult } from './heldout';
import type { CurvePoint } from './train';

/** A probe's share metric, which the audit always has for these probes. */
const share = (p: ProbeSummary, m: Metric): number => shareValue(p, m)!;

export interface CardFacts {
  config: MicroConfig;
  options: TrainOptions;
  parameters: number;
  stepsRun: number;
  trainProblems: number;
  validationProblems: number;
  testProblems: number;
  trainWallS: number;
  /** Process CPU seconds (user + system) of training; the wall time depends on what else ran. */
  trainCpuS: number;
  realized: number;
  reach: ReachResult;
  curve: CurvePoint[];
  /** The exported checkpoint audited by ReachLab's engine and audit core (what `npm run audit` prints). */
  audit: ModelAudit;
  fileBytes: Record<string, number>;
  command: string;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function modelCard(f: CardFacts): string {
  const c = f.config;
  const o = f.options;
  const total = Object.values(f.fileBytes).reduce((a, b) => a + b, 0);
  const curveRows = f.curve
    .filter((p) => p.heldOut !== undefined)
    .map((p) => `| ${p.step} | ${p.loss.toFixed(4)} | ${pct(p.validation!)} | ${pct(p.heldOut!)} | ${p.elapsedS.toFixed(0)} |`);
  const best = [...f.reach.perRoute].sort((a, b) => b.accuracy - a.accuracy).slice(0, 3);
  const a = f.audit;
  const routes = probeSummary(a.routes.summary, 'random-routes');
  const sampling = probeSummary(a.sampling.summary, 'sampling');
  const count = (k: number, n: number) => `${k} of ${n}`;
  return `---
license: mit
library_name: transformers
pipeline_tag: text-generation
tags:
  - llama
  - arithmetic
  - reachlab
  - layer-routes
---

# reachlab/micro-arith

A ${(f.parameters / 1e3).toFixed(0)}k-parameter Llama decoder trained from scratch on ReachLab's built-in
two-digit arithmetic task. It is ReachLab's built-in default model: small enough that an audit runs
offline in seconds, and deliberately stopped before it masters the task, so that there are failures
to study: what it **realizes** (greedy, default route) next to what is **reachable** by running a
different layer route or by sampling, as measured below.

## Use

Prompt with the question alone, no template, no BOS: \`12+34=\`. Greedy decoding writes the answer
and then \`<|endoftext|>\` (eos), e.g. \`46<|endoftext|>\`. One token per character.

## Architecture

| | |
| --- | --- |
| type | \`LlamaForCausalLM\` (no biases) |
| layers | ${c.numLayers} |
| hidden size | ${c.hiddenSize} |
| attention heads / kv heads | ${c.numHeads} / ${c.numKvHeads} (head_dim ${c.headDim}) |
| MLP | SwiGLU, intermediate size ${c.intermediateSize} |
| vocabulary | ${c.vocabSize}: \`0-9 + - * =\`, space, newline, \`<|endoftext|>\` (byte-level BPE, no merges) |
| rotary | rope_theta ${c.ropeTheta}, no scaling |
| RMSNorm eps | ${c.rmsNormEps} |
| tied embeddings | ${c.tieWordEmbeddings} |
| parameters | ${f.parameters.toLocaleString('en-US')} |
| weights | \`model.safetensors\`, F16 |

## Training data

\`generateArith('${o.level}', 'train', …, ${o.seed})\` from \`src/audit/tasks/arith.ts\`: the train split
(operands 10–99, \`+\` and \`-\`) in its seeded order; the first ${f.validationProblems} problems are held back as a
validation set and the other ${f.trainProblems.toLocaleString('en-US')} are trained on. The split is a hash of the
operands, so no test problem is ever seen in training. Rows are
\`question + answer + eos\`; the loss is the cross-entropy of the answer tokens and the eos.

## Training

- ${f.stepsRun} steps of AdamW (β = 0.9, 0.98; weight decay ${o.weightDecay} on matrices), batch ${o.batchSize},
  peak learning rate ${o.lr} after ${o.warmupSteps} warmup steps, cosine decay over ${o.steps} steps to ${o.minLrRatio}× the
  peak, gradient clipping at global norm ${o.gradClip}; seed ${o.seed}.
- Stopping rule: ${o.stopAtAccuracy > 0 ? `training stops at the first evaluation (every ${o.evalEvery} steps) where greedy accuracy on the validation set reaches ${pct(o.stopAtAccuracy)}, so that the model keeps failures to study` : 'none (all steps run)'}. The rule sees only train-split problems.
- ${
    o.routeProb > 0
      ? `Route augmentation: with probability ${o.routeProb} a step runs a uniformly drawn route that skips or repeats one contiguous block of 1–${o.maxBlock} layers instead of the default route.`
      : 'No route augmentation: every training step runs the default route (each layer once, in order).'
  }
- TensorFlow.js (${o.backend} backend, one thread): ${f.trainWallS.toFixed(0)} s wall time for training
  (${f.trainCpuS.toFixed(0)} CPU seconds; the machine was shared with other work).
- The forward pass is Hugging Face \`modeling_llama\` (RMSNorm, rotate-half rotary, causal GQA with
  1/√head_dim, SwiGLU), so the exported weights mean the same in any Llama implementation.

| step | train loss | validation accuracy | held-out accuracy (first ${o.evalCurveQuestions} test questions) | seconds |
| --- | --- | --- | --- | --- |
${curveRows.join('\n')}

## Evaluation (held-out test split, weights as stored in F16)

- **Realized** (greedy, default route, all ${f.testProblems.toLocaleString('en-US')} test questions): **${pct(f.realized)}**.
- **Random routes at budget ${f.reach.budget}** (first ${f.reach.n} test questions in seeded order): every one of
  the ${f.reach.routes} one-edit blocks routes (skip or repeat one contiguous block of 1–${o.maxBlock} layers) decoded
  greedily; reachability@${f.reach.budget} is the unbiased estimate 1 − C(n−c, ${f.reach.budget})/C(n, ${f.reach.budget}) per question
  (n = ${f.reach.routes} routes, c = correct ones), i.e. the expected result of drawing ${f.reach.budget} distinct routes.
  - realized on these questions: ${pct(f.reach.realized)}
  - reachable@${f.reach.budget}: **${pct(f.reach.reachable)}**
  - ceiling@${f.reach.budget} (realized or reachable): ${pct(f.reach.ceiling)}
  - best single routes: ${best.map((r) => `[${r.route.join(',')}] ${pct(r.accuracy)}`).join(', ')}
- \`eval_results.json\` holds these numbers, every route's accuracy and the greedy output of the first
  test questions.

## Audit (the headless runner, ReachLab's own engine)

\`\`\`
npm run -s audit -- --model ${o.out} --task builtin:arith-2d --questions ${a.questions} --probe random-routes --space blocks --budget ${a.budget} --seed 1
\`\`\`

prints realized **${pct(a.routes.summary.realized)}** (${count(a.routes.summary.realized_count, a.routes.summary.n)}), reachable@${routes.budget} **${pct(share(routes, REACHABLE))}** (${count(metricCount(routes, REACHABLE)!, routes.n)}), ceiling@${routes.budget} ${pct(share(routes, CEILING))} (${count(metricCount(routes, CEILING)!, routes.joined)})
on the first ${a.questions} test questions (question seed 1; blocks route space with up to two edits, routes drawn per
question, seed 1; WASM EP, f32). With \`--probe sampling\` instead (pass@${sampling.budget} at T = 0.6, top-p 0.95, seed 1):
reachable@${sampling.budget} ${pct(share(sampling, REACHABLE))} (${count(metricCount(sampling, REACHABLE)!, sampling.n)}), ceiling@${sampling.budget} ${pct(share(sampling, CEILING))} (${count(metricCount(sampling, CEILING)!, sampling.joined)}).
\`eval_results.json\` (\`audit\`) holds these counts and the run keys; \`test/micro-model.spec.ts\` reruns the
random-routes audit and checks that it gives the same counts.

## Files

${Object.entries(f.fileBytes).map(([name, bytes]) => `- \`${name}\`: ${bytes.toLocaleString('en-US')} bytes`).join('\n')}
- total (without this card): ${total.toLocaleString('en-US')} bytes

## Retrain

From the repository root (about ${Math.ceil(f.trainCpuS / 60)} CPU minutes on one core; the same options give
the same weights):

\`\`\`
${f.command}
\`\`\`

Options are \`--name=value\` (see \`trainer/micro/options.ts\`).

## License

MIT.
`;
}

function probeSummary(s: AuditSummary, probe: string): ProbeSummary {
  const p = s.probes.find((x) => x.probe === probe);
  if (!p) throw new Error(`model card: the audit has no ${probe} probe`);
  return p;
}

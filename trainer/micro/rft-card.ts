// The model card of the RL-trained micro model: the method, its options and cost, and what
// ReachLab's audit measures on it next to its base (both directions are reported as measured).

import type { PairAudit } from './audit-pair';
import type { RftOptions, RoundLog } from './rft';

export interface RftCardFacts {
  options: RftOptions;
  rounds: RoundLog[];
  trainProblems: number;
  wallS: number;
  /** Process CPU seconds (user + system) of the RL rounds. */
  cpuS: number;
  audit: PairAudit;
  fileBytes: Record<string, number>;
  command: string;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const ci = (c: { lo: number; hi: number }) => `[${pts(c.lo)}, ${pts(c.hi)}]`;

export function rftCard(f: RftCardFacts): string {
  const o = f.options;
  const a = f.audit;
  const B = a.budget;
  const rows = f.rounds.map((r) => `| ${r.round} | ${pct(r.sampleAccuracy)} | ${pct(r.solved)} | ${r.kept} | ${r.loss.toFixed(4)} | ${r.elapsedS.toFixed(0)} |`);
  const line = (name: string, base: number, trained: number, d: { diff: number; ci: { lo: number; hi: number }; mcnemar: { exactP: number } }) =>
    `| ${name} | ${pct(base)} | ${pct(trained)} | ${pts(d.diff)} ${ci(d.ci)} | ${d.mcnemar.exactP.toPrecision(3)} |`;
  const r = a.routes;
  const s = a.sampling;
  return `---
license: mit
library_name: transformers
pipeline_tag: text-generation
base_model: reachlab/micro-arith
tags:
  - llama
  - arithmetic
  - reachlab
  - reinforcement-learning
  - rejection-sampling-fine-tuning
---

# reachlab/micro-arith-rl

\`reachlab/micro-arith\` trained further with **rejection-sampling fine-tuning** (RFT, also called
expert iteration): reinforcement learning with a binary correctness reward and no value model. It is
ReachLab's built-in *trained* side of a base/trained pair, so a class can audit offline what RL
training does to what a model realizes and to what it can reach.

## Method

Each of ${o.rounds} rounds:

1. draw ${o.problemsPerRound} problems from the **train split** (\`generateArith('arith-2d', 'train', …)\`; the test split is
   never seen), in a seeded order;
2. sample ${o.samples} answers per problem from the current model: default route, temperature ${o.temperature},
   at most ${o.maxNewTokens} new tokens;
3. reward 1 when a sample is the gold answer followed by eos, else 0; keep each rewarded
   (problem, sample) once;
4. fine-tune on the kept samples: ${o.stepsPerRound} AdamW steps (β = 0.9, 0.98; weight decay ${o.weightDecay}), batch
   ${o.batchSize} drawn with replacement, learning rate ${o.lr}, gradient clipping at global norm ${o.gradClip},
   cross-entropy on the answer tokens and eos, default route only.

Seed ${o.seed}. The options were fixed before the first run and not tuned on the audit below.
TensorFlow.js (wasm backend): ${f.wallS.toFixed(0)} s wall time, ${f.cpuS.toFixed(0)} CPU seconds for the ${o.rounds} rounds
(${(o.rounds * o.stepsPerRound).toLocaleString('en-US')} optimizer steps); weights stored in F16 like the base.

| round | sample accuracy | problems solved (pass@${o.samples}) | samples kept | mean loss | seconds |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

## What the audit measures (base → RL)

ReachLab's engine and audit core, on the first ${a.questions} built-in test questions (question seed 1),
greedy, f32 on WASM; random routes: blocks space, budget ${B}, seed 1; sampling: pass@${B} at T = 0.6,
top-p 0.95, seed 1. Δ is RL − base over the same questions with Newcombe's paired 95% interval;
p is McNemar's exact test.

| measure | base | RL | Δ (points) [95% CI] | p |
| --- | --- | --- | --- | --- |
${line('deployed (realized)', r.a.realized, r.b.realized, r.deployed)}
${line(`ceiling@${B}, random routes`, r.a.ceiling, r.b.ceiling, r.ceiling)}
${line(`ceiling@${B}, sampling`, s.a.ceiling, s.b.ceiling, s.ceiling)}

Reachable@${B} alone: random routes ${pct(r.a.reachable)} → ${pct(r.b.reachable)}; sampling ${pct(s.a.reachable)} → ${pct(s.b.reachable)}.

Question transitions under random routes (rows base, columns RL):

| base \\ RL | realized | reachable only | unreachable |
| --- | --- | --- | --- |
${(['realized', 'reachable-only', 'unreachable'] as const).map((from) => `| ${from} | ${r.transitions[from].realized} | ${r.transitions[from]['reachable-only']} | ${r.transitions[from].unreachable} |`).join('\n')}

Reproduce the random-routes rows with the audit CLI (from the repository root; \`compare.comparison\` is RL − base):

\`\`\`
npm run -s audit -- --model public/hub/reachlab/micro-arith/resolve/main --compare public/hub/reachlab/micro-arith-rl/resolve/main --task builtin:arith-2d --questions ${a.questions} --probe random-routes --space blocks --budget ${B} --seed 1
\`\`\`

## Files

${Object.entries(f.fileBytes).map(([name, bytes]) => `- \`${name}\`: ${bytes.toLocaleString('en-US')} bytes`).join('\n')}

## Retrain

From the repository root, after \`npm ci --prefix trainer\` (the same options give the same weights):

\`\`\`
${f.command}
\`\`\`

## License

MIT.
`;
}

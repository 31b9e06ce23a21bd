// The model card of the RL-trained micro model: the method, every configuration tried on the
// validation problems, the chosen options and their cost, and what ReachLab's audit measures on it
// next to its base (both directions are reported as measured).

import type { PairAudit } from './audit-pair';
import { PREVIOUS_RFT, type RftOptions, type RoundLog } from './rft';

/** The sweep's results, beside the trainer scripts. */
export const SWEEP_FILE = 'rft-sweep.json';

/** One configuration tried on the validation problems (rft-sweep.ts). */
export interface SweepEntry {
  options: RftOptions;
  /** Greedy accuracy on the validation problems after training, weights rounded to F16. */
  validation: number;
  /** The base model's accuracy on the same problems. */
  base_validation: number;
  validation_problems: number;
  rounds: RoundLog[];
  wall_s: number;
  cpu_s: number;
}

export interface RftCardFacts {
  options: RftOptions;
  rounds: RoundLog[];
  trainProblems: number;
  /** Greedy accuracy on the validation problems, base and trained (F16 weights). */
  validation: { problems: number; base: number; trained: number };
  /** Every configuration tried, in the order run (rft-sweep.json). */
  sweep: SweepEntry[];
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

/** The options a sweep row shows (seed and sampling limits are the same in every row of the sweep). */
const sameOptions = (a: RftOptions, b: RftOptions) => (Object.keys(a) as (keyof RftOptions)[]).every((k) => a[k] === b[k]);

/** How the shipped configuration was picked: the configurations within one standard error of the best
 *  validation score are tied (the one-standard-error rule); among them the shipped one must keep the
 *  replay anchor with the smallest learning rate, the most conservative change to the base. */
function selection(sweep: SweepEntry[], chosen: RftOptions): string {
  if (sweep.length === 0) throw new Error('rft-card: the sweep is empty; run npm run sweep:micro-rl first');
  const best = sweep.reduce((a, e) => (e.validation > a.validation ? e : a));
  const se = Math.sqrt((best.validation * (1 - best.validation)) / best.validation_problems);
  const tied = sweep.map((e, i) => ({ e, i })).filter(({ e }) => e.validation >= best.validation - se);
  const anchored = tied.filter(({ e }) => e.options.replay > 0);
  const pick = anchored.reduce<(typeof anchored)[number] | undefined>((a, t) => (!a || t.e.options.lr < a.e.options.lr ? t : a), undefined);
  if (!pick || !sameOptions(pick.e.options, chosen)) throw new Error('rft-card: the shipped options are not the anchored configuration with the smallest learning rate among those within one standard error of the best');
  const bestIndex = sweep.indexOf(best);
  return `
Configuration ${bestIndex + 1} scored highest (${pct(best.validation)}); one standard error of that score on ${best.validation_problems} problems is
${(100 * se).toFixed(1)} points, and configurations ${tied.map(({ i }) => i + 1).join(', ')} lie within it, so the sweep does not tell them apart.
Among them the shipped one (configuration ${pick.i + 1}) is the most conservative change to the base: the smallest learning
rate, with the replay anchor (the one-standard-error rule; it was stated after the sweep had run).
`;
}

/** Why the earlier recipe lowered accuracy, with its numbers from the sweep (when the sweep ran it). */
function previousRecipe(sweep: SweepEntry[]): string {
  const i = sweep.findIndex((e) => sameOptions(e.options, PREVIOUS_RFT));
  if (i < 0) return '';
  const e = sweep[i];
  const first = e.rounds[0]?.validation;
  return `
Configuration ${i + 1} is the recipe this model was trained with before (learning rate ${PREVIOUS_RFT.lr} from the first
step, no warmup, no decay, no replay)${first === undefined ? '' : `: its first round took validation accuracy from ${pct(e.base_validation)} to ${pct(first)}`},
and it ended at ${pct(e.validation)}. Its prompts, tokens, split and reward were right (the prompt is the bare question,
as the audit sends it, and the kept samples are exactly the gold answers, which are unique); its step size was
not. The base was stopped by its rule at a learning rate of about 0.0008, at a high point of a validation curve
that still moved by up to 18 points between evaluations (57.4% → 75.8% over its last 100 steps), and each round took ${PREVIOUS_RFT.stepsPerRound} steps of ${PREVIOUS_RFT.batchSize} rows on its
about 1,000 kept problems (about six passes over them), so fine-tuning at that rate lands the model at an
ordinary point of that noisy curve, well below the peak it was stopped at. A learning rate ten times smaller,
warmed up and decayed, keeps what the base learned and builds on it.
`;
}

function sweepTable(sweep: SweepEntry[], chosen: RftOptions): string {
  const head = '| # | rounds × steps | problems × samples, T | lr (warmup, final share) | replay | validation | Δ vs base (points) | CPU s |\n| --- | --- | --- | --- | --- | --- | --- | --- |';
  const rows = sweep.map((e, i) => {
    const o = e.options;
    const mark = sameOptions(o, chosen) ? ' **shipped**' : '';
    return `| ${i + 1}${mark} | ${o.rounds} × ${o.stepsPerRound} | ${o.problemsPerRound} × ${o.samples}, ${o.temperature} | ${o.lr} (${o.warmupSteps}, ${o.minLrRatio}) | ${o.replay} | ${pct(e.validation)} | ${pts(e.validation - e.base_validation)} | ${e.cpu_s} |`;
  });
  return [head, ...rows].join('\n');
}

export function rftCard(f: RftCardFacts): string {
  const o = f.options;
  const a = f.audit;
  const B = a.budget;
  const rows = f.rounds.map((r) => `| ${r.round} | ${pct(r.sampleAccuracy)} | ${pct(r.solved)} | ${r.kept} | ${r.loss.toFixed(4)} | ${r.validation === undefined ? '–' : pct(r.validation)} | ${r.elapsedS.toFixed(0)} |`);
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
expert iteration) with a **replay anchor**: reinforcement learning with a binary correctness reward
and no value model, each batch mixing the model's own rewarded samples with the base's training data. It is
ReachLab's built-in *trained* side of a base/trained pair, so a class can audit offline what RL
training does to what a model realizes and to what it can reach.

## Method

Each of ${o.rounds} rounds:

1. draw ${o.problemsPerRound} problems from the base model's ${f.trainProblems.toLocaleString('en-US')} training problems (the **train split**
   without the validation problems; the test split is never seen), in a seeded order;
2. sample ${o.samples} answers per problem from the current model: default route, temperature ${o.temperature},
   at most ${o.maxNewTokens} new tokens;
3. reward 1 when a sample is the gold answer followed by eos, else 0; keep each rewarded
   (problem, sample) once;
4. fine-tune: ${o.stepsPerRound} AdamW steps (β = 0.9, 0.98; weight decay ${o.weightDecay}), each batch of ${o.batchSize} rows drawn with
   replacement, a share ${1 - o.replay} from the kept samples and ${o.replay} from the **replay** rows (the base's
   training problems with their gold answers, the data it was trained on); cross-entropy on the answer
   tokens and eos, default route only, gradient clipping at global norm ${o.gradClip}. The learning rate warms up
   linearly to ${o.lr} over ${o.warmupSteps} steps, then decays (cosine) to ${o.minLrRatio} × ${o.lr} at the last step of the last round.

Seed ${o.seed}.
TensorFlow.js (wasm backend): ${f.wallS.toFixed(0)} s wall time, ${f.cpuS.toFixed(0)} CPU seconds for the ${o.rounds} rounds
(${(o.rounds * o.stepsPerRound).toLocaleString('en-US')} optimizer steps); weights stored in F16 like the base.

| round | sample accuracy | problems solved (pass@${o.samples}) | samples kept | mean loss | validation (f32) | seconds |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

## Choosing the settings (validation problems only)

The settings were chosen on ${f.validation.problems} **validation problems**: the train-split problems the base model held
back for its stopping rule, on which neither model ever trains, disjoint from every test question the
audit below uses. The score is greedy exact-answer accuracy (default route, the answer then eos,
weights rounded to F16 as shipped); the base scores ${pct(f.validation.base)}, this model ${pct(f.validation.trained)}
(${pts(f.validation.trained - f.validation.base)} points). Every configuration tried, in the order run
(\`npm run sweep:micro-rl -- --name=value …\`, stored in \`trainer/${SWEEP_FILE}\`); the audit below was run only on the shipped one:

${sweepTable(f.sweep, o)}
${selection(f.sweep, o)}${previousRecipe(f.sweep)}
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

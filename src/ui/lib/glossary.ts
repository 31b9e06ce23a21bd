// What every number and label on screen means (the README's "What the numbers mean"). Shown where
// the number appears (the ? toggles of Term.svelte and table headers) and all together on the "How
// to read this" screen. A number the study report also defines reads its definition from
// src/audit/definitions.ts (stated once, there); the glossary only adds what a screen reader needs.

import { definitionOf } from '../../audit/definitions';
import { COVER_TAU } from '../../audit/metrics/cover';
import { METRICS } from '../../audit/metrics/registry';
import type { Metric } from '../../audit/metrics/metric';

/** One glossary entry: the term as screens print it and what it means. */
interface GlossaryEntry {
  term: string;
  text: string;
}

/** The audit's definition of `term`, then what the screens add. */
const audit = (term: string, more?: string) => (more ? `${definitionOf(term)} ${more}` : definitionOf(term));

const NAMED = {
  realized: {
    term: 'realized',
    text: audit('realized', 'The deployment attempt is the model as deployed: every layer once, in order. One attempt per question.'),
  },
  reachable: {
    term: 'reachable@B',
    text: audit('reachable@B', 'B is the budget. It measures whether the right answer can be found, not whether the model gives it.'),
  },
  ceiling: {
    term: 'ceiling@B',
    text: audit('ceiling@B', 'It equals reachable@B whenever every realized question was also reached by the probe.'),
  },
  decoy: {
    term: 'reachable@B (decoy)',
    text: audit('decoy', 'The decoy is fixed for each question by the question seed (another option letter; for a number, the gold plus or minus 1 to 3); ceiling@B (decoy) is realized-or-reachable against it. It costs no extra model call. Not shown when no decoy can be made (exact-match answers).'),
  },
  cover: {
    term: `cover@${COVER_TAU}`,
    text: audit(`cover@${COVER_TAU}`, 'Unlike reachable@B, a probe is not rewarded for guessing.'),
  },
  goldMinusDecoy: {
    term: 'gold − decoy',
    text: audit('gold − decoy'),
  },
  budget: {
    term: 'budget B',
    text: 'How many distinct answer attempts a probe may make for one question: distinct routes, silence sets or samples. Every probe is charged the same way; the deployment attempt is free.',
  },
  attempts: {
    term: 'attempt',
    text: 'One full answer: one decode (or one scoring pass) under one route, silence set or sample. Attempts are numbered from 1.',
  },
  attemptsMade: {
    term: 'attempts made',
    text: 'Attempts a probe really made per question: its budget, fewer only where its space holds fewer distinct attempts (“space exhausted”).',
  },
  probe: {
    term: 'probe',
    text: 'A procedure that tries to reach the gold answer within a budget: random layer routes, MCTS over layer routes, temperature sampling, or silencing one MLP block.',
  },
  route: {
    term: 'route',
    text: 'The layers run between the embedding and the output head, in order. The default route runs every layer once; a probe’s route may skip or repeat layers.',
  },
  selector: {
    term: 'selector',
    text: 'A rule that picks one answer from a probe’s attempts without looking at the gold answer: majority vote, highest mean log-probability, or fixed-route.',
  },
  fixedRoute: {
    term: 'fixed-route',
    text: 'A selector: the one route that was correct most often on the calibration (train) questions, used for every test question.',
  },
  blind: {
    term: 'answer-blind',
    text: 'A selector is answer-blind when it picks without the gold answer and from attempts that were chosen without it. MCTS chooses its routes with the gold answer as reward, so selectors over MCTS attempts are not blind.',
  },
  retainedGain: {
    term: 'retained gain',
    text: audit('retained gain', 'On Results, the questions the probe reaches that deployment misses are the “N more were reachable” of the sentence; “—” marks no gain to keep.'),
  },
  mctsPreset: {
    term: 'MCTS preset',
    text: 'A published tree search over routes, run as its released code runs it: CoLa’s (root children skip or repeat a block of 1–4 layers, deeper ones a single layer, no limit on edits, the whole level of children made at once and one evaluated) or program selection’s (each position may run a layer within ±2 of its own, at most 3 positions changed). Both are rewarded with the gold answer. ReachLab charges distinct routes, and never charges the default route.',
  },
  depthMatched: {
    term: 'depth-matched routes',
    text: 'The random baseline of an MCTS preset: each route is a random walk of d of that preset’s own actions from the default route, d taken from how deep the preset’s MCTS attempts went in the same run (pooled over questions). It never sees the gold answer. depth-matched − MCTS asks: with the same kind of routes, does the search’s guidance beat chance?',
  },
  matched: {
    term: 'matched attempts',
    text: audit('matched attempts', 'Neither probe gets more tries.'),
  },
  reachAtK: {
    term: 'reachability@k',
    text: 'For k = 1 … B: the share of questions with a correct attempt among the first k attempts. The dashed line is realized.',
  },
  outcome: {
    term: 'outcome',
    text: 'realized: answered correctly as deployed. reachable-only: wrong as deployed, but a probe reached the answer. unreachable: neither.',
  },
  reachableUnder: {
    term: 'reachable under',
    text: 'Which probe’s attempts count as reaching the answer in the table below: any probe of the run, or one of them.',
  },
  failureSet: {
    term: 'failure set',
    text: audit('failure set', 'Those the model could answer and did not.'),
  },
  repairRate: {
    term: 'repair rate',
    text: audit('repair rate', 'The layer’s MLP block is silenced; the half it is identified on is seeded, so the rate is measured out of sample.'),
  },
  collateral: {
    term: 'collateral',
    text: audit('collateral'),
  },
  inSample: {
    term: 'in-sample',
    text: 'Every layer scored on the same questions a best layer would be chosen on: it overstates the best layer’s repair rate.',
  },
  ci: {
    term: '95% interval',
    text: 'Where the true rate plausibly lies given this many questions (Wilson interval for a rate, Newcombe’s for a paired difference). Few questions give wide intervals.',
  },
  holm: {
    term: 'Holm-adjusted p',
    text: audit('Holm-adjusted p', 'Making many tests, some small p arise by chance; Holm’s adjustment raises each p so that, over all of them, the chance of even one false “distinguishable” stays below 5%.'),
  },
  routeSpaces: {
    term: 'route spaces (blocks, neighborhood, cola)',
    text: audit('route spaces'),
  },
  heldOut: {
    term: 'in-sample and held-out',
    text: audit('in-sample and held-out'),
  },
  logitLens: {
    term: 'logit lens',
    text: 'Look inside: the residual stream after each route position put through the model’s final norm and output head, as if the model stopped there; it shows how likely the gold token and the compared token are at each depth.',
  },
  directAttribution: {
    term: 'direct attribution',
    text: 'Look inside: what each route position’s attention and MLP output adds to the logit difference gold − compared token, with the final norm’s scale frozen; with the embedding they sum to that difference.',
  },
  mcnemar: {
    term: 'McNemar p',
    text: audit('McNemar p', 'The discordant pairs are the questions that changed; p is the chance of a difference this large if both had the same rate. Below 0.05 it is unlikely to be chance.'),
  },
  delta: {
    term: 'Δ (B − A)',
    text: 'Deployed Δ: change of realized from run A to run B; ceiling Δ: change of realized-or-reachable. Both over the questions both runs audited.',
  },
  firstSuccess: {
    term: 'first success',
    text: 'The number of the first correct attempt, counting from 1; “none” when no attempt was correct.',
  },
  meanLogprob: {
    term: 'mean log-prob',
    text: 'Mean log-probability of the answer’s tokens: closer to 0 means the model was more confident.',
  },
  layerUsage: {
    term: 'layer usage',
    text: 'How often each layer ran at each route position, over the attempts that reached the gold answer; the outlined cells are the default route.',
  },
  conditionKey: {
    term: 'condition key',
    text: 'SHA-256 of the condition: prompt template, chat template, few-shot count and seed, decoding, max new tokens, stop sequences, answer format, grader version, engine dtype. Two runs compare only under one key.',
  },
  questionSeed: {
    term: 'question seed',
    text: 'Picks which built-in questions are generated and which few-shot examples each question gets.',
  },
  probeSeed: {
    term: 'probe seed',
    text: 'Picks only the probes’ draws (routes, MCTS choices, samples); the questions stay the same.',
  },
  rate: {
    term: 'attempts/s',
    text: 'Attempts computed per second in this session; records kept from earlier sessions or other runs are not counted.',
  },
  estimate: {
    term: 'time estimate',
    text: 'Attempts ÷ the attempts per second measured by your last run of this model, engine and dtype with the same probes and budgets on this device. Before any run it is a rough guess from the model’s size.',
  },
} as const satisfies Record<string, GlossaryEntry>;

export type TermId = keyof typeof NAMED;

const named = new Set<string>(Object.values(NAMED).map((d) => d.term));

/** The named entries, then every registry metric they do not name (by its id, its definition). */
export const GLOSSARY: Readonly<Record<TermId, GlossaryEntry>> = {
  ...NAMED,
  ...Object.fromEntries(METRICS.filter((m) => !named.has(m.term)).map((m) => [m.id, { term: m.term, text: definitionOf(m.term) }])),
};

/** A metric's glossary entry: the named one that has its term, else its own. */
export const metricTermId = (m: Metric): TermId => (Object.entries(GLOSSARY).find(([, d]) => d.term === m.term)![0] as TermId);

// Deterministic, plausible runs (manifest + question records) for the fake backend and for tests:
// arithmetic questions, a deployment attempt, route probes whose attempts sometimes reach the gold
// answer, a sampling probe, an MLP-silencing scan and the selectors (picked by the audit core's
// selector functions; not answer-blind over MCTS attempts). The attempts are scripted; each record
// is the audit core's (makeRecord: first success, realized, reachable, stop reason, budget, and
// the grades against the decoy answer — wrong answers lie near the gold, so some are the decoy).
// Seeded (src/util/prng).

import { DEPLOYMENT, drawCount, isDeployment, isIntervention, makeRecord, probeOf } from '../../audit';
import type { Attempt, ProbeSpec, QuestionRecord, RunManifest, SelectorPick } from '../../audit/types';
import { generateArith } from '../../audit/tasks/arith';
import { defaultRoute, sampleRoutes } from '../../audit/routes';
import { colaMcts, randomRoutes, samplingCeiling, silencingAllLayers } from '../../audit/presets';
import { majorityVote, maxLogprob } from '../../audit/selectors';
import { createPrng, type Prng } from '../../util/prng';
import { DEFAULT_CONDITION, blocksSpace } from '../lib/presets';

export interface ScriptOptions {
  id: string;
  modelName: string;
  numLayers: number;
  questions: number;
  /** Seeds the scripted outcomes (not a probe seed: every probe spec has seed 1). */
  seed: number;
  /** Recorded in the manifest as the run's question seed. */
  questionSeed: number;
  /** Probability the deployment answer is right. */
  skill: number;
  budgets: { random: number; mcts: number; sampling: number };
  silencing: boolean;
  startedAt?: string;
}

export const DEFAULT_SCRIPT: ScriptOptions = {
  id: 'fake-run-1',
  modelName: 'reachlab/micro-arith',
  numLayers: 8,
  questions: 24,
  seed: 7,
  questionSeed: 1,
  skill: 0.45,
  budgets: { random: 16, mcts: 16, sampling: 8 },
  silencing: true,
};

/** A question text that looks like markup: the UI must show it as text. */
export const MARKUP_QUESTION = 'What is <b>2</b> + <img src=x onerror="alert(1)"> 3?';

export function scriptedProbes(o: ScriptOptions): ProbeSpec[] {
  const probes: ProbeSpec[] = [
    { probe: DEPLOYMENT },
    randomRoutes(blocksSpace(o.numLayers), o.budgets.random, 1, false),
    colaMcts(o.numLayers, o.budgets.mcts, 1),
    samplingCeiling(o.budgets.sampling, 1),
  ];
  if (o.silencing) probes.push(silencingAllLayers(o.numLayers));
  return probes;
}

export function scriptedManifest(o: ScriptOptions): RunManifest {
  return {
    id: o.id,
    appVersion: '0.1.0',
    model: { fingerprint: `fp-${o.modelName}`, name: o.modelName, source: 'builtin' },
    task: { id: 'builtin:arith-2d', version: 1, questions: o.questions, question_seed: o.questionSeed },
    condition: DEFAULT_CONDITION,
    condition_key: 'fake-condition-key',
    probes: scriptedProbes(o),
    engine: { ep: 'wasm', dtype: 'f32' },
    startedAt: o.startedAt ?? '2025-01-01T00:00:00.000Z',
    status: 'finished',
  };
}

function attempt(index: number, route: number[], silence: number[], answer: string, target: string, rng: Prng, sample?: number): Attempt {
  const a: Attempt = {
    index,
    route,
    silence,
    response: `The answer is ${answer}`,
    extracted: answer,
    correct: answer === target,
    meanLogprob: -(0.05 + rng.next() * 2) * (answer === target ? 0.7 : 1), // log-probs are ≤ 0
  };
  if (sample !== undefined) a.sample = sample;
  return a;
}

/** FNV-1a, hex: scripted records are addressed by their content, as real ones are. */
function contentHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

function wrong(target: string, rng: Prng): string {
  return String(Number(target) + 1 + rng.int(9));
}

/** The audit core's picks; blind unless the attempts were chosen with the gold answer. */
function selectors(attempts: Attempt[], spec: ProbeSpec): Record<string, SelectorPick> {
  const blind = !probeOf(spec).sawGold;
  return { majority: { ...majorityVote(attempts), blind }, 'max-logprob': { ...maxLogprob(attempts), blind } };
}

/** The question records of one scripted question, in probe order. */
export function scriptedQuestion(o: ScriptOptions, qi: number, text: string, target: string, manifest: RunManifest): QuestionRecord[] {
  const rng = createPrng(o.seed * 1000 + qi, 3);
  const L = o.numLayers;
  const route0 = defaultRoute(L);
  const realized = rng.next() < o.skill;
  // Per-question chance that a perturbed attempt lands on the gold answer.
  const reachP = realized ? 0.6 : rng.next() < 0.55 ? 0.12 + rng.next() * 0.25 : 0;
  const docId = `test-${qi}`;
  const prompt = DEFAULT_CONDITION.promptTemplate.replace('{{question}}', text);
  const question = { doc: { id: docId, text, target }, prompt, doc_hash: `doc-${contentHash(`${docId}\u0000${text}\u0000${target}`)}`, prompt_hash: `prompt-${contentHash(prompt)}` };
  const record = (spec: ProbeSpec, attempts: Attempt[], extra?: Partial<QuestionRecord>): QuestionRecord =>
    makeRecord({
      question,
      spec,
      probe_key: `${spec.probe}:scripted-${manifest.probes.indexOf(spec)}`,
      condition_key: manifest.condition_key,
      model_fingerprint: manifest.model.fingerprint,
      task_id: manifest.task.id,
      task_version: manifest.task.version,
      attempts,
      condition: manifest.condition,
      // the probe's own fields first (random routes: how its routes were drawn), as the driver adds them
      extra: { ...probeOf(spec).recordFields?.(spec, { numLayers: L, condition: manifest.condition ?? DEFAULT_CONDITION, dependency: [] }), ...extra },
    });
  const answer = (p: number) => (rng.next() < p ? target : wrong(target, rng));
  // the scripted model, by what a probe's attempts are: the deployment attempt, routes drawn from a
  // space, one silenced layer each, or samples on the default route
  return manifest.probes.map((spec) => {
    if (isDeployment(spec)) return record(spec, [attempt(0, route0, [], realized ? target : wrong(target, rng), target, rng)]);
    if ('space' in spec) {
      const attempts = sampleRoutes(spec.space, drawCount(spec), rng).map((route, i) => attempt(i, route, [], answer(reachP), target, rng));
      return record(spec, attempts, { selectors: selectors(attempts, spec) });
    }
    if (isIntervention(spec) && 'layers' in spec) {
      // One layer (L/2) is the culprit for most reachable failures; silencing others rarely helps.
      const culprit = Math.floor(L / 2);
      const sil = spec.layers.map((layer, i) => {
        const p = realized ? (layer === culprit ? 0.85 : 0.97) : reachP > 0 ? (layer === culprit ? 0.75 : 0.05) : 0.01;
        return attempt(i, route0, [layer], answer(p), target, rng);
      });
      return record(spec, sil);
    }
    const budget = probeOf(spec).budget(spec);
    const samples = Array.from({ length: budget }, (_, i) => attempt(i, route0, [], answer(reachP * 0.8), target, rng, i));
    return record(spec, samples, { selectors: selectors(samples, spec) });
  });
}

export interface ScriptedRun {
  manifest: RunManifest;
  records: QuestionRecord[];
}

/** The text and gold answer of scripted question qi: arithmetic, except question 1 (markup-looking text). */
export function scriptedText(qi: number, p: { a: number; op: string; b: number; answer: number }): { text: string; target: string } {
  return qi === 1 ? { text: MARKUP_QUESTION, target: '5' } : { text: `${p.a} ${p.op} ${p.b} =`, target: String(p.answer) };
}

export function scriptedRun(options: Partial<ScriptOptions> = {}): ScriptedRun {
  const o = { ...DEFAULT_SCRIPT, ...options };
  const manifest = scriptedManifest(o);
  const problems = generateArith('arith-2d', 'test', o.questions, o.questionSeed);
  const records = problems.flatMap((p, qi) => {
    const { text, target } = scriptedText(qi, p);
    return scriptedQuestion(o, qi, text, target, manifest);
  });
  return { manifest: { ...manifest, finishedAt: '2025-01-01T00:10:00.000Z' }, records };
}

// Deterministic, plausible runs (manifest + question records) for the fake backend and for tests:
// arithmetic questions, a deployment attempt, route probes whose attempts sometimes reach the gold
// answer, a sampling probe, an MLP-silencing scan and the selectors (picked by the audit core's
// selector functions; not answer-blind over MCTS attempts), graded against the decoy answer by the
// audit core as well (wrong answers lie near the gold, so some are the decoy). Seeded (src/util/prng).

import type { Attempt, ProbeSpec, QuestionRecord, RunManifest, SelectorPick } from '../../audit/types';
import { decoyControl, decoyFields, type DecoyFields } from '../../audit/decoy';
import { generateArith } from '../../audit/tasks/arith';
import { defaultRoute, rankedSpace, sampleRoutes } from '../../audit/routes';
import { colaMcts } from '../../audit/presets';
import { majorityVote, maxLogprob } from '../../audit/selectors';
import { createPrng, type Prng } from '../../util/prng';
import { budgetOf } from '../lib/estimate';
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
  const space = blocksSpace(o.numLayers);
  const probes: ProbeSpec[] = [
    { probe: 'deployment' },
    { probe: 'random-routes', space, budget: o.budgets.random, seed: 1, shared: false },
    colaMcts(o.numLayers, o.budgets.mcts, 1),
    { probe: 'sampling', budget: o.budgets.sampling, temperature: 0.6, topP: 0.95, seed: 1 },
  ];
  if (o.silencing) probes.push({ probe: 'mlp-silencing', layers: Array.from({ length: o.numLayers }, (_, i) => i) });
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
function selectors(attempts: Attempt[], sawGold: boolean): Record<string, SelectorPick> {
  return { majority: { ...majorityVote(attempts), blind: !sawGold }, 'max-logprob': { ...maxLogprob(attempts), blind: !sawGold } };
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
  const base = {
    doc_id: docId,
    doc: { id: docId, text, target },
    target,
    arguments: { prompt },
    doc_hash: `doc-${contentHash(`${docId}\u0000${text}\u0000${target}`)}`,
    prompt_hash: `prompt-${contentHash(prompt)}`,
    condition_key: manifest.condition_key,
    model_fingerprint: manifest.model.fingerprint,
    task_id: manifest.task.id,
    task_version: manifest.task.version,
  };
  const record = (spec: ProbeSpec, attempts: Attempt[], sawGold: boolean, extra: Partial<QuestionRecord> = {}): QuestionRecord => {
    const first = attempts.findIndex((a) => a.correct);
    const probe = spec.probe;
    const budget = probe === 'deployment' ? 0 : budgetOf(spec);
    const stop_reason = probe === 'deployment' ? null : attempts.length < budget ? 'space-exhausted' : 'budget';
    const r: Omit<QuestionRecord, keyof DecoyFields> = {
      ...base,
      resps: attempts.map((a) => a.response),
      filtered_resps: attempts.map((a) => a.extracted),
      probe,
      probe_key: `${probe}:scripted-${manifest.probes.indexOf(spec)}`,
      probe_spec: spec,
      attempts,
      budget,
      stop_reason,
      first_success: first < 0 ? null : first,
      realized: probe === 'deployment' ? attempts[0].correct : null,
      reachable: probe === 'deployment' ? null : first >= 0 && first < budget,
      invalid: 0,
      selection_saw_gold: sawGold,
      ...extra,
    };
    return { ...r, ...decoyFields(r, decoyControl(manifest.condition)) };
  };
  const answer = (p: number) => (rng.next() < p ? target : wrong(target, rng));
  const out: QuestionRecord[] = [];
  for (const spec of manifest.probes) {
    switch (spec.probe) {
      case 'deployment':
        out.push(record(spec, [attempt(0, route0, [], realized ? target : wrong(target, rng), target, rng)], false));
        break;
      case 'random-routes':
      case 'mcts-routes':
      case 'depth-matched-routes': {
        const size = rankedSpace(spec.space).size; // a budget beyond the space is spent on all of it
        const n = BigInt(spec.budget) < size ? spec.budget : Number(size);
        const attempts = sampleRoutes(spec.space, n, rng).map((route, i) => attempt(i, route, [], answer(reachP), target, rng));
        const sawGold = spec.probe === 'mcts-routes';
        out.push(record(spec, attempts, sawGold, { ...(sawGold ? {} : { route_draw: 'per-question' as const }), selectors: selectors(attempts, sawGold) }));
        break;
      }
      case 'sampling': {
        const samples = Array.from({ length: spec.budget }, (_, i) => attempt(i, route0, [], answer(reachP * 0.8), target, rng, i));
        out.push(record(spec, samples, false, { selectors: selectors(samples, false) }));
        break;
      }
      case 'mlp-silencing': {
        // One layer (L/2) is the culprit for most reachable failures; silencing others rarely helps.
        const culprit = Math.floor(L / 2);
        const sil = spec.layers.map((layer, i) => {
          const p = realized ? (layer === culprit ? 0.85 : 0.97) : reachP > 0 ? (layer === culprit ? 0.75 : 0.05) : 0.01;
          return attempt(i, route0, [layer], answer(p), target, rng);
        });
        out.push(record(spec, sil, false));
        break;
      }
    }
  }
  return out;
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

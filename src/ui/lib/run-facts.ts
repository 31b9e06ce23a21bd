// What tells runs apart, as the Library and Compare show it: model, revision and commit, engine and dtype,
// probes with their budgets, seeds, questions, condition. And condition fields in the form's words.

import { isDeployment, seedOfSpec } from '../../audit';
import { probeSpecText } from '../../audit/run-definition';
import type { ProbeSpec, QuestionRecord, RunManifest } from '../../audit/types';
import { engineLabel } from './engine-label';
import { commitLabel, modelLabel } from './model-label';

export interface RunFact {
  label: string;
  value: string;
}

/** "random routes ×100 · blocks, sampling ×64, MLP silencing (8 layers)": each probe as it
 *  describes itself (an MCTS preset included), with the route space it draws from. */
export function probesText(probes: readonly ProbeSpec[]): string {
  const parts = probes.filter((p) => !isDeployment(p)).map(probeSpecText);
  return parts.length ? parts.join(', ') : 'deployment only';
}

/** Probe seeds: one number when all seeded probes share it. */
function seedsText(m: RunManifest): string {
  const seeds = [...new Set(m.probes.flatMap((p) => seedOfSpec(p) ?? []))];
  return `question ${m.task.question_seed ?? '—'}, probe ${seeds.length ? seeds.join('/') : '—'}`;
}

/** A run as a person tells it apart: "reachlab/micro-arith, random routes ×16 · blocks, 2026-12-07
 *  00:28 UTC" (model, probes and budgets, when it started), never its id. */
export function runName(m: Pick<RunManifest, 'model' | 'probes' | 'startedAt'>): string {
  const when = m.startedAt.slice(0, 16).replace('T', ' ');
  return `${modelLabel(m.model)}, ${probesText(m.probes)}, ${when} UTC`;
}

/** The facts of a run, in a fixed order (the rows of Compare's side-by-side table). */
export function runFacts(m: RunManifest): RunFact[] {
  return [
    { label: 'model', value: m.model.name },
    { label: 'revision', value: m.model.revision ?? '—' },
    { label: 'commit', value: m.model.commit ? commitLabel(m.model.commit) : '—' },
    { label: 'dtype', value: m.engine?.dtype ?? m.condition?.engineDtype ?? 'unknown' },
    { label: 'engine', value: m.engine ? engineLabel(m.engine) : 'unknown' },
    { label: 'task', value: `${m.task.id} v${m.task.version}` },
    { label: 'questions', value: String(m.task.questions) },
    { label: 'probes and budgets', value: probesText(m.probes) },
    { label: 'seeds', value: seedsText(m) },
    { label: 'condition key', value: m.condition ? m.condition_key.slice(0, 12) : 'unknown (imported)' },
  ];
}

/** The labels of the facts two runs differ in. */
export function differingFacts(a: RunManifest, b: RunManifest): string[] {
  const fb = runFacts(b);
  return runFacts(a)
    .filter((f, i) => f.value !== fb[i].value)
    .map((f) => f.label);
}

const CONDITION_FIELD: Record<string, string> = {
  promptTemplate: 'prompt template',
  chatTemplate: 'chat template',
  systemPrompt: 'system prompt',
  'fewShot.n': 'few-shot examples',
  'fewShot.seed': 'few-shot seed (the question seed)',
  'fewShot.delimiter': 'few-shot delimiter',
  'fewShot.targetDelimiter': 'few-shot answer delimiter',
  'fewShot.pool': 'few-shot pool',
  'decoding.kind': 'decoding (greedy or sampling)',
  'decoding.temperature': 'temperature',
  'decoding.topP': 'top-p',
  'decoding.seed': 'sampling seed',
  maxNewTokens: 'max new tokens',
  stopSequences: 'stop sequences',
  answerFormat: 'answer format',
  mcMode: 'multiple-choice mode',
  requireBoxed: 'answer required in \\boxed{}',
  graderVersion: 'grader version',
  engineDtype: 'dtype',
};

/** A condition field path (audit core's conditionDiff) in the Setup form's words. */
export function conditionFieldLabel(path: string): string {
  return Object.hasOwn(CONDITION_FIELD, path) ? CONDITION_FIELD[path] : path;
}

/** Where a run's records came from when some were imported, counted so a reader sees questions, not
 *  only records: "All 400 records of this run (200 questions × 2 probes, deployment included) were
 *  read from x.json, not computed here." */
export function importedText(source: { file: string; records: number }, records: readonly Pick<QuestionRecord, 'doc_id' | 'probe_key'>[]): string {
  const questions = new Set(records.map((r) => r.doc_id)).size;
  const probes = new Set(records.map((r) => r.probe_key)).size;
  const share = source.records === records.length ? `All ${records.length}` : `${source.records} of the ${records.length}`;
  return `${share} records of this run (${questions} ${questions === 1 ? 'question' : 'questions'} × ${probes} ${probes === 1 ? 'probe' : 'probes'}, deployment included) were read from ${source.file}, not computed here.`;
}

// Defaults the Setup screen offers: conditions and probe presets reproducing DESIGN.md's protocols.

import { defaultCondition } from '../../audit/condition';
import { drawCount } from '../../audit';
import { blocksSpace, colaCondition, colaMcts, colaSpace, neighborhoodSpace, programSelectionMcts, randomRoutes, samplingCeiling, silencingAllLayers } from '../../audit/presets';
import { builtinTask } from '../../audit/tasks/builtin';
import { hubPreset } from '../../audit/tasks/hub';
import type { Condition, ProbeSpec, TaskSpec } from '../../audit/types';
import type { EngineDtype } from '../../engine/types';

/** The condition the audit core prescribes for a task (its template, format, decoding defaults). */
export function taskCondition(taskId: string, engineDtype: EngineDtype = 'f32'): Condition {
  const [kind, ...rest] = taskId.split(':');
  const name = rest.join(':');
  const spec: TaskSpec =
    kind === 'hub'
      ? (() => {
          const p = hubPreset(name);
          return { id: taskId, name: p.name, answerFormat: p.answerFormat, promptTemplate: p.promptTemplate, metadata: { version: 1 }, numTest: 0, numTrain: 0 };
        })()
      : builtinTask(name, { questions: 1, trainQuestions: 0, seed: 1 }).spec;
  return defaultCondition(spec, engineDtype);
}

/** The default audit's condition: the built-in arithmetic task as the micro model was trained on it. */
export const DEFAULT_CONDITION: Condition = taskCondition('builtin:arith-2d');

/** CoLa's condition for the built-in task: greedy, 50 new tokens, the answer in \boxed{}. */
export const BOXED_CONDITION: Condition = colaCondition(builtinTask('arith-2d', { questions: 1, trainQuestions: 0, seed: 1 }).spec, 'f32');

// Route spaces are the audit core's (src/audit/presets.ts), so the app and the headless runner agree.
export { blocksSpace, neighborhoodSpace };

export type PresetId = 'cola-mcts' | 'program-selection-mcts' | 'sampling-ceiling' | 'uniform-routes' | 'silencing-scan';

export interface ProbePreset {
  id: PresetId;
  label: string;
  /** The probe's name in messages ("Random routes: the budget …"). */
  short: string;
  description: string;
  probe: (numLayers: number) => ProbeSpec;
  /** The protocol's budget before a model caps it to its route space (probes that take a budget). */
  nominalBudget?: number;
  /** The condition the protocol prescribes, when it prescribes one. */
  condition?: Condition;
}

export const PROBE_PRESETS: readonly ProbePreset[] = [
  {
    id: 'uniform-routes',
    label: 'Random routes (budget 100 distinct routes)',
    short: 'Random routes',
    nominalBudget: 100,
    description: 'Block routes drawn uniformly per question, without the gold answer: skip or repeat blocks of 1–4 layers.',
    probe: (L) => randomRoutes(blocksSpace(L), drawCount({ space: blocksSpace(L), budget: 100 }), 1, false),
  },
  {
    id: 'cola-mcts',
    label: 'CoLa MCTS, as released (budget 100 distinct routes)',
    short: 'CoLa MCTS',
    nominalBudget: 100,
    description:
      "CoLa's released search: a node reached first has all its children generated (root: skip or repeat a block of 1–4 layers; deeper: one position, a layer at most twice, no edit limit, lengths " +
      'within CoLa\'s limits) and one of them, uniform, evaluated; descent takes a uniform unfinished child with p = 0.1, else the highest UCB = mean − 5·len/L + √(2·ln(N_root + 1)/n); reward = gold correctness. ' +
      'Budget = distinct routes (CoLa ran 100 simulations). Its depth-matched random baseline runs beside it. Condition: greedy, 50 tokens, answer required in \\boxed{}.',
    probe: (L) => colaMcts(L, drawCount({ space: colaSpace(L), budget: 100 }), 1),
    condition: BOXED_CONDITION,
  },
  {
    id: 'program-selection-mcts',
    label: 'Program-selection MCTS, as released (budget 200 distinct routes)',
    short: 'Program-selection MCTS',
    nominalBudget: 200,
    description:
      'Neighborhood route space (radius 2, at most 3 changed positions; at the cap, actions re-edit or revert a changed position). Descent stops to expand with p = 0.5 where untried actions remain, else takes a random child with p decaying 0.8 → 0.1, ' +
      "else the highest mean + 1.8·√(ln N_parent / n); reward = gold correctness. Budget = distinct routes (it ran 200 simulations, some on routes already known). Its depth-matched random baseline runs beside it.",
    probe: (L) => programSelectionMcts(L, drawCount({ space: neighborhoodSpace(L), budget: 200 }), 1),
  },
  {
    id: 'sampling-ceiling',
    label: 'Sampling ceiling (pass@64, T = 0.6)',
    short: 'Sampling ceiling',
    nominalBudget: 64,
    description: 'Temperature 0.6, top-p 0.95, unbiased pass@k.',
    probe: () => samplingCeiling(64, 1),
  },
  {
    id: 'silencing-scan',
    label: 'MLP-silencing scan (every layer)',
    short: 'MLP-silencing scan',
    description:
      'Silence one MLP block at a time on every question. Needs a reachability probe in the same run: its failure set (reachable, not realized) is split in two halves, one identifies the layer, the other measures its repair rate.',
    probe: (L) => silencingAllLayers(L),
  },
];

export function presetById(id: PresetId): ProbePreset {
  const p = PROBE_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`unknown probe preset "${id}"`);
  return p;
}

/** Built-in tasks (generated offline) and Hub presets (rows from the datasets server). */
export const BUILTIN_TASKS = [
  { id: 'arith-1d', label: 'Arithmetic, one digit' },
  { id: 'arith-2d', label: 'Arithmetic, two digits' },
  { id: 'arith-3d', label: 'Arithmetic, three digits' },
  { id: 'arith-mul', label: 'Multiplication up to 30×30' },
] as const;

export const HUB_TASK_PRESETS = [
  { id: 'gsm8k', label: 'GSM8K (openai/gsm8k main/test, 1319)', total: 1319 },
  { id: 'arc-easy', label: 'ARC-Easy (allenai/ai2_arc test, 2376)', total: 2376 },
  { id: 'arc-challenge', label: 'ARC-Challenge (allenai/ai2_arc test, 1172)', total: 1172 },
  { id: 'mmlu:all', label: 'MMLU (cais/mmlu all/test, 14042)', total: 14042 },
  { id: 'commonsense_qa', label: 'CommonsenseQA (tau/commonsense_qa validation, 1221)', total: 1221 },
] as const;

/** Small Hub checkpoints the protocols use (DESIGN.md's training-audit pairs), offered as suggestions. */
export const SUGGESTED_MODELS = [
  'Qwen/Qwen2.5-0.5B',
  'Qwen/Qwen2.5-0.5B-Instruct',
  'hkust-nlp/Qwen-2.5-0.5B-SimpleRL-Zoo',
  'Qwen/Qwen2.5-Math-1.5B',
  'sail/Qwen2.5-Math-1.5B-Oat-Zero',
  'meta-llama/Llama-3.2-1B',
] as const;

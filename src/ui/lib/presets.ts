// Defaults the Setup screen offers: conditions and the probes' protocol presets (docs/ARCHITECTURE.md
// "Protocols to reproduce").

import { defaultCondition } from '../../audit/condition';
import { SETUP_PRESETS, type SetupPreset } from '../../audit';
import { blocksSpace, colaCondition, neighborhoodSpace } from '../../audit/presets';
import { builtinTask } from '../../audit/tasks/builtin';
import { hubTaskSpec } from '../../audit/tasks/hub';
import type { Condition, ProbeSpec, TaskSpec } from '../../audit/types';
import type { EngineDtype, ExecutionProvider } from '../../engine/types';

/** The condition the audit core prescribes for a task (its template, format, decoding defaults);
 *  with `cola`, CoLa's condition for it (presets.ts colaCondition, as the CLI's --boxed sets it). */
export function taskCondition(taskId: string, engineDtype: EngineDtype = 'f32', cola = false): Condition {
  const [kind, ...rest] = taskId.split(':');
  const name = rest.join(':');
  const spec: TaskSpec = kind === 'hub' ? hubTaskSpec(name) : builtinTask(name, { questions: 1, trainQuestions: 0, seed: 1 }).spec;
  return cola ? colaCondition(spec, engineDtype) : defaultCondition(spec, engineDtype);
}

/** The default audit's condition: the built-in arithmetic task as the micro model was trained on it. */
export const DEFAULT_CONDITION: Condition = taskCondition('builtin:arith-2d');

/** CoLa's condition for the built-in task: greedy, 50 new tokens, the answer in \boxed{}. */
export const BOXED_CONDITION: Condition = taskCondition('builtin:arith-2d', 'f32', true);

// Route spaces are the audit core's (src/audit/presets.ts), so the app and the headless runner agree.
export { blocksSpace, neighborhoodSpace };

export type PresetId = string;

/** A protocol the Setup screen offers: the probe's own (its file's `presets`); `boxed` when it
 *  prescribes CoLa's condition (SetupState.applyProtocol sets it for the chosen task). */
export type ProbePreset = SetupPreset<ProbeSpec>;

export const PROBE_PRESETS: readonly ProbePreset[] = SETUP_PRESETS;

export function presetById(id: PresetId): ProbePreset {
  const p = PROBE_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`unknown probe preset "${id}"`);
  return p;
}

/** A protocol's label with the budget chosen for it: "Random routes (budget 16 distinct routes;
 *  the protocol's is 100)", "Sampling ceiling (pass@16, T = 0.6; the protocol's is 64)". */
export function presetLabel(p: Pick<ProbePreset, 'label' | 'nominalBudget'>, budget: number | null): string {
  const nominal = p.nominalBudget;
  if (nominal === undefined || budget === null || budget === nominal) return p.label;
  const label = p.label.replace(new RegExp(`\\b(budget |pass@)${nominal}\\b`), `$1${budget}`);
  return label.endsWith(')') ? `${label.slice(0, -1)}; the protocol's is ${nominal})` : `${label} (the protocol's budget is ${nominal})`;
}

/** Small Hub checkpoints the protocols use (the training-audit pairs of docs/ARCHITECTURE.md), offered as suggestions. */
export const SUGGESTED_MODELS = [
  'Qwen/Qwen2.5-0.5B',
  'Qwen/Qwen2.5-0.5B-Instruct',
  'hkust-nlp/Qwen-2.5-0.5B-SimpleRL-Zoo',
  'Qwen/Qwen2.5-Math-1.5B',
  'sail/Qwen2.5-Math-1.5B-Oat-Zero',
  'meta-llama/Llama-3.2-1B',
] as const;

/** 4-bit dtypes, which WebAssembly runs but slowly (Setup does not offer them there). */
export const WASM_SLOW_DTYPES: readonly EngineDtype[] = ['q4', 'q4f16'];

/** What Setup says beside a dtype whose cost depends on the engine (README "Engine"); null: nothing. */
export function dtypeHint(dtype: EngineDtype, ep: ExecutionProvider, epChosen: boolean): string | null {
  if (dtype === 'q8') {
    return 'q8: every projection in 8 bits (int8 weights times int8 activations, exact integer products), the LM head in f32. '
      + 'WebAssembly only: there batched audits run faster than f32 in less memory, and one sequence decodes about as fast. '
      + 'Its numbers are an 8-bit model’s and are recorded as q8.';
  }
  if (WASM_SLOW_DTYPES.includes(dtype) && ep === 'wasm') {
    return `${dtype} on WebAssembly saves memory, not time: onnxruntime-web expands 4-bit weights to f32 on every product, `
      + `about 10× slower than f32. ${epChosen ? 'Not offered on WebAssembly; ' : ''}use q8 on the CPU, ${dtype} on WebGPU.`;
  }
  return null;
}

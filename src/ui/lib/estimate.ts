// How many attempts a run makes and roughly how long it takes, before it starts.

import { probeOf } from '../../audit';
import type { ProbeSpec } from '../../audit/types';
import type { EngineDtype, ExecutionProvider } from '../../engine/types';

/** questions × the most attempts each probe makes on a question (the registry's maxAttempts:
 *  deployment's one attempt, a budget capped by its route space, one per silenced layer). */
export function attemptsOf(questions: number, probes: readonly ProbeSpec[]): number {
  if (!Number.isInteger(questions) || questions < 0) throw new RangeError(`attemptsOf: questions must be a non-negative integer, got ${questions}`);
  return questions * probes.reduce((s, p) => s + probeOf(p).maxAttempts(p), 0);
}

export interface TimeEstimate {
  seconds: number;
  /** 'measured' when derived from a past run on this device, else a rough prior. */
  basis: 'measured' | 'prior';
}

/** A past run's pace on this device (lib/rates.ts). */
export interface PastRate {
  attemptsPerSecond: number;
  maxNewTokens: number;
}

// Rough priors for one decode step of a 0.5B-parameter model, batch-amortized; they only order the
// estimate's magnitude (minutes vs hours). A measured attempts/s from a past run replaces them.
// (cpu and cuda run in Node only: the app sees them in runs the CLIs made)
const PRIOR_MS_PER_TOKEN: Record<ExecutionProvider, number> = { webgpu: 4, wasm: 40, cpu: 40, cuda: 4 };
const PRIOR_BYTES = 2e9; // ~0.5B parameters in f32
// q8: bench:peer's batched route workload runs 1.8× f32 on WASM (one sequence decodes at f32's pace)
const DTYPE_SPEEDUP: Record<EngineDtype, number> = { f32: 1, f16: 1.6, q4: 2, q4f16: 2.5, q8: 1.8, q8b: 1.8 }; // q8b: Node's native CPU EP only, never estimated in the app

export function estimateTime(opts: {
  attempts: number;
  maxNewTokens: number;
  ep: ExecutionProvider;
  dtype: EngineDtype;
  weightBytes?: number;
  /** The pace a past run of this model, engine and dtype measured here; an attempt's cost is taken
   *  to grow with max new tokens. */
  measured?: PastRate | null;
}): TimeEstimate {
  const m = opts.measured;
  if (m && m.attemptsPerSecond > 0 && m.maxNewTokens > 0) {
    return { seconds: (opts.attempts / m.attemptsPerSecond) * (opts.maxNewTokens / m.maxNewTokens), basis: 'measured' };
  }
  // floor: a tiny model still pays the dispatch cost of every step (the 224k-parameter built-in model
  // measures about 2 ms per attempt at 8 new tokens on WebAssembly, batched)
  const scale = Math.max(0.005, (opts.weightBytes ?? PRIOR_BYTES) / PRIOR_BYTES);
  const msPerAttempt = (opts.maxNewTokens * PRIOR_MS_PER_TOKEN[opts.ep] * scale) / DTYPE_SPEEDUP[opts.dtype];
  return { seconds: (opts.attempts * msPerAttempt) / 1000, basis: 'prior' };
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 1) return 'under 1 s';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.round(seconds / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = bytes;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** Whether weights of this size fit: under half of the device memory the browser reports
 *  (navigator.deviceMemory, capped at 8 GiB by browsers). null when it reports none. */
export function fitsDevice(weightBytes: number, deviceMemoryGiB: number | undefined): boolean | null {
  if (deviceMemoryGiB === undefined) return null;
  return weightBytes <= (deviceMemoryGiB * 2 ** 30) / 2;
}

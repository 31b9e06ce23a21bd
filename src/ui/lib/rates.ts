// Attempts per second measured by past runs on this device, per model, engine, dtype and probes
// with their budgets (a search proposes one attempt at a time, sampling a whole budget at once: the
// pace of one says little of another's): the time estimate before a run comes from them. Kept in
// localStorage; a missing or unreadable entry is simply "not measured yet".

import { probeOf } from '../../audit';
import type { ProbeSpec } from '../../audit/types';
import type { EngineDtype, ExecutionProvider } from '../../engine/types';
import type { StudyProgress } from '../backend';

/** v1 kept one pace per model, engine and dtype whatever the probes. */
const KEY = 'reachlab.rates.v2';

export interface RateKey {
  fingerprint: string;
  ep: ExecutionProvider;
  dtype: EngineDtype;
  /** The run's probes and the most attempts each makes per question (probeMix). */
  probes: string;
}

/** "deployment×1,random-routes×16,sampling×64": a run's probes, order aside. */
export function probeMix(probes: readonly ProbeSpec[]): string {
  return probes.map((p) => `${p.probe}×${probeOf(p).maxAttempts(p)}`).sort().join(',');
}

export interface MeasuredRate {
  attemptsPerSecond: number;
  /** The run's max new tokens: an attempt's cost grows with it. */
  maxNewTokens: number;
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem'> | null;

const idOf = (k: RateKey) => `${k.fingerprint}|${k.ep}|${k.dtype}|${k.probes}`;

function readAll(storage: Storage): Record<string, MeasuredRate> {
  try {
    const v = JSON.parse(storage?.getItem(KEY) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function measuredRate(storage: Storage, key: RateKey): MeasuredRate | null {
  const r = readAll(storage)[idOf(key)];
  return r && r.attemptsPerSecond > 0 && r.maxNewTokens > 0 ? r : null;
}

export function saveRate(storage: Storage, key: RateKey, rate: MeasuredRate): void {
  if (!(rate.attemptsPerSecond > 0) || !Number.isFinite(rate.attemptsPerSecond)) return;
  try {
    storage?.setItem(KEY, JSON.stringify({ ...readAll(storage), [idOf(key)]: rate }));
  } catch {
    // storage full or disabled: the estimate stays a rough one
  }
}

/** The pace of a study's run that has just ended (`after` moved past `before`'s current run), to
 *  keep as a run of this tab keeps its own; null while it goes on, or when it computed nothing. */
export function endedStudyRate(before: StudyProgress | null, after: StudyProgress): { key: RateKey; rate: MeasuredRate } | null {
  const c = before?.current;
  if (!c?.measured || !c.attemptsPerSec || after.current?.runId === c.runId) return null;
  const m = c.measured;
  return { key: { fingerprint: m.fingerprint, ep: m.ep, dtype: m.dtype, probes: probeMix(m.probes) }, rate: { attemptsPerSecond: c.attemptsPerSec, maxNewTokens: m.maxNewTokens } };
}

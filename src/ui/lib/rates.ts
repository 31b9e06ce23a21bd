// Attempts per second measured by past runs on this device, per model, engine and dtype: the time
// estimate before a run comes from them. Kept in localStorage; a missing or unreadable entry is
// simply "not measured yet".

import type { EngineDtype, ExecutionProvider } from '../../engine/types';

const KEY = 'reachlab.rates.v1';

export interface RateKey {
  fingerprint: string;
  ep: ExecutionProvider;
  dtype: EngineDtype;
}

export interface MeasuredRate {
  attemptsPerSecond: number;
  /** The run's max new tokens: an attempt's cost grows with it. */
  maxNewTokens: number;
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem'> | null;

const idOf = (k: RateKey) => `${k.fingerprint}|${k.ep}|${k.dtype}`;

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

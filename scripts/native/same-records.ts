// Two study runs' records side by side (scripts/native/check.ts: WASM against the native CPU EP):
// every field equal, except each attempt's meanLogprob, a float the two runtimes' kernels round
// differently in the last bits, which must agree within LOGPROB_BOUND (measured on the built-in
// study: 5,172 records, every other field equal, |Δ meanLogprob| at most 1.5e-4).
export const LOGPROB_BOUND = 1e-3;

export interface RecordsDiff {
  runs: number;
  records: number;
  /** Largest |Δ meanLogprob| over every attempt. */
  maxLogprobDiff: number;
  /** What differs beyond the bound, one line each (the first 20). */
  differences: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Compares the records of run files with the same run keys (key → records). */
export function compareRecords(a: ReadonlyMap<string, Json[]>, b: ReadonlyMap<string, Json[]>): RecordsDiff {
  const out: RecordsDiff = { runs: 0, records: 0, maxLogprobDiff: 0, differences: [] };
  const note = (line: string) => void (out.differences.length < 20 && out.differences.push(line));
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const [ra, rb] = [a.get(key), b.get(key)];
    if (!ra || !rb) {
      note(`run ${key.slice(0, 12)}: only in ${ra ? 'the first' : 'the second'}`);
      continue;
    }
    out.runs++;
    if (ra.length !== rb.length) note(`run ${key.slice(0, 12)}: ${ra.length} vs ${rb.length} records`);
    for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
      out.records++;
      walk(ra[i], rb[i], `run ${key.slice(0, 12)} record ${i}`, out, note);
    }
  }
  return out;
}

/** Where two JSON values differ, one line each (the first 20). */
export function jsonDifferences(x: Json, y: Json, at = ''): string[] {
  const out: RecordsDiff = { runs: 0, records: 0, maxLogprobDiff: 0, differences: [] };
  walk(x, y, at, out, (l) => void (out.differences.length < 20 && out.differences.push(l)), false);
  return out.differences;
}

function walk(x: Json, y: Json, at: string, out: RecordsDiff, note: (l: string) => void, bounded = true): void {
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null && Array.isArray(x) === Array.isArray(y)) {
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const k of keys) {
      const [vx, vy] = [(x as Record<string, Json>)[k], (y as Record<string, Json>)[k]];
      if (bounded && k === 'meanLogprob' && typeof vx === 'number' && typeof vy === 'number') {
        const d = Math.abs(vx - vy);
        out.maxLogprobDiff = Math.max(out.maxLogprobDiff, d);
        if (!(d <= LOGPROB_BOUND)) note(`${at}.${k}: ${vx} vs ${vy}`);
      } else walk(vx ?? null, vy ?? null, `${at}.${k}`, out, note, bounded);
    }
    return;
  }
  if (x !== y) note(`${at}: ${JSON.stringify(x)?.slice(0, 80)} vs ${JSON.stringify(y)?.slice(0, 80)}`);
}

// Small estimators the result screens need.

export interface Interval {
  lo: number;
  hi: number;
}

/** Wilson score interval for k successes in n trials (z = 1.96 → 95%). n must be ≥ 1. */
export function wilson(k: number, n: number, z = 1.96): Interval {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`wilson: n must be a positive integer, got ${n}`);
  if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError(`wilson: k must be an integer in [0, ${n}], got ${k}`);
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { lo: Math.max(0, center - half), hi: Math.min(1, center + half) };
}

/** Unbiased pass@k = 1 − C(n−c, k) / C(n, k) for c correct among n draws (Chen et al.), 1 ≤ k ≤ n. */
export function passAtK(n: number, c: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`passAtK: k must be in [1, ${n}], got ${k}`);
  if (c < 0 || c > n) throw new RangeError(`passAtK: c must be in [0, ${n}], got ${c}`);
  if (n - c < k) return 1;
  // C(n−c, k)/C(n, k) = Π_{i=n−c+1..n} (1 − k/i), stable for large n.
  let q = 1;
  for (let i = n - c + 1; i <= n; i++) q *= 1 - k / i;
  return 1 - q;
}

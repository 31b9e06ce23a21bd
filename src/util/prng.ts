// Seeded PRNG shared by the engine (sampling) and the audit (route draws, few-shot picks, tasks).
//
// Algorithm: SplitMix32 to expand the seed, then xoshiro128** (Blackman & Vigna, 2018) on four
// 32-bit words, all in Math.imul / >>> 0 integer arithmetic, so every JS engine, worker and
// execution provider produces the same stream for the same seed. A general-purpose library
// would add a dependency for ~30 lines whose exact bit stream we must pin anyway.

export interface Prng {
  /** Uniform 32-bit unsigned integer. */
  nextU32(): number;
  /** Uniform float in [0, 1) with 32 bits of resolution. */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

/** A PRNG from an integer seed; `stream` derives independent streams from one seed. */
export function createPrng(seed: number, stream = 0): Prng {
  const sm = splitmix32((seed >>> 0) ^ Math.imul(stream >>> 0, 0x632be5ab));
  const s = [sm(), sm(), sm(), sm()];
  const nextU32 = () => {
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    for (let i = 0; i < 4; i++) s[i] >>>= 0;
    return result;
  };
  const next = () => nextU32() / 4294967296;
  const int = (n: number) => {
    if (!(n > 0) || !Number.isInteger(n)) throw new RangeError(`prng.int: n must be a positive integer, got ${n}`);
    return Math.floor(next() * n);
  };
  return { nextU32, next, int };
}

/** Fisher–Yates shuffle of a copy. */
export function shuffled<T>(items: readonly T[], rng: Prng): T[] {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// Rotary inverse frequencies as Hugging Face computes them (`_compute_default_rope_parameters`,
// `_compute_llama3_parameters`), in float64: the one definition the engine's rotary caches
// (graph/rope.ts), the float64 reference (reference.ts) and the micro model's trainer read.

/** What the frequencies depend on (ModelConfig's fields, or the trainer's MicroConfig's). */
export interface RopeConfig {
  headDim: number;
  ropeTheta: number;
  ropeScaling: null | { factor: number; lowFreqFactor: number; highFreqFactor: number; originalMaxPositionEmbeddings: number };
}

/** inv_freq[i] = 1 / theta^(2i/headDim), i in [0, headDim/2), with llama3 scaling when configured:
 *  wavelengths above original/lowFreqFactor divided by `factor`, below original/highFreqFactor kept,
 *  and in between a smooth blend of the two. */
export function inverseFrequencies(c: RopeConfig): Float64Array<ArrayBuffer> {
  const half = c.headDim / 2;
  const inv = Float64Array.from({ length: half }, (_, i) => 1 / Math.pow(c.ropeTheta, (2 * i) / c.headDim));
  const s = c.ropeScaling;
  if (!s) return inv;
  const lowWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
  const highWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
  return inv.map((f) => {
    const wavelen = (2 * Math.PI) / f;
    if (wavelen < highWavelen) return f;
    if (wavelen > lowWavelen) return f / s.factor;
    const smooth = (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
    return (1 - smooth) * (f / s.factor) + smooth * f;
  });
}

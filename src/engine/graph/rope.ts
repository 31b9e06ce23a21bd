// Rotary caches for com.microsoft RotaryEmbedding (interleaved=0, i.e. rotate-half):
// cos/sin of position * inv_freq, shape [maxPositions, headDim/2], computed in float64 with any
// llama3 rope_scaling applied to inv_freq (engine/rope.ts).
import { inverseFrequencies, type RopeConfig } from '../rope.ts';

/** cos and sin caches [maxPositions, headDim/2] as float32. */
export function rotaryCaches(
  config: RopeConfig,
  maxPositions: number,
): { cos: Float32Array; sin: Float32Array } {
  const inv = inverseFrequencies(config);
  const half = inv.length;
  const cos = new Float32Array(maxPositions * half);
  const sin = new Float32Array(maxPositions * half);
  for (let p = 0; p < maxPositions; p++) {
    for (let i = 0; i < half; i++) {
      const a = p * inv[i];
      cos[p * half + i] = Math.cos(a);
      sin[p * half + i] = Math.sin(a);
    }
  }
  return { cos, sin };
}

// Rotary caches for com.microsoft RotaryEmbedding (interleaved=0, i.e. rotate-half):
// cos/sin of position * inv_freq, shape [maxPositions, headDim/2], computed in float64 with any
// llama3 rope_scaling applied to inv_freq (as Hugging Face `_compute_llama3_parameters`).
import type { ModelConfig } from '../types.ts';

/** inv_freq[i] = theta^(-2i/headDim), i in [0, headDim/2), with llama3 scaling when configured. */
export function inverseFrequencies(config: Pick<ModelConfig, 'headDim' | 'ropeTheta' | 'ropeScaling'>): Float64Array {
  const half = config.headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / Math.pow(config.ropeTheta, (2 * i) / config.headDim);
  const s = config.ropeScaling;
  if (!s) return inv;
  const lowWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
  const highWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
  for (let i = 0; i < half; i++) {
    const wavelen = (2 * Math.PI) / inv[i];
    if (wavelen > lowWavelen) {
      inv[i] = inv[i] / s.factor;
    } else if (wavelen >= highWavelen) {
      const smooth = (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      inv[i] = (1 - smooth) * (inv[i] / s.factor) + smooth * inv[i];
    }
  }
  return inv;
}

/** cos and sin caches [maxPositions, headDim/2] as float32. */
export function rotaryCaches(
  config: Pick<ModelConfig, 'headDim' | 'ropeTheta' | 'ropeScaling'>,
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

// 4-bit block quantization in the layout of com.microsoft MatMulNBits (bits=4, block_size=32):
// a weight W [N, K] (Hugging Face [out, in]) is cut along K into blocks of 32; each block stores
// 16 bytes of nibbles (element 2j in the low nibble of byte j, 2j+1 in the high nibble), one f32
// scale and one 4-bit zero point (two per byte, even block in the low nibble).
// Asymmetric: scale = (max - min) / 15, zp = round(-min / scale), q = clamp(round(w / scale) + zp, 0, 15),
// so w ≈ (q - zp) * scale. K that is not a multiple of 32 is zero-padded.

export const Q4_BLOCK = 32;

export interface Q4Weight {
  n: number;
  k: number;
  /** [N, kBlocks, 16] */
  packed: Uint8Array;
  /** [N * kBlocks] */
  scales: Float32Array;
  /** [N * ceil(kBlocks / 2)] */
  zeroPoints: Uint8Array;
}

export function quantizeQ4(w: Float32Array, n: number, k: number): Q4Weight {
  if (w.length !== n * k) throw new RangeError(`quantizeQ4: weight has ${w.length} values, expected ${n}×${k}`);
  const out = allocQ4(n, k);
  quantizeQ4Rows(w, n, out, 0);
  return out;
}

/** A zeroed Q4Weight for an [n, k] weight, filled by quantizeQ4Rows. */
export function allocQ4(n: number, k: number): Q4Weight {
  const kBlocks = Math.ceil(k / Q4_BLOCK);
  return {
    n,
    k,
    packed: new Uint8Array(n * kBlocks * (Q4_BLOCK / 2)),
    scales: new Float32Array(n * kBlocks),
    zeroPoints: new Uint8Array(n * Math.ceil(kBlocks / 2)),
  };
}

/** Quantizes `rows` rows of `w` ([rows, out.k], row-major) into rows [row0, row0 + rows) of `out`. */
export function quantizeQ4Rows(w: Float32Array, rows: number, out: Q4Weight, row0: number): void {
  const k = out.k;
  const kBlocks = Math.ceil(k / Q4_BLOCK);
  const zpStride = Math.ceil(kBlocks / 2);
  const { packed, scales, zeroPoints } = out;
  for (let r = 0; r < rows; r++) {
    const row = row0 + r;
    for (let b = 0; b < kBlocks; b++) {
      const start = r * k + b * Q4_BLOCK;
      const len = Math.min(Q4_BLOCK, k - b * Q4_BLOCK);
      let min = 0;
      let max = 0; // include 0 so padding and zero stay exact
      for (let i = 0; i < len; i++) {
        const v = w[start + i];
        if (v < min) min = v;
        if (v > max) max = v;
      }
      const scale = (max - min) / 15 || 1;
      const zp = Math.min(15, Math.max(0, Math.round(-min / scale)));
      const base = (row * kBlocks + b) * (Q4_BLOCK / 2);
      // q = clamp(round(v / scale) + zp, 0, 15); v / scale + zp >= -0.5 here, so round = trunc(x + 0.5)
      const inv = 1 / scale;
      const bias = zp + 0.5;
      if (len === Q4_BLOCK) {
        for (let j = 0; j < Q4_BLOCK / 2; j++) {
          const q0 = (w[start + 2 * j] * inv + bias) | 0;
          const q1 = (w[start + 2 * j + 1] * inv + bias) | 0;
          packed[base + j] = (q0 < 0 ? 0 : q0 > 15 ? 15 : q0) | ((q1 < 0 ? 0 : q1 > 15 ? 15 : q1) << 4);
        }
      } else {
        for (let i = 0; i < Q4_BLOCK; i++) {
          let q = ((i < len ? w[start + i] : 0) * inv + bias) | 0;
          q = q < 0 ? 0 : q > 15 ? 15 : q;
          packed[base + (i >> 1)] |= i & 1 ? q << 4 : q;
        }
      }
      scales[row * kBlocks + b] = scale;
      zeroPoints[row * zpStride + (b >> 1)] |= b & 1 ? zp << 4 : zp;
    }
  }
}

/** The f32 weight [N, K] a Q4Weight stands for (tests and precision reports). */
export function dequantizeQ4(q: Q4Weight): Float32Array {
  const kBlocks = Math.ceil(q.k / Q4_BLOCK);
  const zpStride = Math.ceil(kBlocks / 2);
  const out = new Float32Array(q.n * q.k);
  for (let row = 0; row < q.n; row++) {
    for (let i = 0; i < q.k; i++) {
      const b = (i / Q4_BLOCK) | 0;
      const j = i % Q4_BLOCK;
      const byte = q.packed[(row * kBlocks + b) * (Q4_BLOCK / 2) + (j >> 1)];
      const nib = j & 1 ? byte >> 4 : byte & 15;
      const zpByte = q.zeroPoints[row * zpStride + (b >> 1)];
      const zp = b & 1 ? zpByte >> 4 : zpByte & 15;
      out[row * q.k + i] = (nib - zp) * q.scales[row * kBlocks + b];
    }
  }
  return out;
}

// 8-bit per-output-channel quantization for ONNX MatMulInteger (the q8 dtype): each row of a weight
// W [N, K] gets one f32 scale = max|w| / 127 and int8 values q = round(w / scale) in [-127, 127],
// so w ≈ q · scale (symmetric: no zero point, and -128 never used, so q and -q both fit).

export const Q8_MAX = 127;

/** Quantizes `rows` rows of `w` ([rows, k], row-major) into `values` ([rows, k]) and `scales` ([rows]). */
export function quantizeQ8Rows(w: Float32Array, rows: number, k: number, values: Int8Array, scales: Float32Array): void {
  for (let r = 0; r < rows; r++) {
    const start = r * k;
    let max = 0;
    for (let i = 0; i < k; i++) {
      const a = Math.abs(w[start + i]);
      if (a > max) max = a;
    }
    const scale = max / Q8_MAX || 1; // an all-zero row stays exactly zero
    const inv = 1 / scale;
    for (let i = 0; i < k; i++) values[start + i] = Math.round(w[start + i] * inv);
    scales[r] = scale;
  }
}

// 8-bit blocks for com.microsoft MatMulNBits (bits=8, block_size=32), the q8b dtype for the native
// CPU provider, whose accuracy_level 4 kernel multiplies them by int8 activations quantized block
// by block inside the kernel (about 40× MatMulInteger there: npm run bench:q8-kernels). Each block
// of 32 along K of a row of W [N, K] gets scale = max|w| / 127 and bytes q = round(w / scale) + 128
// (MatMulNBits' default zero point for 8 bits, so no zero-point input), w ≈ (q - 128) · scale.
// K that is not a multiple of 32 is zero-padded (byte 128).

const Q8_BLOCK_ZERO = 128;

/** Quantizes `rows` rows of `w` ([rows, k], row-major) into rows [row0, row0 + rows) of
 *  `packed` ([N, kBlocks, 32]) and `scales` ([N, kBlocks]). */
export function quantizeQ8BlockRows(w: Float32Array, rows: number, k: number, packed: Uint8Array, scales: Float32Array, row0: number): void {
  const kBlocks = Math.ceil(k / Q4_BLOCK);
  for (let r = 0; r < rows; r++) {
    for (let b = 0; b < kBlocks; b++) {
      const start = r * k + b * Q4_BLOCK;
      const len = Math.min(Q4_BLOCK, k - b * Q4_BLOCK);
      let max = 0;
      for (let i = 0; i < len; i++) {
        const v = w[start + i];
        if (v > max) max = v;
        else if (-v > max) max = -v;
      }
      const scale = max / Q8_MAX || 1; // an all-zero block stays exactly zero
      const inv = 1 / scale;
      const base = ((row0 + r) * kBlocks + b) * Q4_BLOCK;
      // round(v / scale) + 128 with v / scale in [-127, 127]: the sum plus 0.5 is positive, so
      // truncation rounds half up exactly as Math.round does (a load quantizes every weight here)
      for (let i = 0; i < len; i++) packed[base + i] = (w[start + i] * inv + (Q8_BLOCK_ZERO + 0.5)) | 0;
      packed.fill(Q8_BLOCK_ZERO, base + len, base + Q4_BLOCK);
      scales[(row0 + r) * kBlocks + b] = scale;
    }
  }
}

/** The f32 weight [N, K] 8-bit blocks stand for (tests and precision reports). */
export function dequantizeQ8Blocks(packed: Uint8Array, scales: Float32Array, n: number, k: number): Float32Array {
  const kBlocks = Math.ceil(k / Q4_BLOCK);
  const out = new Float32Array(n * k);
  for (let row = 0; row < n; row++) {
    for (let i = 0; i < k; i++) {
      const b = (i / Q4_BLOCK) | 0;
      out[row * k + i] = (packed[(row * kBlocks + b) * Q4_BLOCK + (i % Q4_BLOCK)] - Q8_BLOCK_ZERO) * scales[row * kBlocks + b];
    }
  }
  return out;
}

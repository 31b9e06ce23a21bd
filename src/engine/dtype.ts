// Float formats of stored weights: BF16 and F16 have no JS type (and BF16 no GPU type), so they
// are converted to f32 on load; f32 -> f16 / bf16 for f16 engines and for tests. Little-endian.

/** bf16 bits -> f32: the bf16 bits are the top half of the f32 bits. */
export function bf16ToF32(src: Uint16Array, out = new Float32Array(src.length)): Float32Array {
  const u32 = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < src.length; i++) u32[i] = src[i] << 16;
  return out;
}

let f16Table: Float32Array | undefined;
/** All 65536 f16 values as f32 (256 KB, built once). */
function f16ToF32Table(): Float32Array {
  if (f16Table) return f16Table;
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) table[h] = f16BitsToNumber(h);
  f16Table = table;
  return table;
}

/** One f16 bit pattern -> number (exact). */
export function f16BitsToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24; // zero / subnormal
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export function f16ToF32(src: Uint16Array, out = new Float32Array(src.length)): Float32Array {
  const table = f16ToF32Table();
  for (let i = 0; i < src.length; i++) out[i] = table[src[i]];
  return out;
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** number -> f16 bits, round to nearest even; overflow -> ±Inf; NaN -> quiet NaN. */
export function numberToF16Bits(x: number): number {
  f32Scratch[0] = x;
  const bits = u32Scratch[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15; // f16 biased exponent
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // subnormal f16 (or zero): value = m * 2^-24 with m = round(full mantissa >> shift)
    if (e < -10) return sign;
    const full = mant | 0x800000;
    const shift = 14 - e; // 14..24
    let m = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && m & 1)) m++;
    return sign | m; // m may carry into the smallest normal: still the right bits
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++; // carry may reach Inf: still right
  return sign | h;
}

export function f32ToF16(src: Float32Array, out = new Uint16Array(src.length)): Uint16Array {
  for (let i = 0; i < src.length; i++) out[i] = numberToF16Bits(src[i]);
  return out;
}

/** f32 -> bf16 bits, round to nearest even; NaN stays NaN. */
export function f32ToBf16(src: Float32Array, out = new Uint16Array(src.length)): Uint16Array {
  const u32 = new Uint32Array(src.buffer, src.byteOffset, src.length);
  for (let i = 0; i < src.length; i++) {
    const bits = u32[i];
    if ((bits & 0x7f800000) === 0x7f800000 && bits & 0x7fffff) {
      out[i] = (bits >>> 16) | 0x40;
      continue;
    }
    out[i] = (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
  }
  return out;
}

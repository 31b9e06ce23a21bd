// F16 conversion and a safetensors writer (8-byte little-endian header length, JSON header padded
// with spaces to 8 bytes, tensors back to back in header order).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE binary16 bits of a float, rounded to nearest even; throws on NaN or overflow. */
export function f32ToF16Bits(value: number): number {
  if (Number.isNaN(value)) throw new Error('f32ToF16Bits: NaN cannot be stored');
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  const e = exp - 127 + 15;
  if (exp === 0xff || e >= 0x1f) throw new Error(`f32ToF16Bits: ${value} is outside the float16 range`);
  if (e <= 0) {
    if (e < -10) return sign;
    const full = mant | 0x800000;
    const shift = 14 - e;
    let half = full >>> shift;
    const rem = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // a carry into the exponent is still correct
  if ((half & 0x7c00) === 0x7c00) throw new Error(`f32ToF16Bits: ${value} rounds past the float16 range`);
  return sign | half;
}

export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** Values as float16 would store them (for evaluating exactly what ships). */
export function roundToF16(values: Float32Array): Float32Array {
  return values.map((v) => f16BitsToF32(f32ToF16Bits(v)));
}

export interface NamedTensor {
  name: string;
  shape: number[];
  values: Float32Array;
}

/** A safetensors file with every tensor stored as F16. */
export function encodeSafetensorsF16(tensors: readonly NamedTensor[], metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt', ...metadata } };
  const names = new Set<string>();
  let offset = 0;
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`safetensors: duplicate tensor name ${t.name}`);
    names.add(t.name);
    const size = t.shape.reduce((a, b) => a * b, 1);
    if (size !== t.values.length) throw new Error(`safetensors: ${t.name} has ${t.values.length} values, shape [${t.shape}] needs ${size}`);
    header[t.name] = { dtype: 'F16', shape: t.shape, data_offsets: [offset, offset + 2 * size] };
    offset += 2 * size;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let pos = 8 + headerBytes.length;
  for (const t of tensors) {
    for (let i = 0; i < t.values.length; i++, pos += 2) {
      try {
        view.setUint16(pos, f32ToF16Bits(t.values[i]), true);
      } catch (e) {
        throw new Error(`safetensors: ${t.name}[${i}]: ${(e as Error).message}`);
      }
    }
  }
  return out;
}

/** Reads a safetensors file's F16 / BF16 / F32 tensors as float32 (for checks and tests). */
export function decodeSafetensors(bytes: Uint8Array): NamedTensor[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8) throw new Error('safetensors: file shorter than its 8-byte header length');
  const n = Number(view.getBigUint64(0, true));
  if (8 + n > bytes.length) throw new Error(`safetensors: header length ${n} exceeds the file`);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const base = 8 + n;
  return Object.entries(header)
    .filter(([name]) => name !== '__metadata__')
    .map(([name, { dtype, shape, data_offsets: [start, end] }]) => {
      const size = shape.reduce((a, b) => a * b, 1);
      const width = dtype === 'F32' ? 4 : dtype === 'F16' || dtype === 'BF16' ? 2 : 0;
      if (!width) throw new Error(`safetensors: ${name} has unsupported dtype ${dtype}`);
      if (end - start !== size * width || base + end > bytes.length) throw new Error(`safetensors: ${name} offsets [${start}, ${end}] do not fit shape [${shape}] ${dtype}`);
      const values = new Float32Array(size);
      for (let i = 0; i < size; i++) {
        const at = base + start + i * width;
        values[i] = dtype === 'F32' ? view.getFloat32(at, true) : dtype === 'F16' ? f16BitsToF32(view.getUint16(at, true)) : bf16ToF32(view.getUint16(at, true));
      }
      return { name, shape, values };
    });
}

function bf16ToF32(bits: number): number {
  u32[0] = bits << 16;
  return f32[0];
}

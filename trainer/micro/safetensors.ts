// The micro model's weight file, over the engine's own dtype conversion and safetensors writer and
// parser: values as F16 stores them, the F16 file it ships in, and a reader for checks and tests.

import { bf16ToF32, f16ToF32, f32ToF16 } from '../../src/engine/dtype';
import { encodeSafetensors, parseSafetensorsHeader } from '../../src/engine/safetensors';

export interface NamedTensor {
  name: string;
  shape: number[];
  values: Float32Array;
}

/** Values as float16 would store them (for evaluating exactly what ships). */
export function roundToF16(values: Float32Array): Float32Array {
  return f16ToF32(f32ToF16(values));
}

/** F16 bits of a tensor; NaN and values beyond the f16 range are refused, naming the element. */
function f16Bits(t: NamedTensor): Uint16Array {
  const bits = f32ToF16(t.values);
  for (let i = 0; i < bits.length; i++) {
    if ((bits[i] & 0x7c00) === 0x7c00) throw new Error(`safetensors: ${t.name}[${i}] = ${t.values[i]} has no finite f16 value`);
  }
  return bits;
}

/** A safetensors file with every tensor stored as F16. */
export function encodeSafetensorsF16(tensors: readonly NamedTensor[], metadata: Record<string, string> = {}): Uint8Array {
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`safetensors: duplicate tensor name ${t.name}`);
    names.add(t.name);
    const size = t.shape.reduce((a, b) => a * b, 1);
    if (size !== t.values.length) throw new Error(`safetensors: ${t.name} has ${t.values.length} values, shape [${t.shape}] needs ${size}`);
  }
  return encodeSafetensors(
    tensors.map((t) => ({ name: t.name, dtype: 'F16' as const, shape: t.shape, data: new Uint8Array(f16Bits(t).buffer) })),
    { format: 'pt', ...metadata },
  );
}

/** Reads a safetensors file's F16 / BF16 / F32 tensors as float32 (the engine's checks apply). */
export function decodeSafetensors(bytes: Uint8Array, file = 'model.safetensors'): NamedTensor[] {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const header = parseSafetensorsHeader(file, bytes.length, bytes.subarray(8, 8 + n));
  return [...header.tensors.values()].map((t) => {
    const raw = new Uint8Array(bytes.subarray(t.start, t.end)); // an aligned copy (a Node Buffer slice is a view)
    const values =
      t.dtype === 'F32' ? new Float32Array(raw.buffer)
      : t.dtype === 'F16' ? f16ToF32(new Uint16Array(raw.buffer))
      : t.dtype === 'BF16' ? bf16ToF32(new Uint16Array(raw.buffer))
      : null;
    if (!values) throw new Error(`safetensors: ${t.name} has unsupported dtype ${t.dtype}`);
    return { name: t.name, shape: t.shape, values };
  });
}

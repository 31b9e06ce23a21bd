import { describe, expect, it } from 'vitest';
import { encodeSafetensorsF16, f16BitsToF32, f32ToF16Bits, roundToF16 } from './safetensors';

describe('float16 conversion', () => {
  it('encodes known values bit-exactly', () => {
    expect(f32ToF16Bits(1)).toBe(0x3c00);
    expect(f32ToF16Bits(-2)).toBe(0xc000);
    expect(f32ToF16Bits(65504)).toBe(0x7bff);
    expect(f32ToF16Bits(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(f32ToF16Bits(0.1)).toBe(0x2e66);
    expect(f32ToF16Bits(1 + 2 ** -11)).toBe(0x3c00); // halfway rounds to even
    expect(f32ToF16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });

  it('round-trips every finite float16', () => {
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00) continue;
      const back = f32ToF16Bits(f16BitsToF32(h));
      expect(back === h || (h === 0x8000 && back === 0x8000)).toBe(true);
    }
  });

  it('rejects NaN and out-of-range values', () => {
    expect(() => f32ToF16Bits(NaN)).toThrow(/NaN/);
    expect(() => f32ToF16Bits(70000)).toThrow(/range/);
  });

  it('roundToF16 keeps values within half an ulp', () => {
    const v = new Float32Array([0.0123, -0.98765, 3.14159]);
    roundToF16(v).forEach((r, i) => expect(Math.abs(r - v[i])).toBeLessThanOrEqual(Math.abs(v[i]) * 2 ** -11));
  });
});

describe('encodeSafetensorsF16', () => {
  it('writes an aligned header with offsets and little-endian F16 data', () => {
    const bytes = encodeSafetensorsF16([
      { name: 'a', shape: [2], values: new Float32Array([1, -2]) },
      { name: 'b', shape: [1, 1], values: new Float32Array([0.5]) },
    ]);
    const view = new DataView(bytes.buffer);
    const n = Number(view.getBigUint64(0, true));
    expect((8 + n) % 8).toBe(0);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    expect(header.a).toEqual({ dtype: 'F16', shape: [2], data_offsets: [0, 4] });
    expect(header.b).toEqual({ dtype: 'F16', shape: [1, 1], data_offsets: [4, 6] });
    expect(bytes.length).toBe(8 + n + 6);
    expect([0, 1, 2].map((i) => view.getUint16(8 + n + 2 * i, true))).toEqual([0x3c00, 0xc000, 0x3800]);
  });

  it('rejects a shape mismatch and duplicate names, naming the tensor', () => {
    expect(() => encodeSafetensorsF16([{ name: 'w', shape: [3], values: new Float32Array(2) }])).toThrow(/w has 2 values/);
    const t = { name: 'x', shape: [1], values: new Float32Array(1) };
    expect(() => encodeSafetensorsF16([t, t])).toThrow(/duplicate tensor name x/);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeSafetensors, encodeSafetensorsF16, roundToF16 } from './safetensors';

describe('f16 values', () => {
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

  it('refuses NaN and values beyond the f16 range, naming the element', () => {
    expect(() => encodeSafetensorsF16([{ name: 'w', shape: [2], values: new Float32Array([1, NaN]) }])).toThrow(/w\[1\] = NaN/);
    expect(() => encodeSafetensorsF16([{ name: 'w', shape: [1], values: new Float32Array([70000]) }])).toThrow(/w\[0\] = 70000/);
  });

  it('reads back what it wrote, as F16 rounds it', () => {
    const values = new Float32Array([0.1, -3.25, 1e-5]);
    const [t] = decodeSafetensors(encodeSafetensorsF16([{ name: 'a', shape: [3], values }]));
    expect(t.name).toBe('a');
    expect(t.shape).toEqual([3]);
    expect(Array.from(t.values)).toEqual(Array.from(roundToF16(values)));
  });
});

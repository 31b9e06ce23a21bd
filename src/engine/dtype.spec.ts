import { describe, expect, it } from 'vitest';
import { bf16ToF32, f16BitsToNumber, f16ToF32, f32ToBf16, f32ToF16, numberToF16Bits } from './dtype.ts';

describe('bf16', () => {
  it('converts hand-computed bit patterns', () => {
    // 0x3fc0 = sign 0, exp 0x7f, mantissa 0b1000000 -> 1.5; 0xc2f7 -> -(1 + 0x77/128) * 2^6 = -123.5
    const out = bf16ToF32(new Uint16Array([0x3f80, 0x3fc0, 0xc2f7, 0x0000, 0x8000, 0x7f80, 0xff80]));
    expect(Array.from(out)).toEqual([1, 1.5, -123.5, 0, -0, Infinity, -Infinity]);
    expect(Number.isNaN(bf16ToF32(new Uint16Array([0x7fc0]))[0])).toBe(true);
  });

  it('rounds f32 to nearest even and round-trips bf16 values', () => {
    // 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: ties to even (1); a hair above goes up.
    const x = new Float32Array([1 + 2 ** -8, 1 + 2 ** -8 + 2 ** -20, -123.5, 3.140625]);
    expect(Array.from(f32ToBf16(x))).toEqual([0x3f80, 0x3f81, 0xc2f7, 0x4049]);
    const bits = new Uint16Array([0x0001, 0x3f80, 0x7f7f, 0xc2f7]);
    expect(Array.from(f32ToBf16(bf16ToF32(bits)))).toEqual(Array.from(bits));
  });
});

describe('f16', () => {
  it('converts hand-computed bit patterns', () => {
    // 0x3c00 = 1, 0xc000 = -2, 0x7bff = 65504 (max), 0x0001 = 2^-24 (smallest subnormal), 0x3555 = 0.333251953125
    expect(Array.from(f16ToF32(new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x3555, 0x7c00])))).toEqual([
      1, -2, 65504, 2 ** -24, 0.333251953125, Infinity,
    ]);
    expect(Number.isNaN(f16BitsToNumber(0x7e00))).toBe(true);
  });

  it('round-trips every f16 bit pattern through f32 (NaNs stay NaN)', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const back = f32ToF16(f16ToF32(all));
    for (let h = 0; h < 65536; h++) {
      if (Number.isNaN(f16BitsToNumber(h))) expect(Number.isNaN(f16BitsToNumber(back[h]))).toBe(true);
      else if (back[h] !== h) throw new Error(`f16 0x${h.toString(16)} came back as 0x${back[h].toString(16)}`);
    }
  });

  it('rounds to nearest even, overflows to infinity, underflows to zero', () => {
    expect(numberToF16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie -> even
    expect(numberToF16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie -> even (up)
    expect(numberToF16Bits(65520)).toBe(0x7c00); // rounds past max
    expect(numberToF16Bits(2 ** -25)).toBe(0x0000); // tie with 0 -> even
    expect(numberToF16Bits(1.5 * 2 ** -25)).toBe(0x0001);
    expect(numberToF16Bits(-1e-9)).toBe(0x8000);
  });
});

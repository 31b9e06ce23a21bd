import { describe, expect, it } from 'vitest';
import { takeArray, WeightArena } from './arena.ts';

describe('WeightArena', () => {
  it('hands out disjoint zeroed arrays, and after reset the same memory again without growing', () => {
    const arena = new WeightArena();
    const a = arena.take(Float32Array, 1000);
    const b = arena.take(Int8Array, 3);
    const c = arena.take(Uint16Array, 10);
    a.fill(1.5);
    b.fill(-1);
    c.fill(7);
    expect([...b]).toEqual([-1, -1, -1]); // writes to one array leave the others alone
    expect(a.every((x) => x === 1.5)).toBe(true);
    expect(c.byteOffset % 16).toBe(0);
    const held = arena.heldBytes;
    arena.reset();
    const a2 = arena.take(Float32Array, 1000);
    expect(a2.buffer).toBe(a.buffer);
    expect(a2.every((x) => x === 0)).toBe(true); // zeroed again
    arena.take(Int8Array, 3);
    arena.take(Uint16Array, 10);
    expect(arena.heldBytes).toBe(held);
  });

  it('gives a request larger than a block a block of its own', () => {
    const arena = new WeightArena();
    const big = arena.take(Float32Array, 20 * 1024 * 1024); // 80 MB
    expect(big.length).toBe(20 * 1024 * 1024);
    const small = arena.take(Uint8Array, 10);
    expect(small.buffer).not.toBe(big.buffer);
  });

  it('takeArray without an arena allocates fresh memory', () => {
    const x = takeArray(undefined, Float32Array, 4);
    const y = takeArray(undefined, Float32Array, 4);
    expect(x.buffer).not.toBe(y.buffer);
  });
});

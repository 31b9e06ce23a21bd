import { describe, expect, it } from 'vitest';
import { createPrng } from '../../util/prng.ts';
import { MemoryReader } from './memory.ts';
import { withReadAhead } from './read-ahead.ts';

function counted(bytes: Uint8Array) {
  const mem = new MemoryReader('mem', { f: bytes });
  const calls: Array<[number, number]> = [];
  const reader = {
    label: 'mem',
    exists: (f: string) => mem.exists(f),
    size: (f: string) => mem.size(f),
    text: (f: string) => mem.text(f),
    range: (f: string, a: number, b: number) => {
      calls.push([a, b]);
      return mem.range(f, a, b);
    },
  };
  return { reader, calls };
}

describe('withReadAhead', () => {
  const data = new Uint8Array(1000).map((_, i) => (i * 7 + 3) & 0xff);

  it('returns the same bytes as the reader for ranges across block edges', async () => {
    const { reader } = counted(data);
    const ra = withReadAhead(reader, 64, 3);
    const rng = createPrng(7);
    for (let i = 0; i < 200; i++) {
      const a = Math.floor(rng.next() * 1000);
      const b = a + Math.floor(rng.next() * Math.min(130, 1000 - a + 1));
      expect(await ra.range('f', a, b), `[${a}, ${b})`).toEqual(data.slice(a, b));
    }
  });

  it('fetches each block once while it stays in the LRU, and passes big reads through', async () => {
    const { reader, calls } = counted(data);
    const ra = withReadAhead(reader, 100, 2);
    await ra.range('f', 0, 8);
    await ra.range('f', 8, 90);
    await ra.range('f', 90, 150); // blocks 0 and 1
    expect(calls).toEqual([[0, 100], [100, 200]]);
    await ra.range('f', 950, 1000); // block 9 evicts block 0
    await ra.range('f', 10, 20);
    expect(calls.slice(2)).toEqual([[900, 1000], [0, 100]]);
    await ra.range('f', 0, 300);
    expect(calls.at(-1)).toEqual([0, 300]);
    await expect(ra.range('f', 990, 1010)).rejects.toThrow(/f in mem is truncated/);
  });
});

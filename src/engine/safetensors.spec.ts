import { describe, expect, it } from 'vitest';
import { MemoryReader } from './sources/memory.ts';
import {
  encodeSafetensors, firstDuplicateTopLevelKey, parseShardIndex, readSafetensorsHeader,
} from './safetensors.ts';

/** A safetensors file from a raw header text and a data section of `dataBytes` bytes. */
function rawFile(header: string, dataBytes: number, declaredLength?: number): Uint8Array {
  const json = new TextEncoder().encode(header);
  const out = new Uint8Array(8 + json.length + dataBytes);
  new DataView(out.buffer).setBigUint64(0, BigInt(declaredLength ?? json.length), true);
  out.set(json, 8);
  return out;
}

function header(bytes: Uint8Array) {
  return readSafetensorsHeader(new MemoryReader('mem', { 'w.safetensors': bytes }), 'w.safetensors');
}

describe('readSafetensorsHeader', () => {
  it('reads tensors with absolute offsets after the header', async () => {
    const a = new Float32Array([1, 2, 3, 4, 5, 6]);
    const b = new Uint16Array([0x3f80, 0x4000]);
    const file = encodeSafetensors(
      [
        { name: 'a', dtype: 'F32', shape: [2, 3], data: new Uint8Array(a.buffer) },
        { name: 'b', dtype: 'BF16', shape: [2], data: new Uint8Array(b.buffer) },
      ],
      { format: 'pt' },
    );
    const h = await header(file);
    expect(h.metadata).toEqual({ format: 'pt' });
    expect(h.dataStart % 8).toBe(0);
    const ta = h.tensors.get('a')!;
    expect(ta).toMatchObject({ dtype: 'F32', shape: [2, 3], start: h.dataStart, end: h.dataStart + 24 });
    expect(new Float32Array(file.slice(ta.start, ta.end).buffer)).toEqual(a);
    expect(h.tensors.get('b')).toMatchObject({ dtype: 'BF16', start: h.dataStart + 24, end: h.dataStart + 28 });
  });

  it('refuses a file shorter than 8 bytes as truncated', async () => {
    await expect(header(new Uint8Array(5))).rejects.toMatchObject({ code: 'bad-checkpoint', message: expect.stringMatching(/w\.safetensors is truncated: 5 bytes/) });
  });

  it('refuses a header length past the end of the file', async () => {
    const file = rawFile('{}', 0, 4096);
    await expect(header(file)).rejects.toMatchObject({ code: 'bad-checkpoint', message: expect.stringMatching(/header length 4096 runs past the end of the file \(10 bytes\)/) });
  });

  it('refuses a header over 100 MB', async () => {
    const file = rawFile('{}', 0, 200 * 1024 * 1024);
    await expect(header(file)).rejects.toThrow(/header length 209715200 bytes is over the 100 MB limit/);
  });

  it('refuses a header that is not JSON, or not an object', async () => {
    await expect(header(rawFile('{"a": ', 0))).rejects.toThrow(/w\.safetensors: header is not JSON/);
    await expect(header(rawFile('[1, 2]', 0))).rejects.toThrow(/header is not a JSON object/);
  });

  it('refuses offsets outside the data section', async () => {
    const file = rawFile('{"t": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}', 8);
    await expect(header(file)).rejects.toMatchObject({
      code: 'bad-checkpoint',
      message: expect.stringMatching(/tensor t has data_offsets \[0, 16\] outside the data section \(8 bytes\)/),
    });
  });

  it('refuses overlapping tensors, naming both', async () => {
    const file = rawFile(
      '{"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}',
      12,
    );
    await expect(header(file)).rejects.toThrow(/tensors x and y overlap \(data offsets \[0, 8\] and \[4, 12\]\)/);
  });

  it('refuses a shape × dtype size that differs from the byte span', async () => {
    const file = rawFile('{"t": {"dtype": "BF16", "shape": [3, 2], "data_offsets": [0, 8]}}', 8);
    await expect(header(file)).rejects.toThrow(/tensor t: shape \[3,2\] × BF16 is 12 bytes but data_offsets \[0, 8\] span 8/);
  });

  it('refuses a dtype safetensors does not define, naming it and the tensor', async () => {
    const file = rawFile('{"t": {"dtype": "Q4_K", "shape": [2], "data_offsets": [0, 2]}}', 2);
    await expect(header(file)).rejects.toMatchObject({ code: 'unsupported-dtype', message: expect.stringMatching(/tensor t has dtype "Q4_K"/) });
  });

  it('refuses duplicate tensor names that JSON.parse would silently merge', async () => {
    const file = rawFile(
      '{"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "t": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}',
      8,
    );
    await expect(header(file)).rejects.toThrow(/tensor "t" is listed twice in the header/);
  });

  it('refuses malformed entries', async () => {
    await expect(header(rawFile('{"t": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}}', 0))).rejects.toThrow(/tensor t has shape \[-1\]/);
    await expect(header(rawFile('{"t": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}', 4))).rejects.toThrow(/tensor t has data_offsets \[4,0\]/);
    await expect(header(rawFile('{"t": 3}', 0))).rejects.toThrow(/tensor t has no \{dtype, shape, data_offsets\} entry/);
  });
});

describe('firstDuplicateTopLevelKey', () => {
  it('finds top-level duplicates only, through escapes and nesting', () => {
    expect(firstDuplicateTopLevelKey('{"a": {"b": 1, "b": 2}, "c": "\\"a\\""}')).toBeNull();
    expect(firstDuplicateTopLevelKey('{"a\\u0062": [1, {"x": 0}], "ab": 2}')).toBe('ab');
    expect(firstDuplicateTopLevelKey('{"k": "}", "k": 1}')).toBe('k');
  });
});

describe('parseShardIndex', () => {
  const index = (shard: string) => JSON.stringify({ metadata: {}, weight_map: { 'model.norm.weight': shard } });

  it('maps tensors to shards', () => {
    expect(parseShardIndex(index('model-00001-of-00002.safetensors'))).toEqual(new Map([['model.norm.weight', 'model-00001-of-00002.safetensors']]));
  });

  it.each(['../secret.safetensors', 'sub/x.safetensors', 'a\\b.safetensors', 'https://evil.example/x.safetensors'])(
    'refuses the shard name %s',
    (shard) => {
      expect(() => parseShardIndex(index(shard))).toThrow(/refusing shard name .* \(for tensor model\.norm\.weight\)/);
    },
  );

  it('refuses an index without weight_map', () => {
    expect(() => parseShardIndex('{"metadata": {}}')).toThrow(/model\.safetensors\.index\.json has no weight_map object/);
    expect(() => parseShardIndex('nope')).toThrow(/model\.safetensors\.index\.json is not JSON/);
  });
});

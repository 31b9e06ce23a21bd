// Read-ahead for weight reads: a checkpoint has hundreds of tensors, and over HTTP each range
// request costs a round trip (~100 ms on the Hub's CDN). Small reads are served from aligned
// blocks of `blockBytes` that are fetched once and kept in a small LRU; reads larger than a
// block go straight to the reader. Memory held: at most maxBlocks × blockBytes.

import type { CheckpointReader } from './reader.ts';

const READ_AHEAD_BLOCK_BYTES = 16 * 1024 * 1024;
const MAX_BLOCKS = 4;

export function withReadAhead(reader: CheckpointReader, blockBytes = READ_AHEAD_BLOCK_BYTES, maxBlocks = MAX_BLOCKS): CheckpointReader {
  /** `${file}#${block}` -> bytes of that block; Map order is the LRU order (oldest first). */
  const blocks = new Map<string, Promise<Uint8Array>>();

  const block = (file: string, index: number, size: number): Promise<Uint8Array> => {
    const key = `${file}#${index}`;
    let p = blocks.get(key);
    if (p) blocks.delete(key); // re-inserted below as the newest
    else {
      p = reader.range(file, index * blockBytes, Math.min(size, (index + 1) * blockBytes));
      p.catch(() => blocks.delete(key));
    }
    blocks.set(key, p);
    while (blocks.size > maxBlocks) blocks.delete(blocks.keys().next().value!);
    return p;
  };

  return {
    label: reader.label,
    hubRef: reader.hubRef,
    exists: (file) => reader.exists(file),
    size: (file) => reader.size(file),
    text: (file) => reader.text(file),
    async range(file, start, end) {
      if (end - start > blockBytes || end <= start) return reader.range(file, start, end);
      const size = await reader.size(file);
      if (end > size) return reader.range(file, start, end); // let the reader report it
      const first = Math.floor(start / blockBytes);
      const last = Math.floor((end - 1) / blockBytes);
      const out = new Uint8Array(end - start);
      for (let b = first; b <= last; b++) {
        const bytes = await block(file, b, size);
        const b0 = b * blockBytes;
        const from = Math.max(start, b0);
        const to = Math.min(end, b0 + bytes.length);
        out.set(bytes.subarray(from - b0, to - b0), from - start);
      }
      return out;
    },
  };
}

// Tensors held in memory as a weights.ts RowSource (tests), delivered in chunks of `chunkRows` rows
// so conversions that cross chunk and part boundaries are exercised.
import type { RowSource } from '../weights.ts';

export function memoryRowSource(tensors: Record<string, { data: Float32Array; shape: number[] }>, chunkRows = Infinity): RowSource {
  const get = (name: string) => {
    const t = tensors[name];
    if (!t) throw new Error(`no tensor ${name}`);
    return t;
  };
  return {
    tensorInfo: (name) => ({ shape: get(name).shape }),
    async *rowChunks(name) {
      const { data, shape } = get(name);
      const rows = shape.length >= 2 ? shape[0] : 1;
      const cols = data.length / rows;
      for (let row0 = 0; row0 < rows; row0 += Math.min(chunkRows, rows)) {
        const count = Math.min(chunkRows, rows - row0);
        yield { data: data.slice(row0 * cols, (row0 + count) * cols), row0, count };
      }
    },
  };
}

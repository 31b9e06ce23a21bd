// Full-size generated checkpoints: the real architectures of the models the app is for, with
// seeded random BF16 weights in 2 GB shards and a generated tokenizer of the model's vocabulary
// size (make-checkpoint.ts). Written once into .cache/scale/<name>/; a JSON stamp beside the folder,
// written last, marks a complete write of this shape and seed.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCheckpoint, type CheckpointShape } from './make-checkpoint.ts';

export const SCALE_SHAPES = {
  'qwen2.5-0.5b': { modelType: 'qwen2', layers: 24, hidden: 896, heads: 14, kvHeads: 2, headDim: 64, intermediate: 4864, vocab: 151936, tied: true, dtype: 'BF16' },
  'qwen2.5-1.5b': { modelType: 'qwen2', layers: 28, hidden: 1536, heads: 12, kvHeads: 2, headDim: 128, intermediate: 8960, vocab: 151936, tied: true, dtype: 'BF16' },
  'qwen2.5-3b': { modelType: 'qwen2', layers: 36, hidden: 2048, heads: 16, kvHeads: 2, headDim: 128, intermediate: 11008, vocab: 151936, tied: true, dtype: 'BF16' },
  'qwen3-0.6b': { modelType: 'qwen3', layers: 28, hidden: 1024, heads: 16, kvHeads: 8, headDim: 128, intermediate: 3072, vocab: 151936, tied: true, maxPositions: 40960, dtype: 'BF16' },
  'llama-3.2-1b': {
    modelType: 'llama', layers: 16, hidden: 2048, heads: 32, kvHeads: 8, headDim: 64, intermediate: 8192, vocab: 128256, tied: true,
    ropeTheta: 500000, rmsNormEps: 1e-5, maxPositions: 131072,
    ropeScaling: { factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
    dtype: 'BF16',
  },
} satisfies Record<string, CheckpointShape>;

export type ScaleModel = keyof typeof SCALE_SHAPES;

const SEED = 20250101;
const SHARD_BYTES = 2 * 1024 ** 3;

/** The folder of a generated full-size checkpoint, written first if it is not complete. */
export function ensureScaleCheckpoint(root: string, name: ScaleModel, log: (line: string) => void = () => undefined): string {
  const dir = join(root, '.cache', 'scale', name);
  const stampFile = `${dir}.json`;
  const stamp = JSON.stringify({ shape: SCALE_SHAPES[name], seed: SEED, shardBytes: SHARD_BYTES });
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  log(`generating ${name} into ${join('.cache', 'scale', name)} (once)…`);
  rmSync(stampFile, { force: true });
  rmSync(dir, { recursive: true, force: true });
  writeCheckpoint(dir, null, SCALE_SHAPES[name], SEED, { maxShardBytes: SHARD_BYTES });
  writeFileSync(stampFile, stamp);
  return dir;
}

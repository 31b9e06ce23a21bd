// Writes the trained micro model in Hugging Face layout: config.json, generation_config.json,
// model.safetensors (F16, HF tensor names), tokenizer.json, tokenizer_config.json.

import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hfConfigJson, hfGenerationConfigJson, tensorShapes, type MicroConfig } from './config';
import type { Params } from './model';
import { encodeSafetensorsF16, roundToF16, type NamedTensor } from './safetensors';
import { tokenizerConfigJson, tokenizerJson } from './vocab';

/** The parameters as named float32 arrays, in HF file order. */
function namedTensors(params: Params, c: MicroConfig): NamedTensor[] {
  return tensorShapes(c).map(([name, shape]) => {
    const v = params.get(name);
    if (!v) throw new Error(`export: missing parameter ${name}`);
    if (v.shape.join(',') !== shape.join(',')) throw new Error(`export: ${name} has shape [${v.shape}], config says [${shape}]`);
    return { name, shape, values: v.dataSync() as Float32Array };
  });
}

/** Replaces every parameter by its float16-rounded value, so evaluation sees what ships. */
export function roundParamsToF16(params: Params): void {
  for (const v of params.values()) {
    const rounded = roundToF16(v.dataSync() as Float32Array);
    const t = tf.tensor(rounded, v.shape, 'float32');
    v.assign(t);
    t.dispose();
  }
}

const json = (x: unknown) => JSON.stringify(x, null, 2) + '\n';

export function writeCheckpoint(dir: string, params: Params, c: MicroConfig, metadata: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), json(hfConfigJson(c)));
  writeFileSync(join(dir, 'generation_config.json'), json(hfGenerationConfigJson(c)));
  writeFileSync(join(dir, 'tokenizer.json'), json(tokenizerJson()));
  writeFileSync(join(dir, 'tokenizer_config.json'), json(tokenizerConfigJson(c.maxPositionEmbeddings)));
  writeFileSync(join(dir, 'model.safetensors'), encodeSafetensorsF16(namedTensors(params, c), metadata));
}

// The reference checkpoints (test/fixtures/reference) as engine specs use them: each one's folder and
// expected.json, and the engine on WASM loaded beside the float64 reference of the same checkpoint.
import { readFileSync } from 'node:fs';
import { openCheckpoint } from '../checkpoint.ts';
import type { Expected } from '../conformance.ts';
import { createEngine, type LocalEngine } from '../engine.ts';
import { loadReference, type Reference } from '../reference.ts';
import { openReader } from '../sources/reader.ts';

export const MODELS = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'] as const;
export const LAYER_GRAPHS = ['per-layer', 'spans'] as const;

/** A reference checkpoint's folder (Hub layout). */
export const fixture = (m: string) => new URL(`../../../test/fixtures/reference/${m}/`, import.meta.url).pathname;

/** A reference checkpoint's expected.json. */
export const expectedOf = (m: string): Expected => JSON.parse(readFileSync(`${fixture(m)}expected.json`, 'utf8')) as Expected;

/** The float64 reference of a checkpoint. */
export async function referenceOf(m: string): Promise<Reference> {
  return loadReference(await openCheckpoint(openReader({ kind: 'fs', dir: fixture(m) })));
}

/** The engine (WASM, `layerGraphs` graphs) and the float64 reference, both on checkpoint `m`. */
export async function engineAndReference(m: string, layerGraphs: (typeof LAYER_GRAPHS)[number]): Promise<{ engine: LocalEngine; ref: Reference }> {
  const engine = createEngine();
  await engine.load({ kind: 'fs', dir: fixture(m) }, { ep: 'wasm', maxSeqLen: 64, layerGraphs });
  return { engine, ref: await referenceOf(m) };
}

// Session runs per decode step at real layer counts, per-layer graphs vs span graphs: the engine's
// own scheduler (runtime/scheduler.ts decodeStep) driving a stand-in model that only counts its
// runs. How many runs a step takes is the scheduler's decision alone (it never looks at values),
// so no weights are needed; bench:scale and bench:engine's WebGPU rows count runs of real models.
import { blocksSpace } from '../../src/audit/presets.ts';
import { sampleRoutes } from '../../src/audit/routes.ts';
import { decodeStep, type DecodeStream } from '../../src/engine/runtime/scheduler.ts';
import { spanSizes } from '../../src/engine/runtime/load.ts';
import type { HeadOut, RoutedModel, SpanRow } from '../../src/engine/runtime/model.ts';
import type { Hidden } from '../../src/engine/runtime/io.ts';
import { createPrng } from '../../src/util/prng.ts';

export interface SpanRunsRow {
  layers: number;
  rows: number;
  per_layer: number;
  spans: number;
}

/** A RoutedModel stand-in: opaque state, a counter of runs. */
function countingModel(numLayers: number, spans: number[]): { model: RoutedModel; runs: () => number } {
  let runs = 0;
  const hidden = (): Hidden => ({ seq: 1 });
  const model = {
    config: { numLayers, vocabSize: 2 },
    spans,
    async runSpan(layers: number[], rows: SpanRow[]) {
      runs++;
      return { hidden: rows.map(hidden), kv: layers.map(() => rows.map(() => ({}))) };
    },
    async runHead(rows: unknown[]): Promise<HeadOut> {
      runs++;
      return { greedy: { ids: new BigInt64Array(rows.length), logprobs: new Float32Array(rows.length) }, next: rows.map(hidden) };
    },
    endStep() {},
  };
  return { model: model as unknown as RoutedModel, runs: () => runs };
}

/** One greedy decode step of `rows` block routes (the default route when rows = 1). */
async function runsPerStep(numLayers: number, routes: number[][], spans: number[]): Promise<number> {
  const { model, runs } = countingModel(numLayers, spans);
  const streams: DecodeStream[] = routes.map((route) => ({ plan: { route, keep: route.map(() => true) }, kv: [], length: 1 }));
  await decodeStep(model, streams, { embedded: routes.map(() => ({ seq: 1 })) }, 64, { check() {}, maxBatch: 64 }, { logits: false, greedy: true });
  return runs();
}

export async function spanRuns(layerCounts = [24, 28, 36], rowCounts = [1, 8, 32]): Promise<SpanRunsRow[]> {
  const out: SpanRunsRow[] = [];
  for (const layers of layerCounts) {
    for (const rows of rowCounts) {
      const routes = rows === 1 ? [Array.from({ length: layers }, (_, i) => i)] : sampleRoutes(blocksSpace(layers, { maxEdits: 1 }), rows, createPrng(11));
      out.push({ layers, rows, per_layer: await runsPerStep(layers, routes, [1]), spans: await runsPerStep(layers, routes, spanSizes(layers)) });
    }
  }
  return out;
}

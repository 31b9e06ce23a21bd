// The self-test page in scale-benchmark mode (?bench=scale&spec=<ScaleRowSpec JSON>): runs one
// bench:scale row in a fresh engine worker, reading through the app's Hub reader and weight cache,
// and publishes the row as window.__scaleRow (scripts/lib/scale-browser.ts drives it).
import { spawnEngine } from '../engine/spawn-worker';
import { HubReader } from '../engine/sources/hub';
import { cachingHubReader } from '../store/cached-reader';
import { WeightCache } from '../store/weight-cache';
import { runScaleRow, type ScaleRow, type ScaleRowSpec } from './scale-run';

export async function runScalePage(specJson: string, statusEl: HTMLElement): Promise<void> {
  const spec = JSON.parse(specJson) as ScaleRowSpec;
  statusEl.textContent = `bench:scale ${spec.shape} ${spec.runtime} ${spec.dtype}…`;
  const cache = WeightCache.open().catch(() => null);
  const engine = spawnEngine();
  const adapter = spec.runtime === 'chromium-webgpu' ? await navigator.gpu?.requestAdapter() : null;
  let row: ScaleRow;
  try {
    row = await runScaleRow(spec, {
      engine: { load: engine.load, generate: engine.generate, dispose: engine.dispose, stats: engine.stats! },
      openReader: () => cachingHubReader(new HubReader(spec.source), cache),
      f16: spec.runtime !== 'chromium-webgpu' || (adapter?.features.has('shader-f16') ?? false),
      now: () => performance.now(),
    });
  } finally {
    engine.terminate();
  }
  statusEl.textContent = row.ok ? 'done' : `failed: ${row.error}`;
  statusEl.dataset.done = row.ok ? 'pass' : 'fail';
  (window as unknown as { __scaleRow: ScaleRow }).__scaleRow = row;
}

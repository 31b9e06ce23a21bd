// One node-wasm row of bench:scale in its own process (a fresh WebAssembly heap per model, and the
// process's peak RSS as the row's peak memory). Prints the row as one JSON line.
//   tsx scripts/lib/scale-row.ts '<ScaleRowSpec JSON>'
import { createEngine } from '../../src/engine/engine.ts';
import { HubReader } from '../../src/engine/sources/hub.ts';
import { runScaleRow, type ScaleRowSpec } from '../../src/selftest/scale-run.ts';

const spec = JSON.parse(process.argv[2] ?? '') as ScaleRowSpec;
const row = await runScaleRow(spec, {
  engine: createEngine(),
  openReader: () => new HubReader(spec.source),
  f16: true,
  now: () => performance.now(),
});
row.peak_mem_mb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify(row) + '\n');
process.exit(0); // onnxruntime's worker threads would keep the process alive

// The reference conformance on the engine's WebGPU path in Node (Dawn), without a browser: every
// case of the three reference checkpoints (src/engine/conformance.ts), per engine dtype, judged for
// the precision that ran (f16 on an adapter without shader-f16 runs as f32 and is judged as f32).
// CI runs it on SwiftShader's Vulkan (npm --prefix gpu run conformance); bench:gpu runs it first.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../src/engine/engine.ts';
import { checkConformance, conformanceFailures, type Expected } from '../../src/engine/conformance.ts';
import type { EngineDtype, OrtRuntime } from '../../src/engine/types.ts';
import { checkEp } from '../lib/ep-flag.ts';

export const REFERENCE_MODELS = ['tiny-qwen2', 'tiny-llama', 'tiny-qwen3'] as const;

export interface ConformanceRow {
  model: string;
  /** The dtype asked for, and the one that ran (f16 without shader-f16 runs as f32). */
  dtype: EngineDtype;
  ran: EngineDtype;
  adapter: string | null;
  cases: number;
  /** max |logit − expected| over the cases' last positions and the default route's positions. */
  maxAbsDiff: number;
  failures: string[];
  seconds: number;
  /** Why this row did not run (an f16 row that would repeat its f32 run). */
  skipped?: string;
}

/** Runs each model × dtype on WebGPU (onnxruntime-web over Dawn, or onnxruntime-node's own
 *  provider); a load that does not reach WebGPU is a failure, named. */
export async function gpuConformance(fixtures: string, dtypes: readonly ('f32' | 'f16')[], log: (line: string) => void = () => {}, models: readonly string[] = REFERENCE_MODELS, runtime: OrtRuntime = 'onnxruntime-web'): Promise<ConformanceRow[]> {
  const rows: ConformanceRow[] = [];
  for (const dtype of dtypes) {
    for (const model of models) {
      // without shader-f16, f16 runs as f32: one model checks that fallback, the others would repeat their f32 run
      const fellBack = rows.find((r) => r.dtype === dtype && r.ran !== dtype && !r.failures.length);
      if (fellBack) {
        rows.push({ ...fellBack, model, cases: 0, maxAbsDiff: NaN, seconds: 0, skipped: `${dtype} runs as ${fellBack.ran} on this adapter: the same computation as its ${fellBack.ran} run` });
        log(conformanceLine(rows[rows.length - 1]));
        continue;
      }
      const dir = path.join(fixtures, model);
      const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
      const t0 = performance.now();
      const engine = createEngine();
      try {
        const info = await engine.load({ kind: 'fs', dir }, { ep: 'webgpu', runtime, dtype, maxSeqLen: 64 });
        checkEp(info, { ep: 'webgpu', runtime });
        const report = await checkConformance(engine, expected);
        const precision = info.dtype === 'f16' ? 'f16' : 'f32';
        rows.push({
          model, dtype, ran: info.dtype, adapter: info.adapter ?? null, cases: report.cases.length,
          maxAbsDiff: Math.max(report.defaultAllMaxAbsDiff, ...report.cases.map((c) => c.maxAbsDiff)),
          failures: conformanceFailures(report, expected, precision),
          seconds: (performance.now() - t0) / 1000,
        });
      } catch (e) {
        rows.push({ model, dtype, ran: dtype, adapter: null, cases: 0, maxAbsDiff: NaN, failures: [e instanceof Error ? e.message : String(e)], seconds: (performance.now() - t0) / 1000 });
      } finally {
        await engine.dispose();
      }
      const r = rows[rows.length - 1];
      log(conformanceLine(r));
    }
  }
  return rows;
}

function conformanceLine(r: ConformanceRow): string {
  const ran = r.ran === r.dtype ? r.dtype : `${r.dtype}→${r.ran}`;
  if (r.skipped) return `${r.model.padEnd(11)} ${ran.padEnd(8)} skipped: ${r.skipped}`;
  return `${r.model.padEnd(11)} ${ran.padEnd(8)} ${String(r.cases).padStart(2)} cases  max|Δ| ${r.maxAbsDiff.toExponential(2)}  ${r.seconds.toFixed(0).padStart(4)} s  ${r.failures.length ? `FAIL: ${r.failures.join('; ')}` : 'pass'}`;
}

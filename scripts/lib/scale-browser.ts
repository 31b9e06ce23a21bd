// Chromium rows of bench:scale: each row on the self-test page in scale mode
// (src/selftest/scale-page.ts) in a fresh browser (scripts/lib/chromium.ts).
import type { ScaleRow, ScaleRowSpec } from '../../src/selftest/scale-run.ts';
import { runPage, withPreview, type PreviewOptions } from './chromium.ts';

export async function runBrowserRows(specs: ScaleRowSpec[], opts: PreviewOptions & { rowTimeoutS: number }): Promise<ScaleRow[]> {
  return withPreview(opts, async (preview) => {
    const rows: ScaleRow[] = [];
    for (const spec of specs) {
      opts.log(`${spec.runtime} ${spec.shape} ${spec.dtype}…`);
      try {
        const { result, peakMb, errors } = await runPage<ScaleRow>(preview, `/selftest.html?bench=scale&spec=${encodeURIComponent(JSON.stringify(spec))}`, '__scaleRow', opts.rowTimeoutS);
        if (errors.length) result.error = [result.error, ...errors].filter(Boolean).join('; ');
        rows.push({ ...result, peak_mem_mb: peakMb });
      } catch (e) {
        rows.push(failed(spec, e instanceof Error ? e.message.split('\n')[0] : String(e)));
      }
    }
    return rows;
  });
}

export function failed(spec: ScaleRowSpec, error: string): ScaleRow {
  return {
    shape: spec.shape, runtime: spec.runtime, dtype: spec.dtype, ok: false, error, params: null,
    load_s: null, read_s: null, peak_mem_mb: null, prefill_tok_s: null, decode_tok_s: null, runs_per_token: null,
  };
}

import { describe, expect, it } from 'vitest';
import { benchTable, speeds } from './table.ts';
import type { BenchResult } from './bench-gpu.ts';
import type { SideRun } from '../peer/side.ts';

const run = (side: 'reachlab' | 'pytorch', mode: string, decodeS: number, routesS: number, prefillS: number): SideRun => ({
  side, mode, threads: 1, versions: {}, load_s: 1, peak_rss_mb: 1,
  prefill: [{ tokens: 16, s: 0.1, first_s: 0.1 }, { tokens: 512, s: prefillS, first_s: prefillS }],
  decode: { tokens: 64, one_s: 0.5, many_s: 0.5 + decodeS, ids: [], work: side === 'reachlab' ? { runs_per_token: 3, dispatches_per_token: 120, upload_bytes_per_token: 16, download_bytes_per_token: 12 } : undefined },
  routes: { count: 32, tokens: 16, s: routesS, ids: [] },
});

describe('bench:gpu table', () => {
  it('takes tokens per second from the long prefill, the decoded tokens after the first, and every route token', () => {
    expect(speeds(run('reachlab', 'f32', 2, 4, 0.5))).toEqual({ prefill: 1024, decode: 32, routes: 128 });
  });

  it('sets each ReachLab run beside each PyTorch run of its checkpoint, names the dtype that ran, and says what did not run', () => {
    const res: BenchResult = {
      smoke: true, started: '', adapter: 'nvidia hopper', hf_device: 'cuda', bandwidth: { copy_bytes_per_s: 3e12, buffer_bytes: 1, copies_per_batch: 1 },
      conformance: [{ model: 'tiny-qwen2', dtype: 'f32', ran: 'f32', adapter: 'nvidia hopper', cases: 9, maxAbsDiff: 1e-5, failures: [], seconds: 1 }],
      runs: [
        { model: 'm', side: 'pytorch', mode: 'bf16', run: run('pytorch', 'bf16', 4, 16, 1) },
        { model: 'm', side: 'reachlab', mode: 'q4f16', run: run('reachlab', 'q4', 2, 4, 2), bandwidth_share: 0.25 },
        { model: 'm', side: 'reachlab', mode: 'f32', error: 'out of memory' },
      ],
      f32_tokens: [{ model: 'm', decode_first_mismatch: null, routes_mismatched: 1, routes: 32 }],
      not_run: ['qwen2.5-3b: no time left'], finished: false,
    };
    const t = benchTable(res);
    expect(t).toContain('conformance: 1/1 pass');
    expect(t).toContain('copy bandwidth 3000.0 GB/s');
    expect(t).toContain('m ReachLab q4f16→q4 ÷ PyTorch bf16: prefill 0.50×, decode 2.00×, audit routes 4.00×');
    expect(t).toContain('25.0%');
    expect(t).toContain('error: out of memory');
    expect(t).toContain('decode identical, routes 31/32 identical');
    expect(t).toContain('not run: qwen2.5-3b: no time left');
  });
});

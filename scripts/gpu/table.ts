// bench:gpu's table: one line per side run (speeds, ReachLab's work per decoded token, its share of
// the copy bandwidth), then ReachLab's speed over PyTorch's per measure, the f32 token check and the
// conformance in one line each.
import type { SideRun } from '../peer/side.ts';
import { decodeTokS } from '../peer/summary.ts';
import type { BenchResult, BenchRun } from './bench-gpu.ts';

const f = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits));

/** Tokens per second of each measure: prefill of the long prompt, one row's decode, the route workload. */
export function speeds(r: SideRun): { prefill: number; decode: number | null; routes: number } {
  const long = r.prefill[r.prefill.length - 1];
  return {
    prefill: long.tokens / long.s,
    decode: decodeTokS(r),
    routes: (r.routes.count * r.routes.tokens) / r.routes.s,
  };
}

/** The mode asked for, and the one that ran where they differ (q4f16→q4 without shader-f16). */
const ran = (e: BenchRun) => (e.run && e.run.mode !== e.mode ? `${e.mode}→${e.run.mode}` : e.mode);

export function benchTable(res: BenchResult): string {
  const lines: string[] = [];
  lines.push(`adapter: ${res.adapter ?? 'none'}; PyTorch on ${res.hf_device}${res.bandwidth ? `; copy bandwidth ${f(res.bandwidth.copy_bytes_per_s / 1e9)} GB/s` : ''}`);
  const conf = res.conformance.filter((c) => !c.skipped);
  const failed = conf.filter((c) => c.failures.length);
  lines.push(`conformance: ${conf.length - failed.length}/${conf.length} pass${failed.length ? ` (FAIL: ${failed.map((c) => `${c.model} ${c.dtype}`).join(', ')})` : ''}`
    + `${res.conformance.some((c) => c.skipped) ? '; f16 runs as f32 here (no shader-f16)' : ''}`);
  const prefillLen = res.runs.find((r) => r.run)?.run?.prefill.at(-1)?.tokens ?? 0;
  lines.push(['model', 'side', 'mode', 'load s', `prefill${prefillLen} tok/s`, 'decode tok/s', 'routes tok/s', 'runs/tok', 'disp/tok', 'up B/tok', 'down B/tok', 'bw share'].join('\t'));
  for (const e of res.runs) {
    if (!e.run) {
      lines.push([e.model, e.side, e.mode, `error: ${e.error}`].join('\t'));
      continue;
    }
    const s = speeds(e.run);
    const w = e.run.decode.work;
    lines.push([e.model, e.side, ran(e), f(e.run.load_s), f(s.prefill), f(s.decode), f(s.routes), f(w?.runs_per_token), f(w?.dispatches_per_token), f(w?.upload_bytes_per_token, 0), f(w?.download_bytes_per_token, 0), e.bandwidth_share === undefined ? '—' : `${(100 * e.bandwidth_share).toFixed(1)}%`].join('\t'));
  }
  for (const e of res.runs.filter((r) => r.side === 'reachlab' && r.run)) {
    for (const peer of res.runs.filter((r): r is BenchRun & { run: SideRun } => r.side === 'pytorch' && r.model === e.model && !!r.run)) {
      const [a, b] = [speeds(e.run!), speeds(peer.run)];
      lines.push(`${e.model} ReachLab ${ran(e)} ÷ PyTorch ${peer.mode}: prefill ${f(a.prefill / b.prefill, 2)}×, decode ${f(a.decode !== null && b.decode !== null ? a.decode / b.decode : null, 2)}×, audit routes ${f(a.routes / b.routes, 2)}×`);
    }
  }
  for (const t of res.f32_tokens) {
    lines.push(`${t.model} f32 greedy tokens vs PyTorch f32: decode ${t.decode_first_mismatch === null ? 'identical' : `differs from token ${t.decode_first_mismatch}`}, routes ${t.routes - t.routes_mismatched}/${t.routes} identical`);
  }
  for (const n of res.not_run) lines.push(`not run: ${n}`);
  return `${lines.join('\n')}\n`;
}

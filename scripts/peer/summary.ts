// The peer benchmark's summary of paired side runs: each measure's medians and median paired
// ratio, each side's share of the bandwidth ceiling in decode, and the greedy-token check.
import type { CheckpointShape } from '../lib/make-checkpoint.ts';
import { ceilingTokensPerS, firstMismatch, median, pairRatios, WEIGHT_SCHEMES, weightBytesPerToken } from './plan.ts';
import type { Side, SideRun } from './side.ts';

export interface Pair {
  reachlab: SideRun;
  pytorch: SideRun;
}

export interface MeasureSummary {
  measure: string;
  /** What the per-side medians are in; ratios are always ReachLab's speed over PyTorch's (> 1: ReachLab faster). */
  unit: 'tok/s' | 's' | 'MB';
  reachlab: number;
  pytorch: number;
  ratio: number;
  /** Pairs the medians are over (a decode whose longer run was not slower is timing noise: left out). */
  pairs: number;
}

export interface CeilingShare {
  side: Side;
  mode: string;
  bytes_per_token: number;
  ceiling_tok_s: number;
  decode_tok_s: number;
  share: number;
}

export interface TokenMismatch {
  pair: number;
  /** 'decode' or 'route N' (0-based, in the routes' order). */
  what: string;
  /** First differing position among the generated tokens. */
  at: number;
}

/** A measure from both sides of every pair, as throughputs (speed) or as amounts (seconds, MB: lower is better). */
function measure(pairs: Pair[], name: string, unit: MeasureSummary['unit'], of: (r: SideRun) => number | null): MeasureSummary | null {
  const kept = pairs.map((p) => [of(p.reachlab), of(p.pytorch)]).filter((v): v is [number, number] => v[0] !== null && v[1] !== null);
  if (kept.length === 0) return null;
  const rl = kept.map((v) => v[0]);
  const pt = kept.map((v) => v[1]);
  const speed = unit === 'tok/s';
  // for amounts, a higher ReachLab amount is a slower (or larger) ReachLab: the ratio inverts
  const ratios = speed ? pairRatios(rl, pt) : pairRatios(pt, rl);
  return { measure: name, unit, reachlab: median(rl), pytorch: median(pt), ratio: median(ratios), pairs: kept.length };
}

/** One row's decode rate: the decode tokens over the time they add past the first (null when timing
 *  noise makes that time non-positive). */
export const decodeTokS = (r: SideRun): number | null => (r.decode.many_s > r.decode.one_s ? r.decode.tokens / (r.decode.many_s - r.decode.one_s) : null);

export function measures(pairs: Pair[]): MeasureSummary[] {
  const out = [
    measure(pairs, 'load', 's', (r) => r.load_s),
    ...pairs[0].reachlab.prefill.map((p, i) => measure(pairs, `prefill ${p.tokens}`, 'tok/s', (r) => r.prefill[i].tokens / r.prefill[i].s)),
    // the first long prompt after load also pays for what each runtime allocates once
    measure(pairs, `first prefill ${pairs[0].reachlab.prefill[0].tokens}`, 'tok/s', (r) => r.prefill[0].tokens / r.prefill[0].first_s),
    measure(pairs, `decode ${pairs[0].reachlab.decode.tokens}`, 'tok/s', decodeTokS),
    measure(pairs, `${pairs[0].reachlab.routes.count} routes × ${pairs[0].reachlab.routes.tokens}`, 'tok/s', (r) => (r.routes.count * r.routes.tokens) / r.routes.s),
    measure(pairs, 'peak memory', 'MB', (r) => r.peak_rss_mb),
  ];
  return out.filter((m): m is MeasureSummary => m !== null);
}

/** Pairs and sides whose decode is timing noise (the longer generate was not slower): left out of the medians. */
export function noisyDecodes(pairs: Pair[]): { pair: number; side: Side }[] {
  return pairs.flatMap((p, i) => (['reachlab', 'pytorch'] as const).filter((side) => decodeTokS(p[side]) === null).map((side) => ({ pair: i + 1, side })));
}

/** Each side's median decode speed against bandwidth / bytes of weights per token (null where the mode's bytes are unknown). */
export function ceilingShares(pairs: Pair[], shape: CheckpointShape, bytesPerS: number): CeilingShare[] {
  const out: CeilingShare[] = [];
  for (const side of ['reachlab', 'pytorch'] as const) {
    const mode = pairs[0][side].mode;
    const scheme = WEIGHT_SCHEMES[`${side}:${mode}`];
    const speeds = pairs.map((p) => decodeTokS(p[side])).filter((v): v is number => v !== null);
    if (!scheme || speeds.length === 0) continue;
    const bytes = weightBytesPerToken(shape, scheme);
    const ceiling = ceilingTokensPerS(bytes, bytesPerS);
    const decode = median(speeds);
    out.push({ side, mode, bytes_per_token: bytes, ceiling_tok_s: ceiling, decode_tok_s: decode, share: decode / ceiling });
  }
  return out;
}

/** Every place the two sides' greedy tokens differ, pair by pair. */
export function tokenMismatches(pairs: Pair[]): TokenMismatch[] {
  const out: TokenMismatch[] = [];
  pairs.forEach((p, i) => {
    const d = firstMismatch(p.reachlab.decode.ids, p.pytorch.decode.ids);
    if (d !== null) out.push({ pair: i + 1, what: 'decode', at: d });
    p.reachlab.routes.ids.forEach((ids, r) => {
      const at = firstMismatch(ids, p.pytorch.routes.ids[r] ?? []);
      if (at !== null) out.push({ pair: i + 1, what: `route ${r}`, at });
    });
  });
  return out;
}

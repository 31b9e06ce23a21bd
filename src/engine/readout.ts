// A look inside one forward row at its last prompt position (an answer token: for an attempt, the
// first where the deployment's answer, or else the attempt's own, departs from the gold, attemptRow): the read-out 'look-inside'
// (readouts.ts), computed by the engine and by the float64 reference alike from the row's named
// points (engine/points.ts).
//
// With h_0 = blocks.0.resid_pre (the embedding) and h_{p+1} = blocks.p.resid_post
// = h_p + attn_p + mlp_p (attn_p = blocks.p.attn_out; mlp_p = blocks.p.mlp_out, 0 where silenced):
// - logit lens: logits(h_k) = head(finalNorm(h_k)) for k = 0..n, and the gold and emitted token's
//   rank and probability in each;
// - direct attribution with the final norm's scale frozen at h_n (as TransformerLens does with a
//   cached scale): s = 1 / sqrt(mean(h_n²) + eps), u(x) = W_head (γ ⊙ x), and a component x of
//   {h_0, attn_p, mlp_p} contributes s · (u(x)[gold] − u(x)[emitted]); u(x) is read off the head as
//   head(finalNorm(x)) / normScale(x). Once s is fixed the norm is linear, and
//   h_n = h_0 + Σ attn_p + Σ mlp_p, so the contributions sum to the final logit difference:
//   `identityError` is how far rounding leaves them from it.
import { argmax } from './conformance.ts';
import { blockPoint } from './points.ts';
import { checkFinite } from './sampling.ts';
import { EngineError, type Engine, type LensPoint, type PointName, type Readout, type ReadoutRow, type TokenStanding } from './types.ts';
import type { ReadoutDef, Vector } from './readouts.ts';
import { quote } from '../util/clip.ts';

/** The RMS norm's scale at x: 1 / sqrt(mean(x²) + eps). */
function normScale(x: Vector, eps: number): number {
  let ms = 0;
  for (let i = 0; i < x.length; i++) ms += x[i] * x[i];
  return 1 / Math.sqrt(ms / x.length + eps);
}

/** `id`'s rank (1 + the count of strictly larger logits), softmax probability and logit. */
export function standing(logits: Vector, id: number): TokenStanding {
  const l = logits[id];
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  let above = 0;
  for (let i = 0; i < logits.length; i++) {
    sum += Math.exp(logits[i] - max);
    if (logits[i] > l) above++;
  }
  return { id, rank: above + 1, prob: Math.exp(l - max) / sum, logit: l };
}

/** Checks a read-out's token ids against a vocabulary of V. */
export function checkReadoutTokens(gold: unknown, emitted: unknown, V: number): void {
  const bad = (t: unknown) => !Number.isInteger(t) || (t as number) < 0 || (t as number) >= V;
  if (bad(gold)) throw new EngineError('bad-input', `readout: gold token ${quote(gold)} is not a token id in [0, ${V})`);
  if (emitted !== undefined && bad(emitted)) throw new EngineError('bad-input', `readout: emitted token ${quote(emitted)} is not a token id in [0, ${V})`);
}

/** h_k: the residual stream after k route positions (h_0 the embedding). */
const state = (k: number): PointName => (k === 0 ? blockPoint(0, 'resid_pre') : blockPoint(k - 1, 'resid_post'));

/** The points whose logits the look inside reads, in order: h_0..h_n, then attn_p, mlp_p per position. */
function projected(route: number[]): PointName[] {
  return [...Array.from({ length: route.length + 1 }, (_, k) => state(k)), ...route.flatMap((_, p) => [blockPoint(p, 'attn_out'), blockPoint(p, 'mlp_out')])];
}

/** The logit lens and direct attribution of a row at its last prompt position. */
export const LOOK_INSIDE: ReadoutDef<ReadoutRow, Readout> = {
  check: (row, config) => checkReadoutTokens(row.gold, row.emitted, config.vocabSize),
  read: (row) => ({ points: projected(row.route), positions: 'last' }),
  project: (row, points) => projected(row.route).map((name) => points.get(name)![0]),
  reduce(row, { points, logits, config }) {
    const n = row.route.length;
    const names = projected(row.route);
    const logitsOf = new Map(names.map((name, i) => [name, logits[i]]));
    const vec = (name: PointName) => points.get(name)![0];
    const lensLogits = Array.from({ length: n + 1 }, (_, k) => logitsOf.get(state(k))!);
    lensLogits.forEach((l, k) => checkFinite(l, `readout, lens after route position ${k - 1}`));
    const emitted = row.emitted ?? argmax(lensLogits[n]);
    const scale = normScale(vec(state(n)), config.rmsNormEps);
    // s · (u(x)[gold] − u(x)[emitted]), with u(x) = head(finalNorm(x)) / normScale(x)
    const direct = (name: PointName) => {
      const l = logitsOf.get(name)!;
      return scale * ((l[row.gold] - l[emitted]) / normScale(vec(name), config.rmsNormEps));
    };
    const lens: LensPoint[] = lensLogits.map((l, k) => ({
      position: k - 1,
      layer: k === 0 ? null : row.route[k - 1],
      gold: standing(l, row.gold),
      emitted: standing(l, emitted),
    }));
    const embed = direct(state(0));
    const attribution = row.route.map((layer, p) => ({ position: p, layer, attn: direct(blockPoint(p, 'attn_out')), mlp: direct(blockPoint(p, 'mlp_out')) }));
    const logitDiff = lensLogits[n][row.gold] - lensLogits[n][emitted];
    const sum = attribution.reduce((s, a) => s + a.attn + a.mlp, embed);
    return { route: row.route.slice(), silence: row.silence.slice(), gold: row.gold, emitted, lens, embed, attribution, logitDiff, sum, identityError: Math.abs(sum - logitDiff) };
  },
};

/** The largest difference between two read-outs of the same row, over every logit, probability
 *  and attribution they report (ranks compared apart: `ranksEqual`). */
export function readoutDiff(a: Readout, b: Readout): { maxAbsDiff: number; ranksEqual: boolean } {
  if (a.lens.length !== b.lens.length || a.gold !== b.gold || a.emitted !== b.emitted) return { maxAbsDiff: Infinity, ranksEqual: false };
  const pairs: [number, number][] = [[a.embed, b.embed], [a.logitDiff, b.logitDiff], [a.sum, b.sum]];
  let ranksEqual = true;
  a.lens.forEach((pa, k) => {
    const pb = b.lens[k];
    for (const t of ['gold', 'emitted'] as const) {
      pairs.push([pa[t].logit, pb[t].logit], [pa[t].prob, pb[t].prob]);
      if (pa[t].rank !== pb[t].rank) ranksEqual = false;
    }
  });
  a.attribution.forEach((x, p) => pairs.push([x.attn, b.attribution[p].attn], [x.mlp, b.attribution[p].mlp]));
  const maxAbsDiff = pairs.reduce((m, [x, y]) => (Number.isNaN(x - y) ? NaN : Math.max(m, Math.abs(x - y))), 0);
  return { maxAbsDiff, ranksEqual };
}

/** One attempt of a record as text: what the look inside reads. */
export interface AttemptLook {
  /** The prompt as the model saw it (the record's arguments.prompt). */
  prompt: string;
  route: number[];
  silence: number[];
  /** The gold answer's text (the record's target). */
  gold: string;
  /** The attempt's response; its tokens are the emitted ones (empty: the greedy choice at the
   *  first answer token). */
  response: string;
  /** The deployment attempt's response, for an attempt read beside it: where it departs from the
   *  gold answer, the attempt is read there too, comparing the gold token with the deployment's,
   *  so the two read-outs compare like with like. */
  deployed?: string;
}

/** A read-out with its two tokens as text, and where in the answer it was read: `position` is the
 *  0-based answer token (the first where gold and the compared response depart), `prefix` the text
 *  of the answer tokens before it, which both share; `versus` whose token `emitted` is (the
 *  deployment's, or the attempt's own). */
export type AttemptReadout = Readout & { kind: 'readout'; goldToken: string; emittedToken: string; position: number; prefix: string; versus: 'deployed' | 'own' };

/** An attempt whose answer has every token of the gold answer (and perhaps more after it), read
 *  against no departing response: there is no wrong token to compare, so nothing is computed. */
export interface AttemptMatch {
  kind: 'matches';
  /** The attempt's response. */
  response: string;
  /** Whether the response goes on past the gold answer's last token. */
  longer: boolean;
}

export type AttemptLookResult = AttemptReadout | AttemptMatch;

/** The tokens of `cont` as it tokenizes after the prompt: the tail of encode(prompt + cont) when
 *  that extends the prompt's ids, else encode(cont) (as the audit's continuations). */
async function tokensAfter(engine: Pick<Engine, 'encode'>, prompt: string, promptIds: number[], cont: string): Promise<number[]> {
  const joint = await engine.encode(prompt + cont);
  const extends_ = joint.length > promptIds.length && promptIds.every((t, i) => joint[i] === t);
  const ids = extends_ ? joint.slice(promptIds.length) : await engine.encode(cont);
  if (ids.length === 0) throw new EngineError('bad-input', `readout: ${quote(cont)} has no tokens`);
  return ids;
}

/** The first answer token where `emitted` departs from `gold`: the first index where they differ,
 *  or where `emitted` stops before the gold answer does (there the model chose another token than
 *  the gold's next one); null when `emitted` has every token of `gold` (equal, or longer). */
export function departure(gold: readonly number[], emitted: readonly number[]): number | null {
  const n = Math.min(gold.length, emitted.length);
  for (let i = 0; i < n; i++) if (gold[i] !== emitted[i]) return i;
  return emitted.length < gold.length ? emitted.length : null;
}

export type AttemptRow = { row: ReadoutRow; position: number; versus: 'deployed' | 'own' };

/** The read-out row of an attempt at the first answer token where the compared response departs
 *  from the gold (both "-30" and "-29" start with "-": compared there, the two tokens would be
 *  one). The compared response is the deployment's when the attempt is read beside a departing
 *  one (`deployed`), else the attempt's own; its token there is the one compared with the gold's
 *  (none where it stopped early: the row's greedy choice). The row's prompt is extended by the
 *  answer tokens both share. The gold answer is read with the response's leading whitespace, so
 *  both start the answer the same way. Null: the attempt's own answer has every gold token. */
export async function attemptRow(engine: Pick<Engine, 'encode'>, a: AttemptLook): Promise<AttemptRow | null> {
  if (typeof a.gold !== 'string' || a.gold.trim() === '') throw new EngineError('bad-input', 'readout: the gold answer is empty');
  const promptIds = await engine.encode(a.prompt);
  if (promptIds.length === 0) throw new EngineError('bad-input', 'readout: the prompt is empty');
  const base = { route: a.route, silence: a.silence };
  const against = async (response: string) => {
    const lead = /^\s*/.exec(response)![0];
    const gold = await tokensAfter(engine, a.prompt, promptIds, lead + a.gold.trim());
    const emitted = response === '' ? [] : await tokensAfter(engine, a.prompt, promptIds, response);
    const position = departure(gold, emitted);
    if (position === null) return null;
    const row: ReadoutRow = { promptIds: [...promptIds, ...gold.slice(0, position)], ...base, gold: gold[position] };
    return { row: position < emitted.length ? { ...row, emitted: emitted[position] } : row, position };
  };
  const deployed = a.deployed === undefined ? null : await against(a.deployed);
  if (deployed) return { ...deployed, versus: 'deployed' };
  const own = await against(a.response);
  return own && { ...own, versus: 'own' };
}

/** The look inside one attempt, with its tokens as text; the engine must have `readout`. */
export async function readAttempt(engine: Engine, a: AttemptLook): Promise<AttemptLookResult> {
  if (!engine.readout) throw new EngineError('internal', 'this engine has no read-out');
  const at = await attemptRow(engine, a);
  if (!at) return { kind: 'matches', response: a.response, longer: a.response.trimStart() !== a.gold.trim() };
  const { row, position, versus } = at;
  const r = await engine.readout('look-inside', row);
  const prefix = position === 0 ? '' : await engine.decode(row.promptIds.slice(row.promptIds.length - position));
  return { ...r, kind: 'readout', goldToken: await engine.decode([r.gold]), emittedToken: await engine.decode([r.emitted]), position, prefix, versus };
}

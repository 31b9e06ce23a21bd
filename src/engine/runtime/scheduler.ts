// Route execution over many rows at once: reference.ts's loop over route positions, each position
// one graph/layer.ts layerBody, with a KV cache per route position.
//
// Work is a set of cursors, each advancing through a route: a cursor runs the layer at its route
// position, then moves on. At every step the scheduler takes the lowest layer index any cursor
// waits on and runs all cursors waiting on it as one batch (grouped by new-token count), whatever
// their route position: rows with different routes and silence sets share session runs, and
// monotone routes (skip / repeat a block) fall back into step after their detour.
// Where the model runs spans (runtime/model.ts), a batch whose cursors run the same next layers
// runs as many of them as one span graph takes: the default route of 24 layers is a 16- and an
// 8-layer run. A span ends where any cursor of the batch turns elsewhere or ends its route.
//
// Prefix sharing: in prefill a cursor stands for every row with the same prompt and the same
// (layer, MLP kept) at each route position so far — a path in the trie over (prompt, route
// prefix). Before each position it splits by the rows' next (layer, kept); rows whose route ends
// there finish with the cursor's hidden state and KV slots. Prefill slots are never written again
// (runtime/io.ts), so the forked cursors share their prefix's slots; decode gives each row its own.
// Hidden states and slots are opaque here: where they live is the model's StateIo's business.
//
// Calls: `prefill` runs prompts through their routes; `decodeStep` feeds streams one token each;
// `decodeLoop` is the token loop of generation and scoring, over both.
import { EngineError, type BlockPoint, type PointsRow, type PointValues } from '../types.ts';
import { pointSite } from '../points.ts';
import type { SlotPoint } from '../graph/contract.ts';
import type { HeadInput, Hidden, KvSlot } from './io.ts';
import { headRows, type HeadRow, type HeadWant, type RoutedModel, type SlotPoints } from './model.ts';

/** One row's route with, per route position, whether that layer's MLP runs. */
export interface RoutePlan {
  route: number[];
  keep: boolean[];
}

interface Cursor {
  plans: number[]; // indices of the rows this cursor computes for
  pos: number; // next route position
  seq: number; // new tokens per row in this pass
  pastLen: number; // tokens already cached
  hidden: Hidden; // [seq, H]
  kv: KvSlot[]; // per route position
}

interface Finished {
  plan: number;
  cursor: Cursor;
}

export interface RunControl {
  /** Throws (EngineError 'cancelled') when the call was cancelled; checked before every run. */
  check(): void;
  /** Largest batch per session run. */
  maxBatch: number;
}

function planKey(p: RoutePlan, pos: number): string | null {
  return pos >= p.route.length ? null : `${p.route[pos]}:${p.keep[pos] ? 1 : 0}`;
}

/** A cursor's read-out points from one span run that started at route position `pos`, per slot. */
type OnPoints = (cursor: Cursor, pos: number, slots: Record<SlotPoint, Hidden>[]) => void;

/** Advances every cursor to the end of its rows' routes; returns one entry per row. With `onPoints`
 *  every span run also reads its slots' read-out points. */
async function runRoutes(model: RoutedModel, plans: RoutePlan[], start: Cursor[], cap: number, ctl: RunControl, onPoints?: OnPoints): Promise<Finished[]> {
  const finished: Finished[] = [];
  const split = (cursors: Cursor[]): Cursor[] => {
    const out: Cursor[] = [];
    for (const c of cursors) {
      const groups = new Map<string, number[]>();
      for (const i of c.plans) {
        const key = planKey(plans[i], c.pos);
        if (key === null) finished.push({ plan: i, cursor: c });
        else groups.set(key, [...(groups.get(key) ?? []), i]);
      }
      if (groups.size === 1 && groups.values().next().value!.length === c.plans.length) out.push(c);
      else for (const members of groups.values()) out.push({ ...c, plans: members, kv: c.kv.slice() });
    }
    return out;
  };
  let active = split(start);
  while (active.length > 0) {
    const layerOf = (c: Cursor) => plans[c.plans[0]].route[c.pos];
    const layer = Math.min(...active.map(layerOf));
    const chosen = active.filter((c) => layerOf(c) === layer);
    const waiting = active.filter((c) => layerOf(c) !== layer);
    const span = spanLength(chosen, plans, model.spans);
    const layers = plans[chosen[0].plans[0]].route.slice(chosen[0].pos, chosen[0].pos + span);
    for (const batch of batches(chosen, ctl.maxBatch)) {
      ctl.check();
      const res = await model.runSpan(
        layers,
        batch.map((c) => ({
          hidden: c.hidden,
          kv: layers.map((_, j) => c.kv[c.pos + j] ?? null),
          pastLen: c.pastLen,
          mlpKeep: layers.map((_, j) => plans[c.plans[0]].keep[c.pos + j]),
        })),
        batch[0].seq,
        cap,
        onPoints !== undefined,
      );
      batch.forEach((c, i) => {
        onPoints?.(c, c.pos, res.points!.map((s: SlotPoints) => Object.fromEntries(Object.entries(s).map(([point, rows]) => [point, rows[i]])) as Record<SlotPoint, Hidden>));
        c.hidden = res.hidden[i];
        layers.forEach((_, j) => (c.kv[c.pos + j] = res.kv[j][i]));
        c.pos += span;
      });
    }
    active = [...waiting, ...split(chosen)];
  }
  return finished;
}

/** The longest span in `sizes` (largest first, 1 among them) over which every cursor runs the same
 *  layers as the first and every row of a cursor the same (layer, MLP kept): a cursor neither
 *  splits nor finishes inside a span. */
function spanLength(cursors: Cursor[], plans: RoutePlan[], sizes: number[]): number {
  const lead = plans[cursors[0].plans[0]];
  const leadPos = cursors[0].pos;
  const uniform = (j: number) => cursors.every((c) => {
    const key = planKey(plans[c.plans[0]], c.pos + j);
    return key !== null && plans[c.plans[0]].route[c.pos + j] === lead.route[leadPos + j] && c.plans.every((i) => planKey(plans[i], c.pos + j) === key);
  });
  let n = 1;
  while (n < sizes[0] && uniform(n)) n++;
  return sizes.find((s) => s <= n)!;
}

/** Batches of cursors with the same new-token count; a multi-token pass over a non-empty
 *  cache runs alone (GroupQueryAttention takes batch 1 there). */
function batches(cursors: Cursor[], maxBatch: number): Cursor[][] {
  const bySeq = new Map<number, Cursor[]>();
  const out: Cursor[][] = [];
  for (const c of cursors) {
    if (c.seq > 1 && c.pastLen > 0) out.push([c]);
    else bySeq.set(c.seq, [...(bySeq.get(c.seq) ?? []), c]);
  }
  for (const group of bySeq.values()) {
    for (let i = 0; i < group.length; i += maxBatch) out.push(group.slice(i, i + maxBatch));
  }
  return out;
}

/** A row through its route: its KV slot per route position and its head output. */
export interface Prefilled {
  kv: KvSlot[];
  head: HeadRow;
}

/** Runs each row's prompt through its route, sharing the work of rows with a common prompt and
 *  route prefix; returns per row its KV slots and head output. Rows sharing a whole path share them. */
export async function prefill(
  model: RoutedModel,
  prompts: number[][],
  plans: RoutePlan[],
  cap: number,
  ctl: RunControl,
  want: HeadWant,
  allPositions = false,
): Promise<Prefilled[]> {
  const roots = new Map<string, Cursor>();
  const distinct: number[][] = [];
  prompts.forEach((ids, i) => {
    const key = ids.join(',');
    const root = roots.get(key);
    if (root) root.plans.push(i);
    else {
      roots.set(key, { plans: [i], pos: 0, seq: ids.length, pastLen: 0, hidden: { seq: 0 }, kv: [] });
      distinct.push(ids);
    }
  });
  ctl.check();
  const embedded = await model.embed(distinct); // one embedding run for every distinct prompt
  [...roots.values()].forEach((root, i) => (root.hidden = embedded[i]));
  const finished = await runRoutes(model, plans, [...roots.values()], cap, ctl);
  // one head pass over the distinct end states
  const ends = [...new Set(finished.map((f) => f.cursor))];
  const fed = ends.map((c) => ({ hidden: c.hidden, all: allPositions }));
  ctl.check();
  const head = await model.runHead(fed, want);
  const rowOf = new Map(headRows(head, fed, model.config.vocabSize).map((h, i) => [ends[i], h]));
  const out: Prefilled[] = new Array(prompts.length);
  for (const f of finished) out[f.plan] = { kv: f.cursor.kv, head: rowOf.get(f.cursor)! };
  model.endStep(head.next ?? [], ends.map((c) => c.kv));
  return out;
}

/** Runs one row's prompt through its route, reading its read-out points (engine/points.ts) at its
 *  last prompt position or at every one, in the same span runs: each run also returns its slots'
 *  points (graph/contract.ts); `ln_final` takes one head run. */
export async function readPoints(model: RoutedModel, row: PointsRow, plan: RoutePlan, cap: number, ctl: RunControl): Promise<PointValues> {
  const sites = row.points.map((name) => pointSite(name, plan.route.length));
  const all = row.positions === 'all';
  ctl.check();
  const [embedded] = await model.embed([row.promptIds]); // [T, H]
  const at: Record<BlockPoint, Hidden>[] = []; // per route position
  const start: Cursor = { plans: [0], pos: 0, seq: row.promptIds.length, pastLen: 0, hidden: embedded, kv: [] };
  const [end] = await runRoutes(model, [plan], [start], cap, ctl, (_c, pos, slots) =>
    slots.forEach((s, j) => (at[pos + j] = { resid_pre: pos + j === 0 ? embedded : at[pos + j - 1].resid_post, ...s })),
  );
  ctl.check();
  const lnFinal = sites.includes('ln_final') ? (await model.runHead([{ hidden: end.cursor.hidden, all }], { logits: false, greedy: false, lnFinal: true })).lnFinal! : null;
  const blocks = sites.flatMap((s) => (s === 'ln_final' ? [] : [{ hidden: at[s.position][s.point], all }]));
  const flat = blocks.length > 0 ? await model.readRows(blocks) : new Float32Array(0); // [blocks · positions, H]
  model.endStep([], []);
  const H = model.config.hiddenSize;
  const count = all ? row.promptIds.length : 1;
  const vectors = (data: Float32Array, first: number) => Array.from({ length: count }, (_, t) => data.subarray((first + t) * H, (first + t + 1) * H));
  let b = 0;
  return new Map(row.points.map((name, i) => [name, sites[i] === 'ln_final' ? vectors(lnFinal!, 0) : vectors(flat, count * b++)]));
}

/** A row being decoded: its KV slots (replaced as it runs) and cached length. */
export interface DecodeStream {
  plan: RoutePlan;
  kv: KvSlot[];
  length: number;
}

/** Feeds one token to each stream — by id, or by its embedding from the last head run — all
 *  streams in one scheduled pass; returns per stream its head output, as `want` asks. */
export async function decodeStep(
  model: RoutedModel,
  streams: DecodeStream[],
  input: { tokens: number[] } | { embedded: Hidden[] },
  cap: number,
  ctl: RunControl,
  want: HeadWant,
): Promise<HeadRow[]> {
  for (const s of streams) {
    if (s.length + 1 > cap) throw new EngineError('internal', `KV cache of capacity ${cap} is full`);
  }
  ctl.check();
  const hidden = 'tokens' in input ? await model.embed(input.tokens.map((t) => [t])) : input.embedded; // [1, H] each
  const cursors: Cursor[] = streams.map((s, i) => ({ plans: [i], pos: 0, seq: 1, pastLen: s.length, hidden: hidden[i], kv: s.kv }));
  const finished = await runRoutes(model, streams.map((s) => s.plan), cursors, cap, ctl);
  const fed = new Array<HeadInput>(streams.length);
  for (const f of finished) fed[f.plan] = { hidden: f.cursor.hidden, all: false };
  ctl.check();
  const head = await model.runHead(fed, want);
  streams.forEach((s) => s.length++);
  model.endStep(head.next ?? [], streams.map((s) => s.kv));
  return headRows(head, fed, model.config.vocabSize);
}

/** What the token loop does with a stream's head output at `step`: the token to feed the stream
 *  next, or null when it is done. */
export type NextToken = (stream: number, head: HeadRow, step: number) => number | null;

/**
 * Prefills `prompts` through `plans`, then decodes streams until each is done: stream s continues
 * row `rows[s]` on KV slots of its own (one row may have several streams) and is fed the tokens
 * `next` picks. Without logits (`want.logits` false) every stream decodes greedily: the token fed
 * is the head's choice, whose embedding its run made already (on WebGPU it stays on the device).
 */
export async function decodeLoop(
  model: RoutedModel,
  prompts: number[][],
  plans: RoutePlan[],
  rows: number[],
  cap: number,
  ctl: RunControl,
  want: HeadWant,
  next: NextToken,
): Promise<void> {
  const pre = await prefill(model, prompts, plans, cap, ctl, want);
  const streams: DecodeStream[] = rows.map((r) => ({ plan: plans[r], kv: pre[r].kv.slice(), length: prompts[r].length }));
  let active = rows.map((_, s) => s);
  let heads = rows.map((r) => pre[r].head); // heads[j]: the head output of stream active[j]
  for (let step = 0; ; step++) {
    const tokens = active.map((s, j) => next(s, heads[j], step));
    const going = active.flatMap((_, j) => (tokens[j] === null ? [] : [j]));
    if (going.length === 0) return;
    const input = want.logits ? { tokens: going.map((j) => tokens[j]!) } : { embedded: going.map((j) => heads[j].next!) };
    active = going.map((j) => active[j]);
    heads = await decodeStep(model, active.map((s) => streams[s]), input, cap, ctl, want);
  }
}


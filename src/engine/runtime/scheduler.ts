// Route execution over many rows at once.
//
// Work is a set of cursors, each advancing through a route: a cursor runs the layer at its route
// position, then moves on. At every step the scheduler takes the lowest layer index any cursor
// waits on and runs all cursors waiting on it as one batch (grouped by new-token count), whatever
// their route position: rows with different routes and silence sets share session runs, and
// monotone routes (skip / repeat a block) fall back into step after their detour.
//
// Prefix sharing: in prefill a cursor stands for every row with the same prompt and the same
// (layer, MLP kept) at each route position so far — a path in the trie over (prompt, route
// prefix). Before each position it splits by the rows' next (layer, kept); rows whose route ends
// there finish with the cursor's hidden state and KV slots. Slots are immutable (runtime/kv.ts),
// so the forked cursors share their prefix's slots and decode appends new ones per row.
import { EngineError } from '../types.ts';
import type { KvSlot } from './kv.ts';
import type { RoutedModel } from './model.ts';

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
  hidden: Float32Array; // [seq, H]
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

/** Advances every cursor to the end of its rows' routes; returns one entry per row. */
async function runRoutes(model: RoutedModel, plans: RoutePlan[], start: Cursor[], cap: number, ctl: RunControl): Promise<Finished[]> {
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
    for (const batch of batches(chosen, ctl.maxBatch)) {
      ctl.check();
      const res = await model.runLayer(
        layer,
        batch.map((c) => ({ hidden: c.hidden, kv: c.kv[c.pos] ?? null, pastLen: c.pastLen, mlpKeep: plans[c.plans[0]].keep[c.pos] })),
        batch[0].seq,
        cap,
      );
      batch.forEach((c, i) => {
        c.hidden = res.hidden[i];
        c.kv[c.pos] = res.kv[i];
        c.pos++;
      });
    }
    active = [...waiting, ...split(chosen)];
  }
  return finished;
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

export interface PrefillResult {
  /** KV slot per route position. */
  kv: KvSlot[];
  /** Logits [positions, vocab]: the last prompt position, or every position with allPositions. */
  logits: Float32Array;
}

/** Runs each row's prompt through its route, sharing the work of rows with a common prompt and
 *  route prefix; returns per row its KV slots and logits. Rows sharing a whole path share arrays. */
export async function prefill(
  model: RoutedModel,
  prompts: number[][],
  plans: RoutePlan[],
  cap: number,
  ctl: RunControl,
  allPositions = false,
): Promise<PrefillResult[]> {
  const roots = new Map<string, Cursor>();
  prompts.forEach((ids, i) => {
    const key = ids.join(',');
    const root = roots.get(key);
    if (root) root.plans.push(i);
    else roots.set(key, { plans: [i], pos: 0, seq: ids.length, pastLen: 0, hidden: model.embed(ids), kv: [] });
  });
  const finished = await runRoutes(model, plans, [...roots.values()], cap, ctl);
  // one head pass over the distinct end states
  const H = model.config.hiddenSize;
  const V = model.config.vocabSize;
  const ends = [...new Set(finished.map((f) => f.cursor))];
  const rowsOf = (c: Cursor) => (allPositions ? c.seq : 1);
  const n = ends.reduce((s, c) => s + rowsOf(c), 0);
  const input = new Float32Array(n * H);
  const offsets = new Map<Cursor, number>();
  let at = 0;
  for (const c of ends) {
    offsets.set(c, at);
    input.set(allPositions ? c.hidden : c.hidden.subarray((c.seq - 1) * H), at * H);
    at += rowsOf(c);
  }
  ctl.check();
  const logits = await model.runHead(input, n);
  const out: PrefillResult[] = new Array(prompts.length);
  for (const f of finished) {
    const o = offsets.get(f.cursor)!;
    out[f.plan] = { kv: f.cursor.kv, logits: logits.subarray(o * V, (o + rowsOf(f.cursor)) * V) };
  }
  return out;
}

/** A row being decoded: its KV slots (replaced in place as it runs) and cached length. */
export interface DecodeStream {
  plan: RoutePlan;
  kv: KvSlot[];
  length: number;
}

/** Feeds one token to each stream (all streams in one scheduled pass); returns logits [vocab] per stream. */
export async function decodeStep(model: RoutedModel, streams: DecodeStream[], tokens: number[], cap: number, ctl: RunControl): Promise<Float32Array[]> {
  for (const s of streams) {
    if (s.length + 1 > cap) throw new EngineError('internal', `KV cache of capacity ${cap} is full`);
  }
  const cursors: Cursor[] = streams.map((s, i) => ({ plans: [i], pos: 0, seq: 1, pastLen: s.length, hidden: model.embed([tokens[i]]), kv: s.kv }));
  const finished = await runRoutes(model, streams.map((s) => s.plan), cursors, cap, ctl);
  const H = model.config.hiddenSize;
  const V = model.config.vocabSize;
  const input = new Float32Array(streams.length * H);
  for (const f of finished) input.set(f.cursor.hidden, f.plan * H);
  ctl.check();
  const logits = await model.runHead(input, streams.length);
  streams.forEach((s) => s.length++);
  return streams.map((_, i) => logits.subarray(i * V, (i + 1) * V));
}

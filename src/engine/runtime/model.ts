// The loaded model as sessions: layer sessions (graph/layer.ts: one per model layer with its weights
// inside, or span sessions of 1, 2, 4, ... layer slots fed each layer's weights, so one run covers
// several route positions) and one head session that embeds token ids, computes logits and the
// greedy choice (graph/head.ts: a tied embedding is held once). Runs feed and fetch by the names of
// graph/contract.ts.
// Hidden states and KV caches move between runs through a StateIo (runtime/io.ts): typed arrays on
// WASM, GPU buffers on WebGPU. Every session.run() is counted in `runs`.
import type { InferenceSession, Tensor } from 'onnxruntime-common';
import { exposesGpuDevice, type Ort } from '../ort.ts';
import { EngineError, type ModelConfig } from '../types.ts';
import { createSessions, type LayerSet, type LoadTarget, type WeightSource } from './load.ts';
import { GRAPH, type SlotPoint } from '../graph/contract.ts';
import { CpuIo } from './cpu-io.ts';
import { GpuIo } from './gpu-io.ts';
import type { HeadInput, Hidden, KvSlot, StateIo } from './io.ts';

const { span: SPAN, head: HEAD } = GRAPH;

/** A span run's read-out points for its rows, per slot (graph/contract.ts): each [seq, H] per row. */
export type SlotPoints = Record<SlotPoint, Hidden[]>;

/** One row of a span batch: `seq` new tokens after `pastLen` cached ones; per span position its
 *  KV slot (null: a fresh route position, nothing cached yet) and whether the MLP runs. */
export interface SpanRow {
  hidden: Hidden; // [seq, H]
  kv: (KvSlot | null)[];
  pastLen: number;
  mlpKeep: boolean[];
}

/** Which head outputs a run reads back. */
export interface HeadWant {
  logits: boolean;
  greedy: boolean;
  /** The read-out point ln_final (the final norm's output). */
  lnFinal?: boolean;
}

/** A head run's outputs over its n projected vectors, as read back; `headRows` splits them by row. */
export interface HeadOut {
  logits?: Float32Array; // [n, V]
  lnFinal?: Float32Array; // [n, H]
  greedy?: { ids: BigInt64Array; logprobs: Float32Array }; // [n] each
  /** With greedy: the embeddings of the chosen ids, one row each (the next step's input). */
  next?: Hidden[];
}

/** A token and its log-prob. */
export interface TokenChoice {
  id: number;
  logprob: number;
}

/** The head's output for one row, as `want` asks. */
export interface HeadRow {
  logits?: Float32Array; // [positions, V]: the last position, or every position of an `all` row
  greedy?: TokenChoice; // the last position's argmax; logprob NaN when a logit of the row is NaN or ±Inf
  next?: Hidden; // [1, H] with greedy: greedy.id's embedding, the next step's input
}

/** The output of a head run over `rows` (as fed to runHead), one HeadRow per row. */
export function headRows(out: HeadOut, rows: HeadInput[], V: number): HeadRow[] {
  let o = 0; // the row's first vector
  return rows.map(({ hidden, all }) => {
    const count = all ? hidden.seq : 1;
    const last = o + count - 1;
    const row = {
      logits: out.logits?.subarray(o * V, (o + count) * V),
      greedy: out.greedy ? { id: Number(out.greedy.ids[last]), logprob: out.greedy.logprobs[last] } : undefined,
      next: out.next?.[last],
    };
    o += count;
    return row;
  });
}

/** Head dims GroupQueryAttention's CPU/WASM kernels take (head_size % 8 == 0 with do_rotary=0). */
function checkHeadDim(config: ModelConfig): void {
  if (config.headDim % 8 !== 0 || config.headDim % 2 !== 0) {
    throw new EngineError('unsupported-architecture', `head_dim ${config.headDim} is not a multiple of 8, which GroupQueryAttention needs`);
  }
  if (config.numHeads % config.numKvHeads !== 0) {
    throw new EngineError('unsupported-architecture', `num_attention_heads ${config.numHeads} is not a multiple of num_key_value_heads ${config.numKvHeads}`);
  }
}

export class RoutedModel {
  /** session.run() calls so far. */
  runs = 0;
  /** Token positions pushed through a layer so far: rows × new tokens × route positions of each span run. */
  layerTokens = 0;
  /** How many layers one run can cover, largest first (runSpan's lengths). */
  readonly spans: number[];

  private constructor(
    private readonly ort: Ort,
    readonly config: ModelConfig,
    readonly maxSeqLen: number,
    private readonly layers: LayerSet,
    private readonly head: InferenceSession,
    private readonly io: StateIo,
  ) {
    this.spans = layers.kind === 'spans' ? [...layers.sessions.keys()] : [1]; // created largest first
  }

  static async create(ort: Ort, src: WeightSource, target: LoadTarget): Promise<RoutedModel> {
    const c = src.config;
    checkHeadDim(c);
    const { layers, head } = await createSessions(ort, src, target);
    const kvShape = { heads: c.numKvHeads, headDim: c.headDim };
    const io = target.ep === 'webgpu' && exposesGpuDevice(ort)
      ? new GpuIo(ort, (await ort.env.webgpu.device) as GPUDevice, c.hiddenSize, kvShape, target.precision.act)
      : new CpuIo(ort, c.hiddenSize, kvShape, target.precision.act);
    return new RoutedModel(ort, c, target.maxSeqLen, layers, head, io);
  }

  /** Bytes fed to runs from the CPU and read back from them, so far. */
  get transfer(): { upload: number; download: number } {
    return this.io.transfer;
  }

  /** Embeddings of token-id sequences, one Hidden of ids.length rows each (one head-session run). */
  async embed(prompts: number[][]): Promise<Hidden[]> {
    const ids = prompts.flat();
    ids.forEach((id) => {
      if (!Number.isInteger(id) || id < 0 || id >= this.config.vocabSize) {
        throw new EngineError('bad-input', `token id ${id} is outside the vocabulary [0, ${this.config.vocabSize})`);
      }
    });
    const out = await this.runHeadSession(this.io.feed('int32', Int32Array.from(ids), [ids.length]), this.empty('float32', [0, this.config.hiddenSize]), [HEAD.out.embedded]);
    return this.io.splitRows(out[HEAD.out.embedded], prompts.map((p) => p.length));
  }

  /** Runs `layers` in sequence (a length in `spans`) on rows that each bring `seq` new tokens; KV
   *  capacity `cap`. Returns per row the last layer's hidden state and per span position the rows'
   *  slots, and where `read`, per span position the rows' read-out points. */
  async runSpan(layers: number[], rows: SpanRow[], seq: number, cap: number, read = false): Promise<{ hidden: Hidden[]; kv: KvSlot[][]; points?: SlotPoints[] }> {
    const B = rows.length;
    const io = this.io;
    const positions = new BigInt64Array(B * seq); // [B, seq]
    rows.forEach((r, i) => {
      for (let s = 0; s < seq; s++) positions[i * seq + s] = BigInt(r.pastLen + s);
    });
    const totals = rows.map((r) => r.pastLen + seq);
    const feeds: Record<string, Tensor> = {
      [SPAN.in.hidden]: io.hiddenFeed(rows.map((r) => r.hidden), seq),
      [SPAN.in.seqlensK]: io.feed('int32', Int32Array.from(totals, (t) => t - 1), [B]),
      [SPAN.in.totalSeqLen]: io.cpuFeed('int32', Int32Array.of(Math.max(...totals)), [1]),
      [SPAN.in.positionIds]: io.feed('int64', positions, [B, seq]),
    };
    const fetches: string[] = [SPAN.out.hidden];
    const bound: Record<string, Tensor | null> = { [SPAN.out.hidden]: null };
    const slots = layers.map((layer, j) => {
      const slot = SPAN.slot(j);
      const kv = io.kvFeed(rows.map((r) => r.kv[j]), cap);
      feeds[slot.in.pastKey] = kv.key;
      feeds[slot.in.pastValue] = kv.value;
      feeds[slot.in.mlpKeep] = io.feed('bool', Uint8Array.from(rows, (r) => (r.mlpKeep[j] ? 1 : 0)), [B, 1, 1], 'call');
      if (this.layers.kind === 'spans') for (const [name, t] of Object.entries(this.layers.weights[layer])) feeds[slot.prefix + name] = t;
      fetches.push(slot.out.presentKey, slot.out.presentValue);
      if (kv.bind) Object.assign(bound, { [slot.out.presentKey]: kv.bind.key, [slot.out.presentValue]: kv.bind.value });
      if (read) {
        for (const name of Object.values(slot.out.points)) {
          fetches.push(name);
          bound[name] = null;
        }
      }
      return { slot, kv };
    });
    this.runs++;
    this.layerTokens += B * seq * layers.length;
    const out = await this.spanSession(layers).run(feeds, slots[0].kv.bind ? bound : fetches);
    const rowsOf = (name: string) => io.hiddenRows(out[name], B, seq);
    return {
      hidden: rowsOf(SPAN.out.hidden),
      kv: slots.map(({ slot, kv }) => kv.commit(out[slot.out.presentKey], out[slot.out.presentValue])),
      ...(read ? { points: slots.map(({ slot }) => Object.fromEntries(Object.entries(slot.out.points).map(([point, name]) => [point, rowsOf(name)])) as SlotPoints) } : {}),
    };
  }

  private spanSession(layers: number[]): InferenceSession {
    const session = this.layers.kind === 'spans' ? this.layers.sessions.get(layers.length) : layers.length === 1 ? this.layers.sessions[layers[0]] : undefined;
    if (!session) throw new EngineError('internal', `no session runs a span of ${layers.length} layers (spans: ${this.spans.join(', ')})`);
    return session;
  }

  /** Final norm + LM head over the last (or every) vector of rows: logits and/or greedy choices. */
  async runHead(rows: HeadInput[], want: HeadWant): Promise<HeadOut> {
    const { logits, lnFinal, nextIds, nextLogprobs, nextEmbedded } = HEAD.out;
    const fetches = [...(want.logits ? [logits] : []), ...(want.lnFinal ? [lnFinal] : []), ...(want.greedy ? [nextIds, nextLogprobs, nextEmbedded] : [])];
    const out = await this.runHeadSession(this.empty('int32', [0]), this.io.headFeed(rows), fetches);
    const read = {
      logits: want.logits ? this.io.read<Float32Array>(out[logits]) : undefined,
      ...(want.lnFinal ? { lnFinal: this.io.read<Float32Array>(out[lnFinal]) } : {}),
    };
    if (!want.greedy) return read;
    const ids = this.io.read<BigInt64Array>(out[nextIds]);
    return {
      ...read,
      greedy: { ids, logprobs: this.io.read<Float32Array>(out[nextLogprobs]) },
      next: this.io.hiddenRows(out[nextEmbedded], ids.length, 1),
    };
  }

  /** The last vector of each row, or all of them where `all`, read back: [n, H]. */
  readRows(rows: HeadInput[]): Promise<Float32Array> {
    return this.io.readRows(rows);
  }

  /** Final norm + LM head over n vectors given on the CPU ([n, H]): their logits [n, V]. */
  async project(vectors: Float32Array, n: number): Promise<Float32Array> {
    const hidden = new this.ort.Tensor('float32', vectors, [n, this.config.hiddenSize]);
    const out = await this.runHeadSession(this.empty('int32', [0]), hidden, [HEAD.out.logits]);
    return this.io.read<Float32Array>(out[HEAD.out.logits]);
  }

  /** A zero-size CPU input (the head session's unused half). */
  private empty(type: 'float32' | 'int32', dims: number[]): Tensor {
    return new this.ort.Tensor(type, type === 'int32' ? new Int32Array(0) : new Float32Array(0), dims);
  }

  private async runHeadSession(ids: Tensor, hidden: Tensor, fetches: string[]) {
    this.runs++;
    return this.head.run({ [HEAD.in.ids]: ids, [HEAD.in.hidden]: hidden }, fetches);
  }

  /** See StateIo.endStep / endCall. */
  endStep(keep: Hidden[], live: KvSlot[][]): void {
    this.io.endStep(keep, live);
  }

  endCall(): void {
    this.io.endCall();
  }

  async dispose(): Promise<void> {
    this.io.endCall();
    const l = this.layers;
    await Promise.all([...l.sessions.values(), this.head].map((s) => s.release()));
    if (l.kind === 'spans') for (const t of l.weights.flatMap((w) => Object.values(w))) t.dispose();
  }
}

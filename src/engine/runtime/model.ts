// The loaded model as sessions: one ONNX session per model layer (its weights as initializers, so
// one copy of the weights however often a route runs the layer), one head session (final norm +
// LM head), and the embedding matrix kept in JS (a gather is a row copy). Every session.run() is
// counted in `runs` (the engine benchmark reports runs per attempt).
import type { InferenceSession, Tensor } from 'onnxruntime-common';
import type { Ort } from '../ort.ts';
import { EngineError, type ModelConfig, type LoadProgress } from '../types.ts';
import { buildLayerGraph, layerTensorKeys, type LayerWeights } from '../graph/layer.ts';
import { buildHeadGraph } from '../graph/head.ts';
import type { Precision } from '../graph/linear.ts';
import { layerWeights, MODEL_WEIGHTS } from '../checkpoint.ts';
import { SAFETENSORS_DTYPE_BYTES } from '../safetensors.ts';
import { splitSlots, stackSlots, type KvAlloc, type KvArray, type KvSlot } from './kv.ts';

/** What the model needs from a checkpoint (checkpoint.ts Checkpoint satisfies it). */
export interface WeightSource {
  readonly config: ModelConfig;
  /** Stored bytes of the tensors the architecture uses (progress total). */
  readonly weightBytes: number;
  readF32(name: string): Promise<Float32Array>;
  tensorInfo(name: string): { dtype: keyof typeof SAFETENSORS_DTYPE_BYTES; shape: number[] };
}

export interface ModelOptions {
  ep: 'webgpu' | 'wasm';
  precision: Precision;
  /** Longest sequence (prompt + generated) a KV cache can hold; rotary caches cover it. */
  maxSeqLen: number;
  onProgress?: (p: LoadProgress) => void;
}

/** One row of a layer batch: `seq` new tokens after `pastLen` cached ones. */
export interface LayerRow {
  hidden: Float32Array; // [seq, H]
  kv: KvSlot | null; // null: a fresh route position (nothing cached yet)
  pastLen: number;
  mlpKeep: boolean;
}

/** Head dims GroupQueryAttention's CPU/WASM kernels take (head_size % 8 == 0 with do_rotary=0). */
export function checkHeadDim(config: ModelConfig): void {
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
  /** KV buffers in the activation type (f16 as bit patterns). */
  private readonly kvAlloc: KvAlloc;

  private constructor(
    private readonly ort: Ort,
    readonly config: ModelConfig,
    readonly maxSeqLen: number,
    private readonly embedding: Float32Array, // [vocab, H]
    private readonly layers: InferenceSession[],
    private readonly head: InferenceSession,
    private readonly precision: Precision,
  ) {
    this.kvAlloc = precision.act === 'float16' ? (n) => new Uint16Array(n) : (n) => new Float32Array(n);
  }

  static async create(ort: Ort, src: WeightSource, opts: ModelOptions): Promise<RoutedModel> {
    const c = src.config;
    checkHeadDim(c);
    const sessionOptions: InferenceSession.SessionOptions = { executionProviders: [opts.ep], graphOptimizationLevel: 'all' };
    // progress in stored weight bytes read so far
    let loaded = 0;
    const read = async (name: string) => {
      const info = src.tensorInfo(name);
      const t = await src.readF32(name);
      loaded += info.shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[info.dtype];
      opts.onProgress?.({ phase: 'weights', item: name, loadedBytes: loaded, totalBytes: src.weightBytes });
      return t;
    };
    const progress = (item: string) => opts.onProgress?.({ phase: 'session', item, loadedBytes: loaded, totalBytes: src.weightBytes });
    const created: InferenceSession[] = [];
    try {
      const embedding = await read(MODEL_WEIGHTS.embed);
      const layers: InferenceSession[] = [];
      for (let i = 0; i < c.numLayers; i++) {
        const names = layerWeights(i);
        const w: Partial<LayerWeights> = {};
        for (const key of layerTensorKeys(c)) w[key] = await read(names[key]);
        progress(`layer ${i}`);
        const bytes = buildLayerGraph(c, i, w as LayerWeights, { precision: opts.precision, maxPositions: opts.maxSeqLen });
        const s = await ort.InferenceSession.create(bytes, sessionOptions);
        created.push(s);
        layers.push(s);
      }
      const norm = await read(MODEL_WEIGHTS.norm);
      const lmHead = c.tieWordEmbeddings ? embedding : await read(MODEL_WEIGHTS.lmHead);
      progress('head');
      const head = await ort.InferenceSession.create(buildHeadGraph(c, norm, lmHead, opts.precision), sessionOptions);
      created.push(head);
      return new RoutedModel(ort, c, opts.maxSeqLen, embedding, layers, head, opts.precision);
    } catch (e) {
      await Promise.all(created.map((s) => s.release()));
      throw e;
    }
  }

  /** Embedding rows for token ids: [ids.length, H]. */
  embed(ids: number[]): Float32Array {
    const H = this.config.hiddenSize;
    const out = new Float32Array(ids.length * H);
    ids.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= this.config.vocabSize) {
        throw new EngineError('bad-input', `token id ${id} is outside the vocabulary [0, ${this.config.vocabSize})`);
      }
      out.set(this.embedding.subarray(id * H, (id + 1) * H), i * H);
    });
    return out;
  }

  /** Runs `layer` on rows that each bring `seq` new tokens; KV capacity `cap`. */
  async runLayer(layer: number, rows: LayerRow[], seq: number, cap: number): Promise<{ hidden: Float32Array[]; kv: KvSlot[] }> {
    const { hiddenSize: H, numKvHeads: nKv, headDim: hd } = this.config;
    const B = rows.length;
    const slotSize = nKv * cap * hd;
    const hidden = new Float32Array(B * seq * H);
    rows.forEach((r, i) => hidden.set(r.hidden, i * seq * H));
    const slots = rows.map((r) => r.kv);
    const positions = new BigInt64Array(B * seq);
    rows.forEach((r, i) => {
      for (let s = 0; s < seq; s++) positions[i * seq + s] = BigInt(r.pastLen + s);
    });
    const totals = rows.map((r) => r.pastLen + seq);
    const T = this.ort.Tensor;
    const act = this.precision.act;
    const alloc = this.kvAlloc;
    const feeds: Record<string, Tensor> = {
      hidden: new T('float32', hidden, [B, seq, H]),
      past_key: new T(act, stackSlots(slots, slotSize, 'key', alloc), [B, nKv, cap, hd]),
      past_value: new T(act, stackSlots(slots, slotSize, 'value', alloc), [B, nKv, cap, hd]),
      seqlens_k: new T('int32', Int32Array.from(totals, (t) => t - 1), [B]),
      total_seq_len: new T('int32', Int32Array.of(Math.max(...totals)), [1]),
      position_ids: new T('int64', positions, [B, seq]),
      mlp_keep: new T('bool', Uint8Array.from(rows, (r) => (r.mlpKeep ? 1 : 0)), [B, 1, 1]),
    };
    this.runs++;
    const out = await this.layers[layer].run(feeds);
    const h = out.hidden_out.data as Float32Array;
    return {
      hidden: rows.map((_, i) => h.subarray(i * seq * H, (i + 1) * seq * H)),
      kv: splitSlots(out.present_key.data as KvArray, out.present_value.data as KvArray, B, slotSize),
    };
  }

  /** Final norm + LM head over n hidden vectors [n, H]: logits [n, vocab]. */
  async runHead(hidden: Float32Array, n: number): Promise<Float32Array> {
    this.runs++;
    const out = await this.head.run({ hidden: new this.ort.Tensor('float32', hidden, [n, this.config.hiddenSize]) });
    return out.logits.data as Float32Array;
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.layers, this.head].map((s) => s.release()));
  }
}

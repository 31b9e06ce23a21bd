// A checkpoint in Hugging Face layout, opened and validated up front; weights streamed on demand.
//
// API (the loading half of the engine):
//
//   const reader = openReader(source, onBytes?)        // sources/reader.ts: hub | files | fs
//                                                      // (sources/memory.ts MemoryReader for generated files)
//   const ckpt = await openCheckpoint(reader, onProgress?)
//   ckpt.config            ModelConfig (types.ts), parsed and checked by config.ts
//   ckpt.rawConfig / tokenizerJson / tokenizerConfig / generationConfig   the JSON files as read
//   ckpt.chatTemplateJinja   chat_template.jinja as read, or null (it takes precedence over
//                            tokenizer_config.json chat_template, as in transformers)
//   ckpt.name              reader label: "org/name@rev" or the folder name
//   await ckpt.fingerprint()   content address of the model, once every tensor the architecture uses
//                              was read: SHA-256 over the config, generation config and tokenizer
//                              texts and each used tensor's name, dtype, shape and row-chunk digests
//                              (the same bytes give the same fingerprint from the Hub, files or disk)
//   ckpt.weightBytes       stored bytes of the tensors the architecture uses
//   ckpt.tensorNames() / tensorInfo(name)   every tensor of every weight file
//   await ckpt.readF32(name)   one tensor as f32 (BF16/F16 converted), read by byte range in chunks
//                              (small tensors through a 16 MB read-ahead: sources/read-ahead.ts)
//   await ckpt.readF16(name)   one tensor as f16 bits (F16 as stored, others converted)
//   for await (const c of ckpt.rowChunks(name))   one tensor as f32 chunks of whole rows (the
//                              engine converts weights chunk by chunk: no whole-tensor f32 copy)
//   ckpt.prefetch(names)       starts the byte reads of these tensors now (the next layer's,
//                              while this one is converted and its session created)
//   layerWeights(i), MODEL_WEIGHTS  the tensor names the engine uses
//
// openCheckpoint refuses, before any weight is read: what opts.checkConfig refuses, a malformed config (config.ts), a malformed
// safetensors header or shard index (safetensors.ts), a missing shard, a tensor the architecture
// needs that is missing, has the wrong shape, or is not F32/F16/BF16.

import { bf16ToF32, f16ToF32, f32ToF16 } from './dtype.ts';
import { parseConfig } from './config.ts';
import { checkTokenizerVocab } from './tokenizer.ts';
import {
  isWeightDtype, parseShardIndex, readSafetensorsHeader, SAFETENSORS_DTYPE_BYTES,
  type SafetensorsDtype, type TensorEntry,
} from './safetensors.ts';
import { withReadAhead } from './sources/read-ahead.ts';
import { MAX_ARRAY_BUFFER_BYTES } from './memory.ts';
import type { CheckpointReader } from './sources/reader.ts';
import { EngineError, type LoadProgress, type ModelConfig } from './types.ts';
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import { JsonInputError, parseJsonInput } from '../util/json-input.ts';

export interface TensorInfo {
  dtype: SafetensorsDtype;
  shape: number[];
  file: string;
}

export interface Checkpoint {
  readonly name: string;
  readonly hubRef?: { repo: string; revision: string };
  readonly config: ModelConfig;
  readonly rawConfig: Record<string, unknown>;
  readonly tokenizerJson: unknown;
  readonly tokenizerConfig: Record<string, unknown>;
  readonly generationConfig: Record<string, unknown>;
  readonly chatTemplateJinja: string | null;
  /** Content fingerprint; rejects until every tensor the architecture uses has been read. */
  fingerprint(): Promise<string>;
  readonly weightBytes: number;
  tensorNames(): string[];
  tensorInfo(name: string): TensorInfo;
  /** One tensor as f32, streamed by range reads; BF16/F16 converted on load. */
  readF32(name: string): Promise<Float32Array>;
  /** One tensor as f16 bit patterns (F16 as stored; F32/BF16 rounded to nearest even). */
  readF16(name: string): Promise<Uint16Array>;
  /** A [rows, cols] tensor (1-D: one row) as f32 chunks of whole rows, in order; a chunk's data is
   *  valid until the next one is requested. */
  rowChunks(name: string): AsyncGenerator<RowChunk>;
  /** Starts reading the stored bytes of these tensors (rowChunks then takes them from memory). */
  prefetch(names: string[]): void;
  /** Stored bytes of weights converted so far (progress). */
  readonly bytesRead: number;
}

export interface RowChunk {
  data: Float32Array; // [count, cols]
  /** Index of the chunk's first row in the tensor. */
  row0: number;
  count: number;
}

export const MODEL_WEIGHTS = {
  embed: 'model.embed_tokens.weight', // [vocab, hidden]
  norm: 'model.norm.weight', // [hidden]
  lmHead: 'lm_head.weight', // [vocab, hidden], absent when tied to embed
} as const;

/** Names of layer i's tensors (Hugging Face naming). */
export function layerWeights(i: number) {
  const p = `model.layers.${i}`;
  return {
    inputNorm: `${p}.input_layernorm.weight`, // [hidden]
    q: `${p}.self_attn.q_proj.weight`, // [heads*headDim, hidden]
    k: `${p}.self_attn.k_proj.weight`, // [kvHeads*headDim, hidden]
    v: `${p}.self_attn.v_proj.weight`, // [kvHeads*headDim, hidden]
    qBias: `${p}.self_attn.q_proj.bias`, // [heads*headDim] (qwen2)
    kBias: `${p}.self_attn.k_proj.bias`, // [kvHeads*headDim] (qwen2)
    vBias: `${p}.self_attn.v_proj.bias`, // [kvHeads*headDim] (qwen2)
    qNorm: `${p}.self_attn.q_norm.weight`, // [headDim] (qwen3)
    kNorm: `${p}.self_attn.k_norm.weight`, // [headDim] (qwen3)
    o: `${p}.self_attn.o_proj.weight`, // [hidden, heads*headDim]
    postNorm: `${p}.post_attention_layernorm.weight`, // [hidden]
    gate: `${p}.mlp.gate_proj.weight`, // [intermediate, hidden]
    up: `${p}.mlp.up_proj.weight`, // [intermediate, hidden]
    down: `${p}.mlp.down_proj.weight`, // [hidden, intermediate]
  };
}

/** Every tensor the architecture reads, with its expected shape. */
export function requiredTensors(c: ModelConfig): Array<{ name: string; shape: number[] }> {
  const H = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, D = c.headDim;
  const q = c.numHeads * D, kv = c.numKvHeads * D;
  const out: Array<{ name: string; shape: number[] }> = [{ name: MODEL_WEIGHTS.embed, shape: [V, H] }];
  for (let i = 0; i < c.numLayers; i++) {
    const w = layerWeights(i);
    out.push(
      { name: w.inputNorm, shape: [H] },
      { name: w.q, shape: [q, H] },
      { name: w.k, shape: [kv, H] },
      { name: w.v, shape: [kv, H] },
    );
    if (c.attentionBias) out.push({ name: w.qBias, shape: [q] }, { name: w.kBias, shape: [kv] }, { name: w.vBias, shape: [kv] });
    if (c.qkNorm) out.push({ name: w.qNorm, shape: [D] }, { name: w.kNorm, shape: [D] });
    out.push(
      { name: w.o, shape: [H, q] },
      { name: w.postNorm, shape: [H] },
      { name: w.gate, shape: [I, H] },
      { name: w.up, shape: [I, H] },
      { name: w.down, shape: [H, I] },
    );
  }
  out.push({ name: MODEL_WEIGHTS.norm, shape: [H] });
  if (!c.tieWordEmbeddings) out.push({ name: MODEL_WEIGHTS.lmHead, shape: [V, H] });
  return out;
}

const INDEX_FILE = 'model.safetensors.index.json';
const CHAT_TEMPLATE_FILE = 'chat_template.jinja';
const SINGLE_FILE = 'model.safetensors';
/** Range reads of one tensor are split into chunks of this many bytes (bounds peak memory). */
const READ_CHUNK_BYTES = 64 * 1024 * 1024;

export interface OpenOptions {
  /** Called with the parsed config before anything else is read (the engine refuses a model that
   *  cannot fit here, before any weight is downloaded). */
  checkConfig?: (config: ModelConfig) => void;
}

export async function openCheckpoint(source: CheckpointReader, onProgress?: (p: LoadProgress) => void, opts: OpenOptions = {}): Promise<Checkpoint> {
  const reader = withReadAhead(source);
  const progress = (item: string) => onProgress?.({ phase: 'config', item, loadedBytes: 0, totalBytes: 0 });

  progress('config.json');
  const configText = await reader.text('config.json');
  const rawConfig = parseJsonObject(configText, 'config.json');
  const generationConfig = (await reader.exists('generation_config.json'))
    ? parseJsonObject(await reader.text('generation_config.json'), 'generation_config.json')
    : {};
  const config = parseConfig(rawConfig, generationConfig);
  opts.checkConfig?.(config);

  progress('tokenizer.json');
  if (!(await reader.exists('tokenizer.json'))) {
    throw new EngineError('not-found', `tokenizer.json not found in ${reader.label} (a fast tokenizer file is needed)`);
  }
  const tokenizerText = await reader.text('tokenizer.json');
  const tokenizerJson = parseJsonObject(tokenizerText, 'tokenizer.json');
  checkTokenizerVocab(tokenizerJson, config.vocabSize);
  const tokenizerConfigText = (await reader.exists('tokenizer_config.json')) ? await reader.text('tokenizer_config.json') : '{}';
  const tokenizerConfig = parseJsonObject(tokenizerConfigText, 'tokenizer_config.json');
  const chatTemplateJinja = (await reader.exists(CHAT_TEMPLATE_FILE)) ? await reader.text(CHAT_TEMPLATE_FILE) : null;

  progress('safetensors headers');
  const tensors = await readWeightHeaders(reader);
  const required = requiredTensors(config);
  checkRequired(required, tensors);

  const weightBytes = required.reduce((sum, r) => sum + (tensors.get(r.name)!.end - tensors.get(r.name)!.start), 0);

  /** SHA-256 of each row chunk read so far, per tensor, by chunk index (rowChunkRanges). */
  const chunkDigests = new Map<string, Array<Promise<string>>>();
  const digest = (t: TensorEntry, i: number, bytes: Uint8Array) => {
    let d = chunkDigests.get(t.name);
    if (!d) chunkDigests.set(t.name, (d = []));
    d[i] ??= sha256Hex(bytes);
  };
  let fingerprint: Promise<string> | null = null;
  const computeFingerprint = async (): Promise<string> => {
    const used = [];
    for (const name of required.map((r) => r.name).sort()) {
      const t = entry(name);
      const d = chunkDigests.get(name) ?? [];
      const n = rowChunkRanges(t).length;
      if (Array.from({ length: n }, (_, i) => d[i]).some((x) => x === undefined)) {
        throw new EngineError('bad-input', `the fingerprint of ${reader.label} needs every weight read first; ${name} was not`);
      }
      used.push({ name, dtype: t.dtype, shape: t.shape, chunks: await Promise.all(d.slice(0, n)) });
    }
    const [configSha, tokenizerSha, tokenizerConfigSha] = await Promise.all([configText, tokenizerText, tokenizerConfigText].map((x) => sha256Hex(x)));
    return sha256Hex(canonicalJson({
      v: 2, config: configSha, generation_config: generationConfig, tokenizer: tokenizerSha, tokenizer_config: tokenizerConfigSha, tensors: used,
      // absent without the file: fingerprints of checkpoints without one are unchanged
      ...(chatTemplateJinja !== null ? { chat_template: await sha256Hex(chatTemplateJinja) } : {}),
    }));
  };

  let loadedBytes = 0;
  const entry = (name: string): TensorEntry => {
    const t = tensors.get(name);
    if (!t) throw new EngineError('bad-checkpoint', `no tensor ${name} in ${reader.label}`);
    return t;
  };
  const consumed = (name: string, bytes: number) => {
    loadedBytes += bytes;
    onProgress?.({ phase: 'weights', item: name, loadedBytes: Math.min(loadedBytes, weightBytes), totalBytes: weightBytes });
  };
  const readF32 = async (name: string): Promise<Float32Array> => {
    const t = entry(name);
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count * 4 > MAX_ARRAY_BUFFER_BYTES) {
      throw new EngineError(
        'out-of-memory',
        `tensor ${t.name} [${t.shape}] needs ${(count * 4 / 2 ** 30).toFixed(2)} GiB as f32, more than one browser ArrayBuffer holds (2 GiB)`,
      );
    }
    const out = new Float32Array(count); // [...shape]
    for await (const _ of convertedChunks(name, (offset, n) => out.subarray(offset, offset + n)));
    return out;
  };
  /** Pending byte reads of prefetched tensors, one promise per row chunk. */
  const pending = new Map<string, Promise<Uint8Array>[]>();
  const chunkReads = (t: TensorEntry) => rowChunkRanges(t).map(({ start, end }) => reader.range(t.file, start, end));

  /** A tensor's row chunks converted to f32 into `target(element offset, length)`, in order. */
  async function* convertedChunks(name: string, target: (offset: number, n: number) => Float32Array<ArrayBuffer>): AsyncGenerator<RowChunk> {
    const t = entry(name);
    if (!isWeightDtype(t.dtype)) {
      throw new EngineError('unsupported-dtype', `tensor ${t.name} in ${t.file} has dtype ${t.dtype}; only F32, F16 and BF16 load as f32`);
    }
    const reads = pending.get(name) ?? chunkReads(t);
    pending.delete(name);
    const elemBytes = SAFETENSORS_DTYPE_BYTES[t.dtype];
    for (const [i, { row0, count, start, end }] of rowChunkRanges(t).entries()) {
      const bytes = aligned(await reads[i]);
      digest(t, i, bytes);
      const data = target((start - t.start) / elemBytes, (end - start) / elemBytes); // [count, cols]
      toF32(t.dtype, bytes, data);
      consumed(name, end - start);
      yield { data, row0, count };
    }
  }

  /** Row chunks into one reused scratch buffer (valid until the next chunk is asked for). */
  function rowChunks(name: string): AsyncGenerator<RowChunk> {
    let scratch = new Float32Array(0);
    return convertedChunks(name, (_, n) => {
      if (scratch.length < n) scratch = new Float32Array(n);
      return scratch.subarray(0, n);
    });
  }

  return {
    name: reader.label,
    hubRef: reader.hubRef,
    config,
    rawConfig,
    tokenizerJson,
    tokenizerConfig,
    generationConfig,
    chatTemplateJinja,
    fingerprint: () => (fingerprint ??= computeFingerprint().catch((e) => {
      fingerprint = null; // asked too early: ask again once the weights are read
      throw e;
    })),
    weightBytes,
    tensorNames: () => [...tensors.keys()],
    tensorInfo: (name) => {
      const t = entry(name);
      return { dtype: t.dtype, shape: [...t.shape], file: t.file };
    },
    readF32,
    readF16: async (name) => {
      const t = entry(name);
      if (t.dtype !== 'F16') return f32ToF16(await readF32(name));
      const bytes = await reader.range(t.file, t.start, t.end);
      rowChunkRanges(t).forEach(({ start, end }, i) => digest(t, i, bytes.subarray(start - t.start, end - t.start)));
      consumed(name, t.end - t.start);
      return new Uint16Array(aligned(bytes).buffer, 0, bytes.length / 2);
    },
    rowChunks,
    get bytesRead() {
      return Math.min(loadedBytes, weightBytes);
    },
    prefetch(names) {
      for (const name of names) {
        const t = entry(name);
        if (pending.has(name) || !isWeightDtype(t.dtype)) continue;
        const reads = chunkReads(t);
        reads.forEach((p) => p.catch(() => undefined)); // a failed prefetch is reported when consumed
        pending.set(name, reads);
      }
    },
  };
}

/** Byte ranges of a tensor's row chunks: whole rows, at most READ_CHUNK_BYTES each (one row at least). */
function rowChunkRanges(t: TensorEntry): Array<{ row0: number; count: number; start: number; end: number }> {
  const rows = t.shape.length >= 2 ? t.shape[0] : 1;
  const rowBytes = rows === 0 ? 0 : (t.end - t.start) / rows;
  const per = Math.max(1, Math.floor(READ_CHUNK_BYTES / Math.max(1, rowBytes)));
  const out = [];
  for (let row0 = 0; row0 < rows; row0 += per) {
    const count = Math.min(per, rows - row0);
    out.push({ row0, count, start: t.start + row0 * rowBytes, end: t.start + (row0 + count) * rowBytes });
  }
  return out;
}

/** Stored F32/F16/BF16 bytes -> f32 values. */
function toF32(dtype: SafetensorsDtype, bytes: Uint8Array, out: Float32Array<ArrayBuffer>): void {
  if (dtype === 'F32') out.set(new Float32Array(bytes.buffer, bytes.byteOffset, out.length));
  else {
    const bits = new Uint16Array(bytes.buffer, bytes.byteOffset, out.length);
    if (dtype === 'BF16') bf16ToF32(bits, out);
    else f16ToF32(bits, out);
  }
}

/** A checkpoint's JSON file as an object. The small files a person may have edited (configs) are
 *  read as external JSON (util/json-input.ts: a repeated key or deep nesting refused by name);
 *  tokenizer.json, written by the tokenizers library, with JSON.parse. */
function parseJsonObject(text: string, file: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = file === 'tokenizer.json' ? JSON.parse(text) : parseJsonInput(text);
  } catch (e) {
    if (e instanceof JsonInputError) throw new EngineError('bad-checkpoint', `${file} is refused: ${e.message}`);
    throw new EngineError('bad-checkpoint', `${file} is not JSON (${(e as Error).message})`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new EngineError('bad-checkpoint', `${file} is not a JSON object`);
  return json as Record<string, unknown>;
}

/** Headers of model.safetensors, or of every shard named in model.safetensors.index.json. */
async function readWeightHeaders(reader: CheckpointReader): Promise<Map<string, TensorEntry>> {
  if (await reader.exists(INDEX_FILE)) {
    const index = parseShardIndex(await reader.text(INDEX_FILE), INDEX_FILE);
    const shards = [...new Set(index.values())].sort();
    const headers = await Promise.all(
      shards.map(async (shard) => {
        if (!(await reader.exists(shard))) {
          throw new EngineError('bad-checkpoint', `shard ${shard} named in ${INDEX_FILE} is missing from ${reader.label}`);
        }
        return readSafetensorsHeader(reader, shard);
      }),
    );
    const byShard = new Map(headers.map((h) => [h.file, h]));
    const tensors = new Map<string, TensorEntry>();
    for (const [name, shard] of index) {
      const t = byShard.get(shard)!.tensors.get(name);
      if (!t) throw new EngineError('bad-checkpoint', `${INDEX_FILE} puts tensor ${name} in ${shard}, but ${shard} has no such tensor`);
      tensors.set(name, t);
    }
    return tensors;
  }
  if (await reader.exists(SINGLE_FILE)) {
    return (await readSafetensorsHeader(reader, SINGLE_FILE)).tensors;
  }
  const hint = (await reader.exists('pytorch_model.bin')) ? ' (only safetensors weights are supported, not pytorch_model.bin)' : '';
  throw new EngineError('not-found', `no ${SINGLE_FILE} or ${INDEX_FILE} in ${reader.label}${hint}`);
}

function checkRequired(required: Array<{ name: string; shape: number[] }>, tensors: Map<string, TensorEntry>): void {
  for (const r of required) {
    const t = tensors.get(r.name);
    if (!t) throw new EngineError('bad-checkpoint', `missing tensor ${r.name} (expected shape [${r.shape}])`);
    if (t.shape.length !== r.shape.length || t.shape.some((d, i) => d !== r.shape[i])) {
      throw new EngineError('bad-checkpoint', `tensor ${r.name} in ${t.file} has shape [${t.shape}], expected [${r.shape}]`);
    }
    if (!isWeightDtype(t.dtype)) {
      throw new EngineError('unsupported-dtype', `tensor ${r.name} in ${t.file} has dtype ${t.dtype}; the engine loads F32, F16 and BF16 weights`);
    }
  }
}

/** The bytes at offset 0 of their own buffer, so typed views of any element size line up. */
function aligned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

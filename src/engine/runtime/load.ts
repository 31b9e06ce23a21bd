// Loading a model into sessions, layer by layer as its bytes arrive: the next layer's bytes are
// read (prefetch) while this layer's tensors are converted (weights.ts) and its session is created
// from a small protobuf plus external data (graph/onnx.ts), so the weights reach onnxruntime once.
import type { InferenceSession } from 'onnxruntime-common';
import type { Ort } from '../ort.ts';
import { layerWeights, MODEL_WEIGHTS, type RowChunk } from '../checkpoint.ts';
import { buildLayerGraph, type LayerWeights } from '../graph/layer.ts';
import { buildHeadGraph, type HeadWeights } from '../graph/head.ts';
import type { BuiltGraph } from '../graph/onnx.ts';
import type { Precision, Q4Layout } from '../graph/linear.ts';
import { Q4_BLOCK } from '../quantize.ts';
import { readMatrix, readVector, type MatrixFormat } from '../weights.ts';
import type { LoadProgress, ModelConfig } from '../types.ts';

/** What loading needs from a checkpoint (checkpoint.ts Checkpoint satisfies it). */
export interface WeightSource {
  readonly config: ModelConfig;
  /** Stored bytes of the tensors the architecture uses (progress total). */
  readonly weightBytes: number;
  readonly bytesRead: number;
  tensorInfo(name: string): { shape: number[] };
  rowChunks(name: string): AsyncGenerator<RowChunk>;
  prefetch(names: string[]): void;
}

export interface LoadTarget {
  ep: 'webgpu' | 'wasm';
  precision: Precision;
  /** Longest sequence (prompt + generated) a KV cache can hold; rotary caches cover it. */
  maxSeqLen: number;
  /** No weight buffer may exceed this (WebGPU buffer limits, browser ArrayBuffer cap). */
  maxPartBytes: number;
  onProgress?: (p: LoadProgress) => void;
}

export interface LoadedSessions {
  layers: InferenceSession[];
  head: InferenceSession;
}

/** Tensor names of layer i the engine reads. */
function layerTensorNames(c: ModelConfig, i: number): string[] {
  const w = layerWeights(i);
  return [
    w.inputNorm, w.q, w.k, w.v, w.o, w.postNorm, w.gate, w.up, w.down,
    ...(c.attentionBias ? [w.qBias, w.kBias, w.vBias] : []),
    ...(c.qkNorm ? [w.qNorm, w.kNorm] : []),
  ];
}

/** Layer i's weights in the target's formats. */
export async function readLayerWeights(src: WeightSource, i: number, t: LoadTarget): Promise<LayerWeights> {
  const c = src.config;
  const w = layerWeights(i);
  const act = t.precision.act;
  const proj: MatrixFormat = t.precision.q4 ? { kind: 'q4', act } : { kind: 'dense', layout: 'in-out', act };
  const matrix = (names: string[]) => readMatrix(src, names, proj, t.maxPartBytes);
  return {
    inputNorm: await readVector(src, [w.inputNorm], act),
    qkv: await matrix([w.q, w.k, w.v]),
    qkvBias: c.attentionBias ? await readVector(src, [w.qBias, w.kBias, w.vBias], act) : undefined,
    qNorm: c.qkNorm ? await readVector(src, [w.qNorm], act) : undefined,
    kNorm: c.qkNorm ? await readVector(src, [w.kNorm], act) : undefined,
    o: await matrix([w.o]),
    postNorm: await readVector(src, [w.postNorm], act),
    gateUp: await matrix([w.gate, w.up]),
    down: await matrix([w.down]),
  };
}

/** 4-bit weights as the head graph declares them on this EP. */
export function q4Layout(ep: LoadTarget['ep']): Q4Layout {
  return ep === 'webgpu' ? '2d' : '3d';
}

/**
 * Whether the embedding is looked up in the head's own initializers (tied checkpoints). On WebGPU
 * GatherBlockQuantized reads MatMulNBits' zero points only when the blocks per row are even; an
 * odd count (hidden_size / 32 odd, no model the app targets) gets its own dense embedding.
 */
export function embedFromHead(c: ModelConfig, t: Pick<LoadTarget, 'ep' | 'precision'>): boolean {
  if (!c.tieWordEmbeddings) return false;
  return !(t.precision.q4 && t.ep === 'webgpu' && Math.ceil(c.hiddenSize / Q4_BLOCK) % 2 === 1);
}

/** The final norm, LM head and (untied) embedding in the target's formats. */
export async function readHeadWeights(src: WeightSource, t: LoadTarget): Promise<HeadWeights> {
  const c = src.config;
  const act = t.precision.act;
  const headFormat: MatrixFormat = t.precision.q4 ? { kind: 'q4', act } : { kind: 'dense', layout: 'out-in', act };
  const dense: MatrixFormat = { kind: 'dense', layout: 'out-in', act };
  const headName = c.tieWordEmbeddings ? MODEL_WEIGHTS.embed : MODEL_WEIGHTS.lmHead;
  return {
    norm: await readVector(src, [MODEL_WEIGHTS.norm], act),
    head: await readMatrix(src, [headName], headFormat, t.maxPartBytes),
    embed: embedFromHead(c, t) ? undefined : await readMatrix(src, [MODEL_WEIGHTS.embed], dense, t.maxPartBytes),
  };
}

/** Creates every layer session and the head session; on failure releases what it created. */
export async function createSessions(ort: Ort, src: WeightSource, t: LoadTarget): Promise<LoadedSessions> {
  const c = src.config;
  const sessionOptions: InferenceSession.SessionOptions = { executionProviders: [t.ep], graphOptimizationLevel: 'all' };
  const session = async (item: string, graph: BuiltGraph, more: InferenceSession.SessionOptions = {}) => {
    t.onProgress?.({ phase: 'session', item, loadedBytes: src.bytesRead, totalBytes: src.weightBytes });
    return ort.InferenceSession.create(graph.bytes, { ...sessionOptions, externalData: graph.externalData, ...more });
  };
  // on WebGPU hidden states and KV caches stay on the device (runtime/gpu-io.ts); the head's
  // logits and greedy choices come back to the CPU
  const gpu = t.ep === 'webgpu';
  const layerOutputs: InferenceSession.SessionOptions = gpu ? { preferredOutputLocation: 'gpu-buffer' } : {};
  const headOutputs: InferenceSession.SessionOptions = gpu ? { preferredOutputLocation: { embedded: 'gpu-buffer', next_embedded: 'gpu-buffer' } } : {};
  const created: InferenceSession[] = [];
  try {
    src.prefetch(layerTensorNames(c, 0));
    for (let i = 0; i < c.numLayers; i++) {
      const next = i + 1 < c.numLayers ? layerTensorNames(c, i + 1) : [MODEL_WEIGHTS.norm, c.tieWordEmbeddings ? MODEL_WEIGHTS.embed : MODEL_WEIGHTS.lmHead];
      src.prefetch(next);
      const w = await readLayerWeights(src, i, t);
      created.push(await session(`layer ${i}`, buildLayerGraph(c, i, w, { precision: t.precision, maxPositions: t.maxSeqLen }), layerOutputs));
    }
    // The CPU Gemm would prepack a dense head into a second copy beside the original that the
    // embedding's Gather reads: a dense head is read as stored. (A 4-bit head is declared twice on
    // WASM, see graph/linear.ts Q4Layout: MatMulNBits prepacks its own declaration.)
    const noPrepack = !t.precision.q4 && embedFromHead(c, t) ? { extra: { session: { disable_prepacking: '1' } } } : {};
    const head = await session('head', buildHeadGraph(c, await readHeadWeights(src, t), { precision: t.precision, q4Layout: q4Layout(t.ep) }), { ...noPrepack, ...headOutputs });
    return { layers: created.slice(), head };
  } catch (e) {
    await Promise.all(created.map((s) => s.release()));
    throw e;
  }
}

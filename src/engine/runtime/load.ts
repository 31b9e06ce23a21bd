// Loading a model into sessions, layer by layer as its bytes arrive: the next layer's bytes are
// read (prefetch) while this layer's tensors are converted (weights.ts) and handed to onnxruntime
// once: as the external data of the layer's own session (per-layer graphs), or as the weight
// tensors span sessions are fed (span graphs; on WebGPU each weight uploaded into a GPU buffer).
import type { InferenceSession, Tensor } from 'onnxruntime-common';
import { exposesGpuDevice, sessionOptionsOf, type Ort } from '../ort.ts';
import { layerWeights, MODEL_WEIGHTS, type RowChunk } from '../checkpoint.ts';
import { buildLayerGraph, buildSpanGraph, layerWeightInputs, type LayerWeights } from '../graph/layer.ts';
import { buildHeadGraph, type HeadWeights } from '../graph/head.ts';
import { GRAPH } from '../graph/contract.ts';
import type { BuiltGraph, WeightInput } from '../graph/onnx.ts';
import { uploadWeight } from './gpu-io.ts';
import type { Precision, Q4Layout } from '../graph/linear.ts';
import { Q4_BLOCK } from '../quantize.ts';
import { headFormat, projectionFormat, readMatrix, readVector, type MatrixFormat } from '../weights.ts';
import type { ExecutionProvider, LoadProgress, ModelConfig } from '../types.ts';
import { WeightArena } from '../arena.ts';

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

/** How layers become sessions: one graph per model layer with its weights inside, or graphs of
 *  1, 2, 4, ... layer slots fed any layers' weights (graph/layer.ts). */
export type LayerGraphs = 'per-layer' | 'spans';

/** The most layers one span graph runs. */
const MAX_SPAN = 16;

export interface LoadTarget {
  ep: ExecutionProvider;
  layerGraphs: LayerGraphs;
  precision: Precision;
  /** Longest sequence (prompt + generated) a KV cache can hold; rotary caches cover it. */
  maxSeqLen: number;
  /** No weight buffer may exceed this (WebGPU buffer limits, browser ArrayBuffer cap). */
  maxPartBytes: number;
  onProgress?: (p: LoadProgress) => void;
}

/** The loaded layers. Span weights: per model layer, its weight tensors by unprefixed input name. */
export type LayerSet =
  | { kind: 'per-layer'; sessions: InferenceSession[] }
  | { kind: 'spans'; sessions: Map<number, InferenceSession>; weights: Array<Record<string, Tensor>> };

/** What the weights' engine formats depend on. */
export type WeightFormat = Pick<LoadTarget, 'ep' | 'precision' | 'maxPartBytes'>;

export interface LoadedSessions {
  layers: LayerSet;
  head: InferenceSession;
}

/** Span graph sizes for a model of `numLayers` layers: 1, 2, 4, ... up to MAX_SPAN, largest first. */
export function spanSizes(numLayers: number): number[] {
  const sizes: number[] = [];
  for (let n = 1; n <= Math.min(numLayers, MAX_SPAN); n *= 2) sizes.unshift(n);
  return sizes;
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

/** Layer i's weights in the target's formats; its matrices in `arena` where given. */
export async function readLayerWeights(src: WeightSource, i: number, t: WeightFormat, arena?: WeightArena): Promise<LayerWeights> {
  const c = src.config;
  const w = layerWeights(i);
  const act = t.precision.act;
  const proj = projectionFormat(t.precision, t.ep);
  const matrix = (names: string[]) => readMatrix(src, names, proj, t.maxPartBytes, arena);
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
function embedFromHead(c: ModelConfig, t: Pick<LoadTarget, 'ep' | 'precision'>): boolean {
  if (!c.tieWordEmbeddings) return false;
  return !(t.precision.q4 && t.ep === 'webgpu' && Math.ceil(c.hiddenSize / Q4_BLOCK) % 2 === 1);
}

/** The final norm, LM head and (untied) embedding in the target's formats. */
export async function readHeadWeights(src: WeightSource, t: WeightFormat): Promise<HeadWeights> {
  const c = src.config;
  const act = t.precision.act;
  const dense: MatrixFormat = { kind: 'dense', layout: 'out-in', act };
  const headName = c.tieWordEmbeddings ? MODEL_WEIGHTS.embed : MODEL_WEIGHTS.lmHead;
  return {
    norm: await readVector(src, [MODEL_WEIGHTS.norm], act),
    head: await readMatrix(src, [headName], headFormat(t.precision), t.maxPartBytes),
    embed: embedFromHead(c, t) ? undefined : await readMatrix(src, [MODEL_WEIGHTS.embed], dense, t.maxPartBytes),
  };
}

/** Creates the layer sessions and the head session; on failure releases what it created. */
export async function createSessions(ort: Ort, src: WeightSource, t: LoadTarget): Promise<LoadedSessions> {
  const c = src.config;
  const sessionOptions: InferenceSession.SessionOptions = { ...sessionOptionsOf(ort, t.ep), graphOptimizationLevel: 'all' };
  const created: InferenceSession[] = [];
  const tensors: Tensor[] = [];
  const session = async (item: string, graph: BuiltGraph, more: InferenceSession.SessionOptions = {}) => {
    t.onProgress?.({ phase: 'session', item, loadedBytes: src.bytesRead, totalBytes: src.weightBytes });
    const s = await ort.InferenceSession.create(graph.bytes, { ...sessionOptions, externalData: graph.externalData, ...more });
    created.push(s);
    return s;
  };
  // on onnxruntime-web's WebGPU hidden states and KV caches stay on the device (runtime/gpu-io.ts);
  // the head's logits and greedy choices come back to the CPU
  const gpu = t.ep === 'webgpu' && exposesGpuDevice(ort);
  const layerOutputs: InferenceSession.SessionOptions = gpu ? { preferredOutputLocation: 'gpu-buffer' } : {};
  const { embedded, nextEmbedded } = GRAPH.head.out;
  const headOutputs: InferenceSession.SessionOptions = gpu ? { preferredOutputLocation: { [embedded]: 'gpu-buffer', [nextEmbedded]: 'gpu-buffer' } } : {};
  const graphOpts = { precision: t.precision, maxPositions: t.maxSeqLen };
  try {
    src.prefetch(layerTensorNames(c, 0));
    let layers: LayerSet;
    if (t.layerGraphs === 'per-layer') {
      // onnxruntime copies a layer's weights into its heap as the session is created: the next
      // layer is converted into the same JavaScript memory (arena.ts)
      const sessions: InferenceSession[] = [];
      const arena = new WeightArena();
      for (let i = 0; i < c.numLayers; i++) {
        src.prefetch(nextTensorNames(c, i));
        arena.reset();
        sessions.push(await session(`layer ${i}`, buildLayerGraph(c, i, await readLayerWeights(src, i, t, arena), graphOpts), layerOutputs));
      }
      layers = { kind: 'per-layer', sessions };
    } else {
      // the span graphs take their shapes from layer 0 (every layer's are the same); on WebGPU
      // the device exists once a session does, so the weights go up after the graphs are made
      const weights: Array<Record<string, Tensor>> = [];
      const sessions = new Map<number, InferenceSession>();
      let w = await readLayerWeights(src, 0, t);
      for (const n of spanSizes(c.numLayers)) sessions.set(n, await session(`${n}-layer span`, buildSpanGraph(c, w, n, graphOpts), layerOutputs));
      const device = gpu ? ((await ort.env.webgpu.device) as GPUDevice) : null;
      const toTensor = (x: WeightInput): Tensor => (device ? uploadWeight(ort, device, x) : new ort.Tensor(x.type, x.data as never, x.dims));
      for (let i = 0; i < c.numLayers; i++) {
        src.prefetch(nextTensorNames(c, i));
        if (i > 0) w = await readLayerWeights(src, i, t);
        t.onProgress?.({ phase: 'weights', item: `layer ${i}`, loadedBytes: src.bytesRead, totalBytes: src.weightBytes });
        const named: Record<string, Tensor> = {};
        for (const x of layerWeightInputs(c, w, graphOpts)) tensors.push((named[x.name] = toTensor(x)));
        weights.push(named);
      }
      layers = { kind: 'spans', sessions, weights };
    }
    // On WASM the CPU Gemm prepacks a dense head into a copy of its own, beside the original that a
    // tied embedding's Gather reads (memory.ts counts both): one row streams the packed copy about
    // twice as fast, through the same kernel as many rows, so a row's logits do not depend on its
    // batch. (A 4-bit head is declared twice on WASM, see graph/linear.ts Q4Layout.)
    const head = await session('head', buildHeadGraph(c, await readHeadWeights(src, t), { precision: t.precision, q4Layout: q4Layout(t.ep) }), headOutputs);
    return { layers, head };
  } catch (e) {
    await Promise.all(created.map((s) => s.release()));
    for (const x of tensors) x.dispose();
    throw e;
  }
}

/** What to read ahead while layer i loads: layer i + 1, or the head after the last layer. */
function nextTensorNames(c: ModelConfig, i: number): string[] {
  return i + 1 < c.numLayers ? layerTensorNames(c, i + 1) : [MODEL_WEIGHTS.norm, c.tieWordEmbeddings ? MODEL_WEIGHTS.embed : MODEL_WEIGHTS.lmHead];
}

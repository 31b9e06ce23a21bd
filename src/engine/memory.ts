// What a model holds once loaded, from config.json alone, so a model that cannot fit is refused
// before a byte of its weights is downloaded. On the WASM EP every session lives in one WebAssembly
// heap of at most 4 GiB (wasm32); on WebGPU the weights live in GPU buffers, each at most the
// device's max buffer / binding size (weights.ts cuts larger matrices into parts), and WebGPU does
// not tell how much GPU memory there is, so only the per-buffer limit is known up front.

import { precisionOf, type Precision } from './graph/linear.ts';
import { Q4_BLOCK } from './quantize.ts';
import { EngineError, type EngineDtype, type ExecutionProvider, type ModelConfig } from './types.ts';
import { headFormat, matrixBytes, projectionFormat } from './weights.ts';

const WASM_HEAP_BYTES = 4 * 2 ** 30;
/** Kept free in the heap for activations, KV batches, logits and the runtime itself. */
const WASM_HEAP_RESERVE = 512 * 2 ** 20;
/** The most weight bytes loaded on WebGPU, which does not tell how much GPU memory there is:
 *  32 GiB is past the memory of any single consumer GPU, so a larger model cannot load in a browser. */
export const WEBGPU_MAX_WEIGHT_BYTES = 32 * 2 ** 30;
/** The largest ArrayBuffer browsers allocate (any one weight part is built in one). */
export const MAX_ARRAY_BUFFER_BYTES = 2 ** 31 - 1;

export interface Footprint {
  /** Weights, rotary caches and norms in the engine's formats. */
  weightBytes: number;
  /** Of those, the embedding + LM head. */
  headBytes: number;
}

/** Bytes the engine holds for a model in `precision` (off WebGPU a tied head is held twice: the CPU
 *  kernel's prepacked copy, and the one the embedding reads; runtime/load.ts). */
export function footprint(c: ModelConfig, p: Precision, ep: ExecutionProvider, maxSeqLen: number): Footprint {
  const act = p.act === 'float16' ? 2 : 4;
  const proj = projectionFormat(p, ep);
  const H = c.hiddenSize;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const perLayer =
    matrixBytes(q + 2 * kv, H, proj) + matrixBytes(H, q, proj) + matrixBytes(2 * c.intermediateSize, H, proj) + matrixBytes(H, c.intermediateSize, proj)
    + (2 * H + (c.attentionBias ? q + 2 * kv : 0) + (c.qkNorm ? 2 * c.headDim : 0)) * act
    + 2 * maxSeqLen * (c.headDim / 2) * act; // rotary cos/sin caches
  let headBytes = matrixBytes(c.vocabSize, H, headFormat(p)) + H * act;
  if (!c.tieWordEmbeddings) headBytes += c.vocabSize * H * act;
  else if (ep !== 'webgpu') headBytes += p.q4 ? c.vocabSize * Math.ceil(H / Q4_BLOCK) * (Q4_BLOCK / 2) : c.vocabSize * H * act; // the kernel's own copy
  return { weightBytes: perLayer * c.numLayers + headBytes, headBytes };
}

/** The dtypes WebGPU runs, smallest first. */
const GPU_DTYPES = ['q4f16', 'q4', 'f16', 'f32'] as const;

/** Why `dtype` cannot run on `ep`, or null when it can. */
export function dtypeRefusal(dtype: EngineDtype, ep: ExecutionProvider): string | null {
  if (ep === 'webgpu' && dtype === 'q8') {
    return 'dtype q8 runs on the WebAssembly engine only: the WebGPU runtime has no integer matrix product (MatMulInteger); '
      + `choose the WASM engine for q8, or ${GPU_DTYPES.join(', ')} on WebGPU`;
  }
  if (dtype === 'q8b' && ep !== 'cpu') {
    return `dtype q8b runs on the native CPU engine only (onnxruntime-node's int8 MatMulNBits kernel; --ep cpu in Node), not on ${ep}: `
      + 'choose q8 for 8 bits on WebAssembly';
  }
  return null;
}

const gb = (n: number) => `${(n / 1e9).toFixed(2)} GB`;

/**
 * Throws EngineError('out-of-memory') when the model cannot be held: on the WASM EP when the
 * heap cannot take the weights plus the reserve, on WebGPU when the weights pass
 * WEBGPU_MAX_WEIGHT_BYTES, naming the sizes and a dtype that fits.
 */
export function checkFits(name: string, c: ModelConfig, dtype: EngineDtype, ep: ExecutionProvider, maxSeqLen: number): void {
  // the native cpu and cuda providers hold weights in process or device memory, neither known up front
  if (ep === 'cpu' || ep === 'cuda') return;
  if (ep !== 'wasm') {
    const need = footprint(c, precisionOf(dtype), ep, maxSeqLen).weightBytes;
    if (need <= WEBGPU_MAX_WEIGHT_BYTES) return;
    const fits = GPU_DTYPES
      .map((d) => [d, footprint(c, precisionOf(d), ep, maxSeqLen).weightBytes] as const)
      .filter(([, n]) => n <= WEBGPU_MAX_WEIGHT_BYTES)
      .map(([d, n]) => `${d} (${gb(n)})`);
    throw new EngineError(
      'out-of-memory',
      `${name} in ${dtype} needs ${gb(need)} of weights on WebGPU, more than the ${gb(WEBGPU_MAX_WEIGHT_BYTES)} loaded there `
        + `(past any single consumer GPU's memory); `
        + (fits.length ? `it fits as ${fits.join(' or ')}` : 'it does not fit in any engine dtype'),
    );
  }
  const need = footprint(c, precisionOf(dtype), ep, maxSeqLen).weightBytes;
  if (need + WASM_HEAP_RESERVE <= WASM_HEAP_BYTES) return;
  const fits = (['q4f16', 'q4', 'q8', 'f16', 'f32'] as const)
    .filter((d) => footprint(c, precisionOf(d), ep, maxSeqLen).weightBytes + WASM_HEAP_RESERVE <= WASM_HEAP_BYTES)
    .map((d) => `${d} (${gb(footprint(c, precisionOf(d), ep, maxSeqLen).weightBytes)})`);
  throw new EngineError(
    'out-of-memory',
    `${name} in ${dtype} needs ${gb(need)} of weights in the WebAssembly heap, plus ${gb(WASM_HEAP_RESERVE)} for activations, `
      + `more than the ${gb(WASM_HEAP_BYTES)} a WebAssembly heap can hold; `
      + (fits.length ? `it fits as ${fits.join(' or ')}` : 'it does not fit in any engine dtype'),
  );
}

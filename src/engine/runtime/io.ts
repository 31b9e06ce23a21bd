// Where a model's state lives between session runs, behind one interface: on the WASM EP hidden
// states and KV caches are typed arrays (cpu-io.ts); on WebGPU they stay in GPU buffers
// (gpu-io.ts: outputs bound as GPU tensors, KV caches updated in place, small per-step inputs
// uploaded once per step). The scheduler and the model handle `Hidden` and `KvSlot` values only
// through this interface.
import type { Tensor } from 'onnxruntime-common';

/** Opaque: `seq` hidden vectors of one row ([seq, H]). */
export interface Hidden {
  readonly seq: number;
}

/** A row the head projects: its last vector, or all of them. */
export interface HeadInput {
  hidden: Hidden;
  all: boolean;
}

/** Opaque: one route position's KV cache of one row ([kvHeads, cap, headDim] key and value). */
export type KvSlot = object;

/** A batch's KV cache as one span slot's past inputs (graph/contract.ts). */
export interface KvFeed {
  key: Tensor; // [B, kvHeads, cap, headDim]
  value: Tensor; // [B, kvHeads, cap, headDim]
  /** Tensors to bind as the present outputs (written in place), or null to take fresh outputs. */
  bind: { key: Tensor; value: Tensor } | null;
  /** The rows' slots once the run has written `present` (the run's outputs when not bound). */
  commit(presentKey: Tensor, presentValue: Tensor): KvSlot[];
}

export interface StateIo {
  /** Where sessions put their hidden and KV outputs. */
  readonly outputLocation: 'cpu' | 'gpu-buffer';
  /** Bytes that crossed into and out of runs (uploads / downloads on WebGPU). */
  readonly transfer: { upload: number; download: number };
  /** One [B, seq, H] input from B rows of `seq` vectors each. */
  hiddenFeed(rows: Hidden[], seq: number): Tensor;
  /** A run's [B, seq, H] output as B rows. */
  hiddenRows(out: Tensor, batch: number, seq: number): Hidden[];
  /** A run's [Σ seqs, H] output as rows of seqs[i] vectors. */
  splitRows(out: Tensor, seqs: number[]): Hidden[];
  /** [n, H]: the last vector of each row, or all of them where `all`. */
  headFeed(rows: HeadInput[]): Tensor;
  /** [n, H]: the last vector of each row, or all of them where `all`, read back to the CPU
   *  (counted as a download). */
  readRows(rows: HeadInput[]): Promise<Float32Array>;
  /** The KV input of a batch; null slots are fresh route positions (nothing cached yet). */
  kvFeed(slots: (KvSlot | null)[], cap: number): KvFeed;
  /** A small input (ids, lengths, positions, flags) for a GPU-side input, the same for a step
   *  (or, with scope 'call', for the whole call). */
  feed(type: 'int32' | 'int64' | 'bool', data: Int32Array | BigInt64Array | Uint8Array, dims: number[], scope?: 'step' | 'call'): Tensor;
  /** An input the kernel reads on the CPU (GroupQueryAttention's total length). */
  cpuFeed(type: 'int32', data: Int32Array, dims: number[]): Tensor;
  /** A CPU-side output read back (counted as a download). */
  read<T extends Tensor['data']>(out: Tensor): T;
  /** The end of one scheduling step: hidden rows not in `keep` and KV slots not in `live` may go. */
  endStep(keep: Hidden[], live: KvSlot[][]): void;
  /** The end of an engine call: everything the call allocated goes. */
  endCall(): void;
}

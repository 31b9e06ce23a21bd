// Model state in GPU buffers (the WebGPU EP): hidden states go from run to run as GPU tensors,
// batches are assembled and split with buffer copies on the GPU, and KV caches are fed as a
// slot's past inputs and bound as its present outputs at once, so GroupQueryAttention writes the new keys and values in place. Per row and token only small inputs go up (lengths and
// positions, once per step whatever the number of layer runs; silence flags once per call) and only
// what the CPU decides with comes down (the greedy (id, log-prob), or logits when sampling or
// scoring). `transfer` counts exactly that: bytes written to GPU buffers or fed from the CPU to a
// GPU input, and bytes read back.
//
// Lifetimes: hidden tensors live for one scheduling step (endStep keeps the rows handed to the next
// step); KV buffers while a live decode stream refers to them; everything else until endCall.
// Prefill KV buffers may be shared by rows (prefix sharing), so they are never written in place:
// a decode batch gathers its slots into a buffer of its own (one copy per slot), then updates that
// buffer in place for as long as the batch keeps its rows.
import type { Tensor } from 'onnxruntime-common';
import type { Ort } from '../ort.ts';
import type { FloatType, WeightInput } from '../graph/onnx.ts';
import type { HeadInput, Hidden, KvFeed, KvSlot, StateIo } from './io.ts';

/** A GPU buffer the engine owns, or an ORT output tensor holding one. */
interface Owned {
  buffer: GPUBuffer;
  /** Bytes in use (a buffer may be larger). */
  bytes: number;
  release(): void;
}

interface GpuHidden extends Hidden {
  owner: Owned;
  offset: number; // bytes
}

interface GpuKv {
  key: Tensor; // [B, kvHeads, cap, headDim]
  value: Tensor;
  owners: Owned[];
  slots: GpuSlot[];
  /** Written in place by the decode batch it was gathered for (never a prefill product). */
  writable: boolean;
}

interface GpuSlot {
  kv: GpuKv;
  index: number;
}

const USAGE = 0x80 /* STORAGE */ | 0x04 /* COPY_SRC */ | 0x08; /* COPY_DST */
const F32 = 4;

/** GPU buffer size for `bytes`: onnxruntime copies GPU inputs in 16-byte units (e.g. to a kernel
 *  that reads on the CPU), so a smaller buffer fails WebGPU validation. */
function bufferSize(bytes: number): number {
  return Math.max(16, Math.ceil(bytes / 16) * 16);
}

/** Bytes per queue.writeBuffer of a weight: bounds the staging copy the browser makes of each. */
const UPLOAD_CHUNK = 16 << 20;

/** A weight in a GPU buffer of its own, destroyed with the tensor's dispose(); written with
 *  queue.writeBuffer in chunks (a buffer mapped at creation instead: Qwen2.5-0.5B f32 on
 *  SwiftShader peaked at 8.9 GB of browser memory, against 5.5 GB this way). */
export function uploadWeight(ort: Ort, device: GPUDevice, w: WeightInput): Tensor {
  const buffer = device.createBuffer({ size: bufferSize(w.data.byteLength), usage: USAGE });
  const bytes = new Uint8Array(w.data.buffer as ArrayBuffer, w.data.byteOffset, w.data.byteLength);
  const whole = bytes.length - (bytes.length % 4); // writeBuffer takes multiples of 4 bytes
  for (let at = 0; at < whole; at += UPLOAD_CHUNK) device.queue.writeBuffer(buffer, at, bytes, at, Math.min(UPLOAD_CHUNK, whole - at));
  if (whole < bytes.length) {
    const tail = new Uint8Array(4);
    tail.set(bytes.subarray(whole));
    device.queue.writeBuffer(buffer, whole, tail);
  }
  return ort.Tensor.fromGpuBuffer(buffer as never, { dataType: w.type as Tensor.GpuBufferDataTypes, dims: w.dims, dispose: () => buffer.destroy() });
}

export class GpuIo implements StateIo {
  readonly outputLocation = 'gpu-buffer';
  readonly transfer = { upload: 0, download: 0 };
  private step = new Set<Owned>();
  private readonly kvs = new Set<GpuKv>();
  private readonly callOwned = new Set<Owned>();
  /** Small inputs uploaded this step (or this call), by content: layer runs of one step share them. */
  private feeds = new Map<string, Tensor>();
  private readonly callFeeds = new Map<string, Tensor>();
  /** This step's uploaded vectors of one repeated value, by type and value. */
  private fills = new Map<string, Owned>();

  constructor(
    private readonly ort: Ort,
    private readonly device: GPUDevice,
    private readonly H: number,
    private readonly kvShape: { heads: number; headDim: number },
    private readonly act: FloatType,
  ) {}

  private buffer(bytes: number, scope: Set<Owned>): Owned {
    const buffer = this.device.createBuffer({ size: bufferSize(bytes), usage: USAGE });
    const owned = { buffer, bytes, release: () => buffer.destroy() };
    scope.add(owned);
    return owned;
  }

  private adopt(t: Tensor, scope: Set<Owned>): Owned {
    const bytes = t.dims.reduce((a, b) => a * b, 1) * (t.type === 'float16' ? 2 : 4);
    const owned = { buffer: t.gpuBuffer as GPUBuffer, bytes, release: () => t.dispose() };
    scope.add(owned);
    return owned;
  }

  private wrap(owned: Owned, type: Tensor.Type, dims: number[]): Tensor {
    return this.ort.Tensor.fromGpuBuffer(owned.buffer as never, { dataType: type as 'float32', dims });
  }

  private copy(parts: Array<{ src: GPUBuffer; srcOffset: number; dstOffset: number; bytes: number }>, dst: GPUBuffer): void {
    const enc = this.device.createCommandEncoder();
    for (const p of parts) enc.copyBufferToBuffer(p.src, p.srcOffset, dst, p.dstOffset, p.bytes);
    this.device.queue.submit([enc.finish()]);
  }

  hiddenFeed(rows: Hidden[], seq: number): Tensor {
    const hs = rows as GpuHidden[];
    const rowBytes = seq * this.H * F32;
    const B = hs.length;
    const one = hs[0].owner;
    // the rows of one earlier output, in order: feed it as it is
    if (hs.every((h, i) => h.owner === one && h.offset === i * rowBytes) && one.bytes === B * rowBytes) return this.wrap(one, 'float32', [B, seq, this.H]);
    const dst = this.buffer(B * rowBytes, this.step);
    this.copy(hs.map((h, i) => ({ src: h.owner.buffer, srcOffset: h.offset, dstOffset: i * rowBytes, bytes: rowBytes })), dst.buffer);
    return this.wrap(dst, 'float32', [B, seq, this.H]);
  }

  hiddenRows(out: Tensor, batch: number, seq: number): Hidden[] {
    return this.splitRows(out, Array.from({ length: batch }, () => seq));
  }

  splitRows(out: Tensor, seqs: number[]): Hidden[] {
    const owner = this.adopt(out, this.step);
    let row = 0;
    return seqs.map((seq) => {
      const h: GpuHidden = { seq, owner, offset: row * this.H * F32 };
      row += seq;
      return h;
    });
  }

  headFeed(rows: HeadInput[]): Tensor {
    const { n, parts } = this.gather(rows);
    const dst = this.buffer(n * this.H * F32, this.step);
    this.copy(parts, dst.buffer);
    return this.wrap(dst, 'float32', [n, this.H]);
  }

  async readRows(rows: HeadInput[]): Promise<Float32Array> {
    const { n, parts } = this.gather(rows);
    const bytes = n * this.H * F32;
    const staging = this.device.createBuffer({ size: bufferSize(bytes), usage: 0x01 /* MAP_READ */ | 0x08 /* COPY_DST */ });
    try {
      this.copy(parts, staging);
      await staging.mapAsync(0x0001 /* GPUMapMode.READ */, 0, bytes);
      const out = new Float32Array(staging.getMappedRange(0, bytes).slice(0));
      staging.unmap();
      this.transfer.download += bytes;
      return out;
    } finally {
      staging.destroy();
    }
  }

  /** The copies that put the last vector of each row, or all of them where `all`, one after another. */
  private gather(rows: HeadInput[]): { n: number; parts: Array<{ src: GPUBuffer; srcOffset: number; dstOffset: number; bytes: number }> } {
    const vec = this.H * F32;
    let n = 0;
    const parts = rows.map(({ hidden, all }) => {
      const h = hidden as GpuHidden;
      const count = all ? h.seq : 1;
      const part = { src: h.owner.buffer, srcOffset: h.offset + (h.seq - count) * vec, dstOffset: n * vec, bytes: count * vec };
      n += count;
      return part;
    });
    return { n, parts };
  }

  kvFeed(slots: (KvSlot | null)[], cap: number): KvFeed {
    const gs = slots as (GpuSlot | null)[];
    const B = gs.length;
    const first = gs[0]?.kv;
    if (first?.writable && first.slots.length === B && gs.every((s, i) => s === first.slots[i])) return this.inPlace(first);
    const { heads, headDim } = this.kvShape;
    const slotBytes = heads * cap * headDim * (this.act === 'float16' ? 2 : 4);
    const dims = [B, heads, cap, headDim];
    const owners = [this.buffer(B * slotBytes, this.callOwned), this.buffer(B * slotBytes, this.callOwned)];
    const kv: GpuKv = {
      key: this.wrap(owners[0], this.act, dims),
      value: this.wrap(owners[1], this.act, dims),
      owners,
      slots: [],
      writable: gs.some((s) => s !== null),
    };
    kv.slots = gs.map((_, index) => ({ kv, index }));
    this.kvs.add(kv);
    if (kv.writable) {
      // gather the batch's slots (fresh positions stay zero)
      for (const [part, o] of [['key', 0], ['value', 1]] as const) {
        const parts = gs.flatMap((s, i) => (s ? [{ src: s.kv.owners[o].buffer, srcOffset: s.index * slotBytes, dstOffset: i * slotBytes, bytes: slotBytes }] : []));
        this.copy(parts, kv[part].gpuBuffer as GPUBuffer);
      }
    }
    return this.inPlace(kv);
  }

  private inPlace(kv: GpuKv): KvFeed {
    return {
      key: kv.key,
      value: kv.value,
      bind: { key: kv.key, value: kv.value },
      commit: () => kv.slots,
    };
  }

  feed(type: 'int32' | 'int64' | 'bool', data: Int32Array | BigInt64Array | Uint8Array, dims: number[], scope: 'step' | 'call' = 'step'): Tensor {
    const cache = scope === 'step' ? this.feeds : this.callFeeds;
    const key = `${type}:${dims}:${data.join(',')}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const owners = scope === 'step' ? this.step : this.callOwned;
    const owned = this.buffer(data.byteLength, owners);
    // one value repeated (every row at the same length, as when rows share a prompt): copy the
    // head of a longer such vector uploaded earlier in the step instead of uploading again
    const fill = data.every((v) => v === data[0]) ? `${type}:${data[0]}` : null;
    const longer = fill === null ? undefined : this.fills.get(fill);
    if (longer && longer.bytes >= data.byteLength) this.copy([{ src: longer.buffer, srcOffset: 0, dstOffset: 0, bytes: owned.buffer.size }], owned.buffer);
    else {
      const padded = new Uint8Array(owned.buffer.size);
      padded.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      this.device.queue.writeBuffer(owned.buffer, 0, padded);
      this.transfer.upload += data.byteLength;
      if (fill !== null && scope === 'step') this.fills.set(fill, owned);
    }
    const t = this.wrap(owned, type, dims);
    cache.set(key, t);
    return t;
  }

  /** Not counted as a transfer: GroupQueryAttention reads its total length on the CPU. */
  cpuFeed(type: 'int32', data: Int32Array, dims: number[]): Tensor {
    return new this.ort.Tensor(type, data, dims);
  }

  read<T extends Tensor['data']>(out: Tensor): T {
    this.transfer.download += (out.data as ArrayBufferView).byteLength;
    return out.data as T;
  }

  endStep(keep: Hidden[], live: KvSlot[][]): void {
    const kept = new Set((keep as GpuHidden[]).map((h) => h.owner));
    for (const o of this.step) if (!kept.has(o)) o.release();
    this.step = kept;
    this.feeds = new Map();
    this.fills = new Map();
    const used = new Set(live.flatMap((slots) => (slots as GpuSlot[]).map((s) => s.kv)));
    for (const kv of this.kvs) {
      if (used.has(kv)) continue;
      for (const o of kv.owners) {
        o.release();
        this.callOwned.delete(o);
      }
      this.kvs.delete(kv);
    }
  }

  endCall(): void {
    this.endStep([], []);
    for (const o of this.callOwned) o.release();
    this.callOwned.clear();
    this.callFeeds.clear();
  }
}

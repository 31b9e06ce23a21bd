// Model state in typed arrays (the WASM EP): hidden rows are views of run outputs, KV slots are
// views of [batch, ...] present outputs (runtime/kv.ts); nothing to release but garbage.
import type { Tensor } from 'onnxruntime-common';
import type { Ort } from '../ort.ts';
import type { FloatType } from '../graph/onnx.ts';
import type { HeadInput, Hidden, KvFeed, KvSlot, StateIo } from './io.ts';
import { splitSlots, stackSlots, type KvAlloc, type KvArray, type KvSlot as CpuSlot } from './kv.ts';

interface CpuHidden extends Hidden {
  data: Float32Array; // [seq, H]
}

export class CpuIo implements StateIo {
  readonly outputLocation = 'cpu';
  readonly transfer = { upload: 0, download: 0 };
  private readonly alloc: KvAlloc;

  constructor(
    private readonly ort: Ort,
    private readonly H: number,
    private readonly kvShape: { heads: number; headDim: number },
    private readonly act: FloatType,
  ) {
    this.alloc = act === 'float16' ? (n) => new Uint16Array(n) : (n) => new Float32Array(n);
  }

  private tensor(type: Tensor.Type, data: Tensor.DataType, dims: number[]): Tensor {
    this.transfer.upload += (data as ArrayBufferView).byteLength;
    return new this.ort.Tensor(type, data as never, dims);
  }

  hiddenFeed(rows: Hidden[], seq: number): Tensor {
    const H = this.H;
    const out = new Float32Array(rows.length * seq * H);
    rows.forEach((r, i) => out.set((r as CpuHidden).data, i * seq * H));
    return this.tensor('float32', out, [rows.length, seq, H]);
  }

  hiddenRows(out: Tensor, batch: number, seq: number): Hidden[] {
    return this.splitRows(out, Array.from({ length: batch }, () => seq));
  }

  splitRows(out: Tensor, seqs: number[]): Hidden[] {
    const data = this.read<Float32Array>(out);
    let row = 0;
    return seqs.map((seq) => {
      const h: CpuHidden = { seq, data: data.subarray(row * this.H, (row + seq) * this.H) };
      row += seq;
      return h;
    });
  }

  headFeed(rows: HeadInput[]): Tensor {
    const out = this.gather(rows);
    return this.tensor('float32', out, [out.length / this.H, this.H]);
  }

  async readRows(rows: HeadInput[]): Promise<Float32Array> {
    const out = this.gather(rows);
    this.transfer.download += out.byteLength;
    return out;
  }

  /** [n, H]: the last vector of each row, or all of them where `all`. */
  private gather(rows: HeadInput[]): Float32Array {
    const H = this.H;
    const n = rows.reduce((s, r) => s + (r.all ? r.hidden.seq : 1), 0);
    const out = new Float32Array(n * H);
    let at = 0;
    for (const { hidden, all } of rows) {
      const { data, seq } = hidden as CpuHidden;
      out.set(all ? data : data.subarray((seq - 1) * H), at * H);
      at += all ? seq : 1;
    }
    return out;
  }

  kvFeed(slots: (KvSlot | null)[], cap: number): KvFeed {
    const { heads, headDim } = this.kvShape;
    const B = slots.length;
    const slotSize = heads * cap * headDim;
    const dims = [B, heads, cap, headDim];
    const cpuSlots = slots as (CpuSlot | null)[];
    return {
      key: this.tensor(this.act, stackSlots(cpuSlots, slotSize, 'key', this.alloc), dims),
      value: this.tensor(this.act, stackSlots(cpuSlots, slotSize, 'value', this.alloc), dims),
      bind: null,
      commit: (key, value) => splitSlots(this.read<KvArray>(key), this.read<KvArray>(value), B, slotSize),
    };
  }

  feed(type: 'int32' | 'int64' | 'bool', data: Int32Array | BigInt64Array | Uint8Array, dims: number[]): Tensor {
    return this.tensor(type, data, dims);
  }

  cpuFeed(type: 'int32', data: Int32Array, dims: number[]): Tensor {
    return this.tensor(type, data, dims);
  }

  read<T extends Tensor['data']>(out: Tensor): T {
    this.transfer.download += (out.data as ArrayBufferView).byteLength;
    return out.data as T;
  }

  endStep(): void {}

  endCall(): void {}
}

// Memory for one layer's engine-format weights, reused by the next layer. Where onnxruntime copies
// a session's weights into its own heap when the session is created (WASM, one session per layer),
// the JavaScript copy is garbage as soon as the session exists; the first write to freshly
// allocated memory costs several times a write to memory already touched (page faults), so
// converting every layer into the same memory loads faster and peaks lower.

/** Typed arrays the arena hands out (all element sizes divide ALIGN). */
type ArenaArray = Float32Array | Uint16Array | Int8Array | Uint8Array;
export interface ArrayType<T extends ArenaArray> {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

const ALIGN = 16;
/** Smallest block the arena allocates; a larger request gets a block of its own size. */
const BLOCK_BYTES = 64 * 1024 * 1024;

export class WeightArena {
  private readonly blocks: ArrayBuffer[] = [];
  private block = 0; // index of the block being filled
  private used = 0; // bytes used in it

  /** A zero-filled array of `length` elements, valid until the next reset(). */
  take<T extends ArenaArray>(type: ArrayType<T>, length: number): T {
    const bytes = Math.ceil((length * type.BYTES_PER_ELEMENT) / ALIGN) * ALIGN;
    while (this.block < this.blocks.length && this.used + bytes > this.blocks[this.block].byteLength) {
      this.block++;
      this.used = 0;
    }
    if (this.block === this.blocks.length) {
      this.blocks.push(new ArrayBuffer(Math.max(bytes, BLOCK_BYTES)));
      this.used = 0;
    }
    const out = new type(this.blocks[this.block], this.used, length);
    this.used += bytes;
    out.fill(0);
    return out;
  }

  /** Every array taken so far may be overwritten from now on. */
  reset(): void {
    this.block = 0;
    this.used = 0;
  }

  /** Bytes held (for tests and memory accounting). */
  get heldBytes(): number {
    return this.blocks.reduce((n, b) => n + b.byteLength, 0);
  }
}

/** `length` zeros from `arena`, or a fresh array without one. */
export function takeArray<T extends ArenaArray>(arena: WeightArena | undefined, type: ArrayType<T>, length: number): T {
  return arena ? arena.take(type, length) : new type(length);
}

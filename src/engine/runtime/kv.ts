// KV caches: one slot per (row, route position), each a fixed-capacity [kvHeads, cap, headDim]
// key and value in the precision's activation type (f32, or f16 bit patterns in a Uint16Array,
// since Node 20 has no Float16Array). A batch run stacks its rows' slots into
// [batch, kvHeads, cap, headDim]; the present outputs (same fixed shape) become the rows' new
// slots as views, never copies, so the next run of the same rows in the same order passes the
// buffer back without stacking.
// Slots are never written after creation, which makes sharing a prefix's slots between rows
// (prefix sharing) safe: a row that goes on gets new slots from the next run.

export type KvArray = Float32Array | Uint16Array;

export interface KvSlot {
  key: KvArray; // [kvHeads, cap, headDim]
  value: KvArray; // [kvHeads, cap, headDim]
}

/** Allocates a zeroed cache buffer of the given element type. */
export type KvAlloc = (length: number) => KvArray;

/** Stacks slots into one [batch, ...] buffer; null slots (fresh positions) read as zeros. */
export function stackSlots(slots: (KvSlot | null)[], slotSize: number, part: 'key' | 'value', alloc: KvAlloc): KvArray {
  const first = slots[0]?.[part];
  if (first) {
    const bytes = slotSize * first.BYTES_PER_ELEMENT;
    // reuse when the slots are, in order, the views of one earlier present output
    if (first.byteOffset === 0 && first.buffer.byteLength === slots.length * bytes
      && slots.every((s, i) => s && s[part].buffer === first.buffer && s[part].byteOffset === i * bytes)) {
      return first.constructor === Float32Array
        ? new Float32Array(first.buffer, 0, slots.length * slotSize)
        : new Uint16Array(first.buffer, 0, slots.length * slotSize);
    }
  }
  const out = alloc(slots.length * slotSize);
  slots.forEach((s, i) => {
    if (s) out.set(s[part], i * slotSize);
  });
  return out;
}

/** Views of a [batch, ...] present output, one per row. */
export function splitSlots(key: KvArray, value: KvArray, batch: number, slotSize: number): KvSlot[] {
  return Array.from({ length: batch }, (_, i) => ({
    key: key.subarray(i * slotSize, (i + 1) * slotSize),
    value: value.subarray(i * slotSize, (i + 1) * slotSize),
  }));
}

// KV caches: one slot per (row, route position), each a fixed-capacity [kvHeads, cap, headDim]
// key and value. A batch run stacks its rows' slots into [batch, kvHeads, cap, headDim]; the
// present outputs (same fixed shape) become the rows' new slots as views, never copies, so the
// next run of the same rows in the same order passes the buffer back without stacking.
// Slots are never written after creation, which makes sharing a prefix's slots between rows
// (prefix sharing) safe: a row that goes on gets new slots from the next run.

export interface KvSlot {
  key: Float32Array; // [kvHeads, cap, headDim]
  value: Float32Array; // [kvHeads, cap, headDim]
}

/** Stacks slots into one [batch, ...] buffer; null slots (fresh positions) read as zeros. */
export function stackSlots(slots: (KvSlot | null)[], slotSize: number, part: 'key' | 'value'): Float32Array {
  const first = slots[0]?.[part];
  if (first && first.byteOffset === 0 && first.buffer.byteLength === slots.length * slotSize * 4) {
    // reuse when the slots are, in order, the views of one earlier present output
    if (slots.every((s, i) => s && s[part].buffer === first.buffer && s[part].byteOffset === i * slotSize * 4)) {
      return new Float32Array(first.buffer, 0, slots.length * slotSize);
    }
  }
  const out = new Float32Array(slots.length * slotSize);
  slots.forEach((s, i) => {
    if (s) out.set(s[part], i * slotSize);
  });
  return out;
}

/** Views of a [batch, ...] present output, one per row. */
export function splitSlots(key: Float32Array, value: Float32Array, batch: number, slotSize: number): KvSlot[] {
  return Array.from({ length: batch }, (_, i) => ({
    key: key.subarray(i * slotSize, (i + 1) * slotSize),
    value: value.subarray(i * slotSize, (i + 1) * slotSize),
  }));
}

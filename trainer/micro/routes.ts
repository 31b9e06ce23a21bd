// The "blocks" route space restricted to one edit, as the micro model is trained and probed on:
// skip or repeat one contiguous block of 1..maxBlock layers of the default route 0..L-1
// (no reordering, so a layer runs at most twice).

export function defaultRoute(numLayers: number): number[] {
  return Array.from({ length: numLayers }, (_, i) => i);
}

/** Every one-edit route, skips first, in a fixed order; none equals the default route. */
export function blockRoutes(numLayers: number, maxBlock: number): number[][] {
  if (!Number.isInteger(numLayers) || numLayers < 1) throw new Error(`blockRoutes: numLayers must be a positive integer, got ${numLayers}`);
  if (!Number.isInteger(maxBlock) || maxBlock < 1) throw new Error(`blockRoutes: maxBlock must be a positive integer, got ${maxBlock}`);
  const base = defaultRoute(numLayers);
  const skips: number[][] = [];
  const repeats: number[][] = [];
  for (let size = 1; size <= Math.min(maxBlock, numLayers); size++) {
    for (let start = 0; start + size <= numLayers; start++) {
      const block = base.slice(start, start + size);
      if (size < numLayers) skips.push([...base.slice(0, start), ...base.slice(start + size)]);
      repeats.push([...base.slice(0, start + size), ...block, ...base.slice(start + size)]);
    }
  }
  return [...skips, ...repeats];
}

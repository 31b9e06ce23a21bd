// A route as a strip of layer cells, so skips, repeats and moves are visible at a glance.
// Walking the route: a layer that already ran is a repeat; default layers the route never runs
// appear as skip cells where they would have been; a layer reached out of order is a move.

export type CellKind = 'run' | 'repeat' | 'moved' | 'skip';

export interface RouteCell {
  layer: number;
  kind: CellKind;
}

export function routeCells(route: readonly number[], numLayers: number): RouteCell[] {
  if (!Number.isInteger(numLayers) || numLayers < 1) throw new RangeError(`routeCells: numLayers must be ≥ 1, got ${numLayers}`);
  if (route.length === 0) throw new RangeError('routeCells: a route is non-empty');
  for (const l of route) {
    if (!Number.isInteger(l) || l < 0 || l >= numLayers) throw new RangeError(`routeCells: layer ${l} outside [0, ${numLayers})`);
  }
  const inRoute = new Set(route);
  const seen = new Set<number>();
  const cells: RouteCell[] = [];
  let prev = -1;
  const pushSkips = (from: number, to: number) => {
    for (let l = from; l < to; l++) if (!inRoute.has(l)) cells.push({ layer: l, kind: 'skip' });
  };
  for (const layer of route) {
    if (seen.has(layer)) {
      cells.push({ layer, kind: 'repeat' });
    } else {
      const between = layer > prev + 1 ? range(prev + 1, layer) : [];
      pushSkips(prev + 1, layer);
      const inOrder = layer > prev && between.every((l) => !inRoute.has(l));
      cells.push({ layer, kind: inOrder ? 'run' : 'moved' });
      seen.add(layer);
    }
    prev = Math.max(prev, layer);
  }
  pushSkips(prev + 1, numLayers);
  return cells;
}

/** A text rendering of the route for screen readers and CSV: "0 1 (skip 2 3) 4 4↺ 5". */
export function describeRoute(cells: readonly RouteCell[]): string {
  const parts: string[] = [];
  let skips: number[] = [];
  const flush = () => {
    if (skips.length) parts.push(`(skip ${skips.join(' ')})`);
    skips = [];
  };
  for (const c of cells) {
    if (c.kind === 'skip') {
      skips.push(c.layer);
      continue;
    }
    flush();
    parts.push(c.kind === 'repeat' ? `${c.layer}↺` : c.kind === 'moved' ? `${c.layer}*` : `${c.layer}`);
  }
  flush();
  return parts.join(' ');
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

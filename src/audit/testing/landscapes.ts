// Scripted reward landscapes for comparing route searches with their released code: per question
// q, a route succeeds by a rule on its shape and a hash of (q, route), so the success pattern is
// fixed per question and the same in any language (32-bit FNV-1a over `${q}|${route}`).

import { routeToString } from '../routes';

export type Reward = (route: readonly number[]) => number;
export type Landscape = (q: number) => Reward;

function fnv(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

const hashed = (q: number, r: readonly number[], mod: number) => fnv(`${q}|${routeToString(r)}`) % mod === 0;

/** Layers skipped or repeated: Σ over layers of |copies − 1| (a repeated block of k counts k). */
export function layerEdits(route: readonly number[], numLayers: number): number {
  const copies = new Array<number>(numLayers).fill(0);
  for (const l of route) copies[l]++;
  return copies.reduce((s, c) => s + Math.abs(c - 1), 0);
}

/** Positions running another layer than their own. */
export const changedPositions = (route: readonly number[]) => route.filter((l, p) => l !== p).length;

const stepsBack = (r: readonly number[]) => r.some((l, j) => j + 1 < r.length && l > r[j + 1]);

/** Landscapes over CoLa's routes of L layers. */
export const colaLandscapes = (L: number): Record<string, Landscape> => ({
  /** one layer skipped or repeated, and 1 in 10 of those */
  'single-10': (q) => (r) => (layerEdits(r, L) === 1 && hashed(q, r, 10) ? 1 : 0),
  /** at least 3 layers edited, and 1 in 2 of those */
  'deep-3': (q) => (r) => (layerEdits(r, L) >= 3 && hashed(q, r, 2) ? 1 : 0),
  /** a step back (a repeated block), and 1 in 5 of those */
  'backjump-20': (q) => (r) => (stepsBack(r) && hashed(q, r, 5) ? 1 : 0),
  none: () => () => 0,
});

/** Landscapes over program selection's neighborhood routes. */
export const neighborhoodLandscapes = (): Record<string, Landscape> => ({
  'single-10': (q) => (r) => (changedPositions(r) === 1 && hashed(q, r, 10) ? 1 : 0),
  'deep-3': (q) => (r) => (changedPositions(r) >= 3 && hashed(q, r, 2) ? 1 : 0),
  /** position 12 runs another layer, and 1 in 3 of those */
  pos12: (q) => (r) => (r[12] !== 12 && hashed(q, r, 3) ? 1 : 0),
  none: () => () => 0,
});

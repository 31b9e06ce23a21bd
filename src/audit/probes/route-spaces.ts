// The route spaces a setup choice names, listed once: name, label, the settings they read and the
// space each builds for a model of L layers. Probes that draw from a chosen space read SPACE_SETTINGS.

import { blocksSpace, neighborhoodSpace } from '../routes';
import type { BlocksSpace, ColaSpace, NeighborhoodSpace, RouteSpace } from '../types';
import { colaSpace } from './cola-mcts';
import { choice, int, type ChoiceOf } from './settings';

/** What a space's shape may be set to (each space reads its own). */
const SHAPE = {
  radius: int({ min: 0, default: 2, help: 'neighborhood: how far from its own layer a position may run' }),
  maxEdits: int({ min: 1, help: 'most edits (blocks; default 2) or changed positions (neighborhood; default 3)' }),
  maxBlock: int({ min: 1, default: 4, help: 'blocks: longest block of layers skipped or repeated' }),
  minLen: int({ min: 1, help: 'blocks: shortest route (default L − 8, at least 1)' }),
  maxLen: int({ min: 1, help: 'blocks: longest route (default L + 8)' }),
};
type Shape = ChoiceOf<typeof SHAPE>;

const given = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Each space: its name, label, how a choice builds it for L layers, and a space of it in words. */
export const ROUTE_SPACES = [
  {
    name: 'blocks',
    label: 'blocks space',
    build: (L: number, o: Shape): RouteSpace => blocksSpace(L, given({ maxBlock: o.maxBlock, maxEdits: o.maxEdits, minLen: o.minLen, maxLen: o.maxLen })),
    words: (s: BlocksSpace) => `blocks of 1–${s.maxBlock} layers skipped or repeated, at most ${s.maxEdits} edits, routes of ${s.minLen}–${s.maxLen} layers`,
  },
  {
    name: 'neighborhood',
    label: 'neighborhood space',
    build: (L: number, o: Shape): RouteSpace => neighborhoodSpace(L, o.radius, o.maxEdits ?? 3),
    words: (s: NeighborhoodSpace) => `each position runs a layer within ±${s.radius} of its own, at most ${s.maxEdits} positions changed`,
  },
  {
    name: 'cola',
    label: "CoLa's space",
    build: (L: number): RouteSpace => colaSpace(L),
    words: (s: ColaSpace) => `CoLa's routes: layers skipped or repeated any number of times (a layer at most twice), routes of ${s.minLen}–${s.maxLen} layers`,
  },
] as const;

export type SpaceName = (typeof ROUTE_SPACES)[number]['name'];
export const SPACE_NAMES: readonly SpaceName[] = ROUTE_SPACES.map((s) => s.name);

/** The settings of a probe that draws from the route space a choice names. */
export const SPACE_SETTINGS = { space: choice(SPACE_NAMES, 'blocks', 'the route space routes are drawn from'), ...SHAPE };

export const routeSpaceEntry = (name: string) => ROUTE_SPACES.find((s) => s.name === name);

/** A route space in words: "blocks of 1–4 layers skipped or repeated, at most 2 edits, routes of 1–14 layers". */
export const routeSpaceInWords = (space: RouteSpace): string => (routeSpaceEntry(space.kind)!.words as (s: RouteSpace) => string)(space);

/** The route space a choice names, for a model of L layers (cola: CoLa's own limits for L). */
export const routeSpaceOf = (o: ChoiceOf<typeof SPACE_SETTINGS>, L: number): RouteSpace => routeSpaceEntry(o.space)!.build(L, o);

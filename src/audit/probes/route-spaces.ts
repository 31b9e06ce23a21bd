// The route spaces a setup choice names, listed once: name, label, the settings they read and the
// space each builds for a model of L layers. Probes that draw from a chosen space read SPACE_SETTINGS.

import { blocksSpace, neighborhoodSpace } from '../routes';
import type { RouteSpace } from '../types';
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

export const ROUTE_SPACES = [
  { name: 'blocks', label: 'blocks space', build: (L: number, o: Shape): RouteSpace => blocksSpace(L, given({ maxBlock: o.maxBlock, maxEdits: o.maxEdits, minLen: o.minLen, maxLen: o.maxLen })) },
  { name: 'neighborhood', label: 'neighborhood space', build: (L: number, o: Shape): RouteSpace => neighborhoodSpace(L, o.radius, o.maxEdits ?? 3) },
  { name: 'cola', label: "CoLa's space", build: (L: number): RouteSpace => colaSpace(L) },
] as const;

export type SpaceName = (typeof ROUTE_SPACES)[number]['name'];
export const SPACE_NAMES: readonly SpaceName[] = ROUTE_SPACES.map((s) => s.name);

/** The settings of a probe that draws from the route space a choice names. */
export const SPACE_SETTINGS = { space: choice(SPACE_NAMES, 'blocks', 'the route space routes are drawn from'), ...SHAPE };

export const routeSpaceEntry = (name: string) => ROUTE_SPACES.find((s) => s.name === name);

/** The route space a choice names, for a model of L layers (cola: CoLa's own limits for L). */
export const routeSpaceOf = (o: ChoiceOf<typeof SPACE_SETTINGS>, L: number): RouteSpace => routeSpaceEntry(o.space)!.build(L, o);

// Read-out points by name (engine/types.ts PointName): `blocks.{p}.{BLOCK_POINTS}` at route position
// p, and `ln_final`. The runtime (runtime/scheduler.ts readPoints) and the float64 reference
// (reference.ts) read the same names; read-outs (readouts.ts) ask by them.
import { BLOCK_POINTS, EngineError, type BlockPoint, type PointName } from './types.ts';
import { quote } from '../util/clip.ts';

/** Where a point is: a route position's block point, or the final norm's output. */
export type PointSite = { position: number; point: BlockPoint } | 'ln_final';

/** The name of route position p's `point`. */
export function blockPoint(position: number, point: BlockPoint): PointName {
  return `blocks.${position}.${point}`;
}

/** The site of `name` on a route of `n` positions; a name that is not a point there is bad input. */
export function pointSite(name: string, n: number): PointSite {
  if (name === 'ln_final') return name;
  const m = /^blocks\.(\d+)\.([a-z_]+)$/.exec(name);
  const position = m ? Number(m[1]) : NaN;
  const point = m?.[2] as BlockPoint;
  if (!m || !BLOCK_POINTS.includes(point) || position >= n) {
    throw new EngineError('bad-input', `read-out point ${quote(name)} is not blocks.{p}.{${BLOCK_POINTS.join('|')}} with p in [0, ${n}) or ln_final`);
  }
  return { position, point };
}

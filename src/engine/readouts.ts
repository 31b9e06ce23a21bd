// Read-outs: looks at one forward row, each declared as the named points it reads (engine/points.ts)
// and how it reduces them. The engine (engine.ts readout) and the float64 reference (reference.ts
// readout) run every read-out the same way, `runReadout`: one forward pass that reads the points,
// one final norm + LM head over the vectors the read-out asks logits for, then its reduction.
//
// Add a read-out: declare its points and its reduction, and list it in READOUTS; the Engine type,
// the worker bridge and the reference follow. Its conformance test compares the engine with the
// reference (readout.spec.ts).
import { EngineError, type ForwardRow, type ModelConfig, type PointName, type PointsRow, type PointValues, type ReadoutRow, type TokenStanding } from './types.ts';
import { checkReadoutTokens, LOOK_INSIDE, standing } from './readout.ts';
import { checkFinite } from './sampling.ts';
import { blockPoint } from './points.ts';
import { quote } from '../util/clip.ts';

export type Vector = ArrayLike<number>;

export interface ReadoutDef<Row extends ForwardRow, Out> {
  /** Checks the row's own fields (the route and prompt are checked before). */
  check?(row: Row, config: ModelConfig): void;
  /** The points it reads, at the row's last prompt position or at every one. */
  read(row: Row): Pick<PointsRow, 'points' | 'positions'>;
  /** Vectors whose logits (final norm + LM head) the reduction needs, if any. */
  project?(row: Row, points: PointValues): Vector[];
  /** The read-out from the points and the logits of `project`'s vectors, in order. */
  reduce(row: Row, read: { points: PointValues; logits: Vector[]; config: ModelConfig }): Out;
}

/** The points a row asks for, as they are: per point one H-vector per position read. */
const POINTS: ReadoutDef<PointsRow, Record<PointName, number[][]>> = {
  check(row) {
    if (!Array.isArray(row.points) || row.points.length === 0) throw new EngineError('bad-input', 'readout points: points must be a non-empty list of point names');
    if (row.positions !== 'last' && row.positions !== 'all') throw new EngineError('bad-input', `readout points: positions must be 'last' or 'all', got ${quote(row.positions)}`);
  },
  read: (row) => ({ points: row.points, positions: row.positions }),
  reduce: (row, { points }) => Object.fromEntries(row.points.map((name) => [name, points.get(name)!.map((x) => Array.from(x))])) as Record<PointName, number[][]>,
};

/** The attention block's output norm: ‖blocks.p.attn_out‖₂ at every prompt position t, per route
 *  position p (norms[p][t]). */
const ATTN_NORM: ReadoutDef<ForwardRow, { route: number[]; norms: number[][] }> = {
  read: (row) => ({ points: row.route.map((_, p) => blockPoint(p, 'attn_out')), positions: 'all' }),
  reduce: (row, { points }) => ({
    route: row.route.slice(),
    norms: row.route.map((_, p) => points.get(blockPoint(p, 'attn_out'))!.map((x) => Math.hypot(...Array.from(x)))),
  }),
};

/** The logit lens between the blocks: the gold token's standing in the logits of
 *  blocks.p.resid_mid (after attention, before the MLP) at the last prompt position, per route
 *  position p (gold[p]). */
const RESID_MID_LENS: ReadoutDef<Pick<ReadoutRow, keyof ForwardRow | 'gold'>, { route: number[]; gold: TokenStanding[] }> = {
  check: (row, config) => checkReadoutTokens(row.gold, undefined, config.vocabSize),
  read: (row) => ({ points: row.route.map((_, p) => blockPoint(p, 'resid_mid')), positions: 'last' }),
  project: (row, points) => row.route.map((_, p) => points.get(blockPoint(p, 'resid_mid'))![0]),
  reduce: (row, { logits }) => ({
    route: row.route.slice(),
    gold: logits.map((l, p) => {
      checkFinite(l, `resid-mid-lens, midpoint of route position ${p}`);
      return standing(l, row.gold);
    }),
  }),
};

const READOUTS = {
  points: POINTS,
  /** The logit lens and direct attribution at the last prompt position (readout.ts). */
  'look-inside': LOOK_INSIDE,
  'attn-norm': ATTN_NORM,
  'resid-mid-lens': RESID_MID_LENS,
};

export type ReadoutName = keyof typeof READOUTS;
export type ReadoutRowOf<K extends ReadoutName> = (typeof READOUTS)[K] extends ReadoutDef<infer Row, unknown> ? Row : never;
export type ReadoutOf<K extends ReadoutName> = (typeof READOUTS)[K] extends ReadoutDef<never, infer Out> ? Out : never;

/** How a read-out's forward pass runs: the engine's sessions or the float64 reference. */
export interface ForwardPass {
  config: ModelConfig;
  points(row: PointsRow): PointValues | Promise<PointValues>;
  /** final norm + LM head of each vector: its logits [V]. */
  project(vectors: Vector[]): Vector[] | Promise<Vector[]>;
}

/** Read-out `name` of `row` over `pass`; an unknown name is bad input. */
export async function runReadout<K extends ReadoutName>(name: K, row: ReadoutRowOf<K>, pass: ForwardPass): Promise<ReadoutOf<K>> {
  if (!Object.hasOwn(READOUTS, name)) throw new EngineError('bad-input', `unknown read-out ${quote(name)} (known: ${Object.keys(READOUTS).join(', ')})`);
  const def = READOUTS[name] as unknown as ReadoutDef<ForwardRow, ReadoutOf<K>>;
  def.check?.(row, pass.config);
  const points = await pass.points({ promptIds: row.promptIds, route: row.route, silence: row.silence, ...def.read(row) });
  const vectors = def.project?.(row, points) ?? [];
  const logits = vectors.length > 0 ? await pass.project(vectors) : [];
  return def.reduce(row, { points, logits, config: pass.config });
}

// The probe contract (docs/ARCHITECTURE.md "Probes"): everything ReachLab knows about one probe
// sits in one object, in one file of this folder, listed once in registry.ts. The audit driver
// (run.ts), the record rule (record.ts), the run file, the UI and the CLI ask the registry, never
// a probe's name.

import type { Sampling } from '../../engine/types';
import type { Check } from '../../util/check';
import type { Question } from '../attempts';
import type { QuestionIdentity } from '../condition';
import type { ChoiceOf, Settings } from './settings';
import type { Condition, ProbeSpec, ProbeSummary, QuestionRecord, RouteSpace } from '../types';

/** What a probe is for: the deployment attempt itself, reaching the gold answer within a budget,
 *  or an intervention scanned for repairs (its records are read by the silencing scan). */
export type ProbeRole = 'deployment' | 'reach' | 'intervention';

/** One attempt a probe asks for; the driver turns it into an engine row and grades it. */
export interface Ask {
  route: number[];
  silence: number[];
  /** Default: the condition's decoding for this question. */
  sampling?: Sampling;
  sample?: number;
  /** Actions from the default route (searches and depth-matched walks). */
  depth?: number;
  /** false: decoded and observed, but not an attempt (a search that revisits the default route). */
  charged?: boolean;
}

/** A probe at work on one question: it proposes a round of attempts, is told their grades (in
 *  order), and proposes again until it returns null. One-shot probes propose everything at once. */
export interface ProbeSession {
  propose(): Ask[] | null;
  observe(correct: readonly boolean[]): void;
}

export interface ProbeContext {
  numLayers: number;
  condition: Condition;
  /** The run's records (computed or stored) of the probe this one depends on (`dependsOn`). */
  dependency: readonly QuestionRecord[];
}

export interface Probe<S extends { probe: string } = ProbeSpec, Ss extends Settings = {}> {
  name: S['probe'];
  /** Lower-case noun phrase for tables and legends: "random routes". */
  label: string;
  /** Okabe–Ito colour and SVG dash pattern for figures. */
  colour: string;
  dash: string;
  /** A spec's own name and style where they differ from the kind's (an MCTS preset). */
  title?(spec: S): string;
  style?(spec: S): { colour: string; dash: string };
  role: ProbeRole;
  /** The spec's shape, for untrusted JSON (run files, imports, study plans). Earlier versions'
   *  shapes a file may still hold are accepted here and refused for running by `validate`. */
  schema: Check<S>;
  /** Its shape in run-file version 1 when that differed; null when version 1 did not know it. */
  schemaV1?: Check<S> | null;
  /** Throws the first problem with the spec for a model of numLayers layers. */
  validate(spec: S, numLayers: number): void;
  /** Attempts charged per question (reach@B's B): 0 for deployment. */
  budget(spec: S): number;
  /** Most attempts a question can need (a space smaller than the budget caps it). */
  maxAttempts(spec: S): number;
  /** Attempts proposed per round at most: how many questions share one engine call. */
  roundSize(spec: S): number;
  /** One round's asks over several questions run attempt-major (a shared route set: the same
   *  route's rows run together). */
  attemptMajor?(spec: S): boolean;
  /** true when the probe chose its attempts with the gold answer (a search's reward). */
  sawGold: boolean;
  /** true when its attempts need generated answers (not scored option letters). */
  needsGeneration?: boolean;
  /** reach@k of one record: 'unbiased' (exchangeable draws) or 'first-success' (ordered attempts). */
  curve: 'unbiased' | 'first-success';
  /** Its spec draws from the route space a setup choice names (route-spaces.ts SPACE_SETTINGS):
   *  plans, the CLI and the forms then ask for a space. */
  takesSpace?: boolean;
  /** What screens and reports read of a spec, asked of its probe rather than of its fields: the
   *  route space it draws from, the seed of its draws, the released search it runs ("cola") and
   *  the layers it silences; each absent where the probe has none. */
  space?(spec: S): RouteSpace;
  seed?(spec: S): number;
  searchPreset?(spec: S): string;
  silenced?(spec: S): number[];
  /** The spec with another seed and, when given, budget (absent: the probe takes neither). */
  reseed?(spec: S, seed: number, budget?: number): S;
  /** Routes the fixed-route selector calibrates over; absent for probes that do not draw routes. */
  candidates?(spec: S): number[][];
  /** The spec bound to its run (the run's probes and questions), checked if already bound. */
  bind?(spec: S, probes: readonly ProbeSpec[], questions: readonly QuestionIdentity[]): Promise<S>;
  /** Probe key whose records this probe reads (ctx.dependency); it then runs after that probe. */
  dependsOn?(spec: S): string | null;
  /** What a setup choice (the CLI's flags, a study plan, the app's forms) may set for it, with
   *  defaults and bounds (settings.ts); choice.ts merges every probe's into ProbeChoice. */
  settings?: Ss;
  /** The spec a setup choice asks for on a model of numLayers layers; absent when no choice builds one. */
  fromChoice?(o: ChoiceOf<Ss>, numLayers: number): S;
  /** The uniform baseline a guided search is compared with (guidanceComparisons). */
  uniformBaseline?: boolean;
  /** The probe this one runs beside as its baseline (depth-matched walks: MCTS), and its spec
   *  beside a spec of that probe. */
  baselineOf?: string;
  baselineFor?(other: ProbeSpec): S;
  start(spec: S, q: Question, ctx: ProbeContext): ProbeSession;
  /** Fields of its own a record carries beyond the common ones. */
  recordFields?(spec: S, ctx: ProbeContext): Partial<QuestionRecord>;
  /** Summary fields of its own over one probe key's records. */
  summaryFields?(records: readonly QuestionRecord[]): Partial<ProbeSummary>;
  /** The protocols the Setup screen offers for this probe, in order. */
  presets?: SetupPreset<S>[];
  /** One line of what ran: "random routes ×100". */
  describe(spec: S): string;
}

/** A protocol the Setup screen offers for a probe (a probe may offer several: one per MCTS preset). */
export interface SetupPreset<S extends { probe: string } = ProbeSpec> {
  /** Stable id (form test ids, saved choices); never a probe's name. */
  id: string;
  label: string;
  /** The protocol's name in messages ("Random routes: the budget …"). */
  short: string;
  description: string;
  /** Its spec for a model of numLayers layers. */
  spec(numLayers: number): S;
  /** The protocol's budget before a model caps it to its route space (absent: no budget to set). */
  nominalBudget?: number;
  /** The protocol prescribes CoLa's condition (presets.ts colaCondition): greedy, 50 new tokens,
   *  the answer required in \boxed{}. */
  boxed?: boolean;
}

/** A session that asks for all of `asks` in one round. */
export function oneShot(asks: Ask[]): ProbeSession {
  let sent = false;
  return {
    propose: () => (sent ? null : ((sent = true), asks)),
    observe: () => {},
  };
}

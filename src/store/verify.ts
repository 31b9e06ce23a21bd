// An imported record is checked against what this version would compute from it: its doc and
// prompt hashes from its own question and prompt, each attempt's grade from its response with the
// run's stated grader, its attempts from its probe's seeded session told those grades
// (audit/replay.ts: routes, silence sets, samples, depths), the probe's own fields (a depth
// profile from the run's MCTS records) and every derived field (realized, reachable,
// first_success, stop_reason, budget, invalid, decoy fields, selector picks and their blindness,
// the fixed route) from its attempts through the same functions that make records
// (audit/record.ts recordOutcome, audit/decoy.ts decoyFields). A record that disagrees is refused
// with the run, the record and the field named. A fixed-route pick made by an extra decode is
// regraded from the response it keeps; one written before picks kept it cannot be, and is dropped
// on import (unverifiablePicksDropped). A run whose condition is unknown (lm-evaluation-harness) or
// was graded by another grader version cannot be regraded: its records are kept, marked
// unverified, and never reused (import.ts).

import { docHash } from '../audit/attempts.ts';
import { decoyControl, decoyFields } from '../audit/decoy.ts';
import { grade, gradeOptions, INVALID } from '../audit/graders.ts';
import { answerKeyOf, gradedNow } from '../audit/formats/registry.ts';
import { isDeployment, probeOf } from '../audit/probes/registry.ts';
import { replayProblem } from '../audit/replay.ts';
import { routeToString } from '../audit/routes.ts';
import { recordOutcome } from '../audit/record.ts';
import { fixedRoutePick, majorityVote, maxLogprob, type AnswerKey } from '../audit/selectors.ts';
import type { ProbeContext } from '../audit/probes/probe.ts';
import type { Condition, ProbeSpec, QuestionRecord, RunManifest } from '../audit/types.ts';
import { canonicalJson, sha256Hex } from '../util/hash.ts';
import { StoreError } from './errors.ts';
import { clip } from '../util/clip.ts';

/** Whether a run's records can be regraded here: its condition is known and graded by this
 *  version's grader. */
export function canRegrade(manifest: RunManifest): manifest is RunManifest & { condition: Condition } {
  return manifest.condition !== null && gradedNow(manifest.condition);
}

/**
 * Checks every record of an imported run (see the file comment); throws StoreError
 * 'invalid-import' naming the first disagreement. `label(i)` names record i in the file.
 */
export async function verifyRecords(
  manifest: RunManifest & { condition: Condition },
  records: readonly QuestionRecord[],
  where: string,
  label: (i: number) => string,
  /** Told how many records have passed so far. */
  onVerified?: (records: number) => void,
): Promise<void> {
  const run = runContext(manifest, records);
  const refuse = (i: number, problem: Disagreement) =>
    new StoreError(
      'invalid-import',
      `${where}: run ${manifest.id}, ${label(i)} (question ${records[i].doc_id}, probe ${records[i].probe}): ${problem.field} ${problem.why} (the file was altered, or written by a version that computes it differently)`,
    );
  for (const [i, r] of records.entries()) {
    const problem = await disagreement(manifest, r, run).catch((e: unknown) => ({ field: 'target', why: `cannot be graded (${e instanceof Error ? e.message : String(e)})` }));
    if (problem) throw refuse(i, problem);
    onVerified?.(i + 1);
  }
  // one calibration per probe: every fixed-route pick of a probe names the same route
  const fixed = new Map<string, { route: string; i: number }>();
  for (const [i, r] of records.entries()) {
    const pick = r.selectors?.['fixed-route'];
    if (!pick) continue;
    const route = canonicalJson(pick.route ?? null);
    const seen = fixed.get(r.probe_key);
    if (!seen) fixed.set(r.probe_key, { route, i });
    else if (seen.route !== route) throw refuse(i, { field: 'selectors.fixed-route.route', why: `says ${route}, but ${label(seen.i)} of the same probe says ${seen.route} (the fixed route is chosen once per run)` });
  }
}

/** The records with every fixed-route pick that cannot be regraded removed: an extra decode
 *  (attempt null) written before picks kept its response. */
export function unverifiablePicksDropped(records: readonly QuestionRecord[]): QuestionRecord[] {
  return records.map((r) => {
    const pick = r.selectors?.['fixed-route'];
    if (!pick || pick.attempt !== null || pick.response !== undefined) return r;
    const { 'fixed-route': _f, ...rest } = r.selectors!;
    const { selectors: _s, ...bare } = r;
    return Object.keys(rest).length ? { ...bare, selectors: rest } : bare;
  });
}

/** What a record's replay needs from the rest of its run. */
interface RunContext {
  numLayers: number;
  /** The run's question count. */
  questions: number;
  /** doc_id → the deployment attempt's grade. */
  deployment: Map<string, boolean>;
  /** probe key → the run's records of that probe. */
  byProbeKey: Map<string, QuestionRecord[]>;
  /** What each probe spec of the run replays with, computed at its first record (specOf). */
  specs: Map<ProbeSpec, SpecReplay>;
  /** Each spec's candidate routes as routeToString keys, at its first fixed-route pick. */
  candidates: Map<ProbeSpec, Set<string> | null>;
}

/** A spec's replay setup, the same for every record of the spec: `skip` when this version no
 *  longer runs the spec, else a refusal that holds for all its records, or its context and own
 *  fields (null, with the error recordFields threw, if it did). */
type SpecReplay = { skip: true } | { skip: false; problem: Disagreement | null; ctx: ProbeContext; own: Partial<QuestionRecord> | null; ownError: unknown };

function runContext(manifest: RunManifest, records: readonly QuestionRecord[]): RunContext {
  const deployment = new Map<string, boolean>();
  const byProbeKey = new Map<string, QuestionRecord[]>();
  for (const r of records) {
    if (isDeployment(r) && r.attempts[0]) deployment.set(r.doc_id, r.attempts[0].correct);
    const same = byProbeKey.get(r.probe_key);
    if (same) same.push(r);
    else byProbeKey.set(r.probe_key, [r]);
  }
  // the model's depth: a route space states it; else the default route a deployment attempt ran
  // (or, in a run without one, a silencing scan's attempts, which all run the default route)
  const space = manifest.probes.map((p) => (p as { space?: { numLayers?: number } }).space?.numLayers).find((n) => n !== undefined);
  const route = (records.find((r) => isDeployment(r) && r.attempts[0]?.route) ?? records.find((r) => r.attempts[0]?.route))?.attempts[0].route;
  return { numLayers: space ?? route?.length ?? 0, questions: manifest.task.questions, deployment, byProbeKey, specs: new Map(), candidates: new Map() };
}

interface Disagreement {
  field: string;
  why: string;
}

const differ = (field: string, stated: unknown, computed: unknown): Disagreement | null =>
  canonicalJson(stated ?? null) === canonicalJson(computed ?? null)
    ? null
    : { field, why: `says ${clip(canonicalJson(stated ?? null))}, but this version computes ${clip(canonicalJson(computed ?? null))} from the record` };

async function disagreement(manifest: RunManifest & { condition: Condition }, r: QuestionRecord, run: RunContext): Promise<Disagreement | null> {
  const cond = manifest.condition;
  const spec = manifest.probes.find((p) => p.probe === r.probe);
  if (!spec) return { field: 'probe', why: `"${r.probe}" is not a probe of the run` };
  const first =
    differ('doc_id', r.doc_id, r.doc.id) ??
    differ('target', r.target, r.doc.target) ??
    differ('doc_hash', r.doc_hash, await docHash(r.doc)) ??
    differ('prompt_hash', r.prompt_hash, await sha256Hex(r.arguments.prompt)) ??
    differ('probe_spec', r.probe_spec, spec);
  if (first) return first;
  const regrade = (response: string, extracted: string) =>
    cond.mcMode === 'loglik'
      ? { extracted, correct: extracted !== INVALID && extracted === r.doc.target }
      : grade(cond.answerFormat, r.doc.target, response, gradeOptions(cond, r.doc));
  for (const [k, a] of r.attempts.entries()) {
    const at = `attempts[${k}]`;
    const g = regrade(a.response, a.extracted);
    const bad = differ(`${at}.index`, a.index, k) ?? differ(`${at}.extracted`, a.extracted, g.extracted) ?? differ(`${at}.correct`, a.correct, g.correct);
    if (bad) return bad;
  }
  const probe = probeOf(spec);
  const budget = probe.budget(spec);
  const outcome = recordOutcome(spec, r.attempts, budget);
  const derived: [string, unknown, unknown][] = [
    ['resps', r.resps, r.attempts.map((a) => a.response)],
    ['filtered_resps', r.filtered_resps, r.attempts.map((a) => a.extracted)],
    ['budget', r.budget, budget],
    ['realized', r.realized, outcome.realized],
    ['reachable', r.reachable, outcome.reachable],
    ['first_success', r.first_success, outcome.first_success],
    ['stop_reason', r.stop_reason, outcome.stop_reason],
    ['invalid', r.invalid, outcome.invalid],
    ['selection_saw_gold', r.selection_saw_gold, probe.sawGold],
  ];
  const decoy = decoyFields({ probe: r.probe, doc: r.doc, attempts: r.attempts, budget }, decoyControl(cond));
  for (const k of Object.keys(decoy) as (keyof typeof decoy)[]) derived.push([k, r[k], decoy[k]]);
  for (const [field, stated, computed] of derived) {
    const bad = differ(field, stated, computed);
    if (bad) return bad;
  }
  return replayDisagreement(cond, spec, r, run) ?? pickDisagreement(spec, r, regrade, run, answerKeyOf(cond));
}

/** The record's attempts and its probe's own fields against its probe's session (replay.ts). An
 *  earlier version's spec that this version no longer runs (validate refuses it) keeps the
 *  attempts it states. */
function replayDisagreement(cond: Condition, spec: ProbeSpec, r: QuestionRecord, run: RunContext): Disagreement | null {
  const setup = specReplay(cond, spec, run);
  if (setup.skip) return null;
  if (setup.problem) return setup.problem;
  try {
    if (setup.own === null) throw setup.ownError;
    const own = setup.own;
    for (const k of PROBE_FIELDS) {
      if (r[k] === undefined && own[k] === undefined) continue;
      // a record written before a probe stated its own fields lacks them
      const bad = r[k] === undefined ? null : differ(k, r[k], own[k]);
      if (bad) return bad;
    }
    return replayProblem(spec, r, setup.ctx, run.deployment.get(r.doc_id) ?? null);
  } catch (e) {
    // a session that cannot start on what the run states (a depth profile its MCTS records cannot make)
    return { field: 'attempts', why: `cannot be replayed (${e instanceof Error ? e.message : String(e)})` };
  }
}

/** A spec's replay setup, computed once per spec of the run rather than for each of its records
 *  (a depth-matched probe's own fields read every record of its MCTS probe). */
function specReplay(cond: Condition, spec: ProbeSpec, run: RunContext): SpecReplay {
  let setup = run.specs.get(spec);
  if (!setup) {
    setup = newSpecReplay(cond, spec, run);
    run.specs.set(spec, setup);
  }
  return setup;
}

function newSpecReplay(cond: Condition, spec: ProbeSpec, run: RunContext): SpecReplay {
  const probe = probeOf(spec);
  try {
    probe.validate(spec, run.numLayers);
  } catch {
    // an earlier version's spec that this version no longer runs (validate refuses it)
    return { skip: true };
  }
  const dep = probe.dependsOn?.(spec) ?? null;
  const dependency = dep === null ? [] : (run.byProbeKey.get(dep) ?? []);
  const ctx = { numLayers: run.numLayers, condition: cond, dependency };
  if (dep !== null && new Set(dependency.map((d) => d.doc_id)).size < run.questions) {
    return { skip: false, ctx, own: null, ownError: null, problem: { field: 'probe_spec', why: `cannot be checked: this probe follows the run's ${dep} records, which the file does not hold for every question` } };
  }
  try {
    return { skip: false, ctx, own: probe.recordFields?.(spec, ctx) ?? {}, ownError: null, problem: null };
  } catch (ownError) {
    return { skip: false, ctx, own: null, ownError, problem: null };
  }
}

/** A spec's candidate routes as routeToString keys (null for a probe that draws none), drawn once
 *  per spec of the run. */
function candidateKeys(spec: ProbeSpec, run: RunContext): Set<string> | null {
  if (!run.candidates.has(spec)) {
    const routes = probeOf(spec).candidates?.(spec);
    run.candidates.set(spec, routes ? new Set(routes.map(routeToString)) : null);
  }
  return run.candidates.get(spec)!;
}

/** Record fields a probe may add of its own (Probe.recordFields). */
const PROBE_FIELDS = ['route_draw', 'depth_profile'] as const;

/** Selector picks: majority and max-logprob recomputed from the attempts, blind unless the probe
 *  chose its attempts with the gold answer; the fixed route is one of the probe's candidate routes,
 *  always blind, and picks its first attempt on that route, or, when no attempt ran it, an extra
 *  decode regraded from the response it keeps. A deployment record has no picks. */
function pickDisagreement(spec: ProbeSpec, r: QuestionRecord, regrade: (response: string, extracted: string) => { extracted: string; correct: boolean }, run: RunContext, key: AnswerKey): Disagreement | null {
  const probe = probeOf(spec);
  for (const [name, p] of Object.entries(r.selectors ?? {})) {
    const at = `selectors.${name}`;
    if (isDeployment(spec)) return { field: at, why: 'is a pick on a deployment record, which has one attempt and no selector' };
    const stated = { extracted: p.extracted, correct: p.correct, blind: p.blind, attempt: p.attempt, route: p.route ?? null };
    let bad: Disagreement | null;
    if (name === 'majority') bad = differ(at, stated, { ...majorityVote(r.attempts, key), blind: !probe.sawGold, route: null });
    else if (name === 'max-logprob') bad = differ(at, stated, { ...maxLogprob(r.attempts), blind: !probe.sawGold, route: null });
    else {
      const candidates = candidateKeys(spec, run);
      if (!candidates) return { field: at, why: `is a pick of a probe that draws no candidate routes (${spec.probe})` };
      if (!p.route || !candidates.has(routeToString(p.route))) return { field: `${at}.route`, why: `says ${canonicalJson(p.route ?? null)}, which is not one of the probe's candidate routes` };
      const hit = fixedRoutePick(r.attempts, p.route);
      if (hit) bad = differ(at, stated, { ...hit, blind: true });
      else if (p.attempt !== null) bad = { field: `${at}.attempt`, why: `names attempt ${p.attempt}, but no attempt of the record ran the route ${routeToString(p.route)}` };
      else {
        const g = regrade(p.response ?? '', p.extracted);
        bad = differ(at, stated, { extracted: g.extracted, correct: g.correct, blind: true, attempt: null, route: p.route });
      }
    }
    if (bad) return bad;
  }
  return null;
}

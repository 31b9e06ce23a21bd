// The verdict of each finding of a study report: one rule per finding, each giving a sentence and
// the evidence behind it (the numbers it rests on, in words). The Report screen, the HTML and JSON
// exports and the study CLI all print these, so a finding reads the same everywhere.
//
// Rules (docs/ARCHITECTURE.md "Vocabulary"; the numbers are defined in definitions.ts):
// - F1, per (setting, MCTS preset): "uninformative" when both reachable rates are ≤ FLOOR or
//   ≥ 1 − FLOOR; "random higher" / "MCTS higher" when the paired 95% interval excludes 0 and the
//   Holm-adjusted McNemar p < ALPHA; "random not worse" when the interval's lower end is above
//   −MARGIN; else "inconclusive". Only "random higher" and "random not worse" support random ≥ MCTS.
// - F2: an empty failure set is "no failures to repair"; fewer than MIN_HELD_OUT_FAILURES held-out
//   failures is "no case" (no rate, no layer).
// - F3: a Δ is distinguishable from zero when its 95% interval excludes 0 and its Holm-adjusted
//   McNemar p < ALPHA; the sentence gives its direction.

import { formatP, holm } from './stats';
import type { PairReport, ScanCase, StudyReport } from './study';

/** Below this many held-out failures, F2 reports no rate and no layer. */
export const MIN_HELD_OUT_FAILURES = 10;
/** Both rates at or below this (or at or above 1 − this): a tie that says nothing. */
export const FLOOR = 0.05;
/** How far MCTS may lead (95% interval's lower end) for random routes to count as not worse. */
export const MARGIN = 0.05;
/** Significance level, applied to Holm-adjusted p. */
export const ALPHA = 0.05;

export interface Verdict {
  sentence: string;
  evidence: string[];
}

export type F1Outcome = 'random higher' | 'random not worse' | 'inconclusive' | 'MCTS higher' | 'uninformative';

export interface StudyVerdicts {
  f1: Verdict & { depth_matched: Verdict | null; settings: { support: number; uninformative: number; inconclusive: number; against: number } };
  f2: Verdict;
  f3: Verdict;
  multiplicity: Verdict;
}

/** One McNemar test the report makes, with its raw and Holm-adjusted p. */
export interface ReportTest {
  id: string;
  label: string;
  p: number;
  holm: number;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const interval = (c: { lo: number; hi: number }) => `95% CI ${pts(c.lo)} to ${pts(c.hi)} points`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** "1 has", "2 have". */
const verb = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Test ids, shared by the tables and the verdicts. */
export const testId = {
  f1: (model: string, task: string, mcts: string) => JSON.stringify(['f1', model, task, mcts]),
  f1Walks: (model: string, task: string, mcts: string) => JSON.stringify(['f1-walks', model, task, mcts]),
  deployed: (p: PairReport) => JSON.stringify(['f3-deployed', p.base, p.trained, p.task]),
  ceiling: (p: PairReport, label: string) => JSON.stringify(['f3-ceiling', p.base, p.trained, p.task, label]),
};

/** Every McNemar test the report makes, each with its Holm-adjusted p over all of them. */
export function reportTests(r: StudyReport): ReportTest[] {
  const raw: Omit<ReportTest, 'holm'>[] = [];
  for (const s of r.settings) {
    for (const [m, d] of Object.entries(s.random_minus_structured)) {
      raw.push({ id: testId.f1(s.model, s.task, m), label: `F1 ${d.random} − ${m}, ${s.model} · ${s.task}`, p: d.mcnemar_p });
      if (d.depth_matched) raw.push({ id: testId.f1Walks(s.model, s.task, m), label: `F1 depth-matched − ${m}, ${s.model} · ${s.task}`, p: d.depth_matched.mcnemar_p });
    }
  }
  for (const p of r.f3.pairs) {
    raw.push({ id: testId.deployed(p), label: `F3 deployed, ${p.base} → ${p.trained} · ${p.task}`, p: p.deployed_mcnemar_p });
    for (const [label, c] of Object.entries(p.ceilings)) raw.push({ id: testId.ceiling(p, label), label: `F3 ceiling (${label}), ${p.base} → ${p.trained} · ${p.task}`, p: c.mcnemar_p });
  }
  const adjusted = holm(raw.map((t) => t.p));
  return raw.map((t, i) => ({ ...t, holm: adjusted[i] }));
}

/** "p 0.012 (Holm 0.048)". */
export const pText = (p: number, adjusted: number) => `McNemar p ${formatP(p)} (Holm-adjusted ${formatP(adjusted)})`;

/** The F1 outcome of one paired comparison, random − MCTS. */
export function f1Outcome(c: { random: number; structured: number; ci: { lo: number; hi: number }; holm: number }): F1Outcome {
  const floor = c.random <= FLOOR && c.structured <= FLOOR;
  const top = c.random >= 1 - FLOOR && c.structured >= 1 - FLOOR;
  if (floor || top) return 'uninformative';
  if (c.ci.lo > 0 && c.holm < ALPHA) return 'random higher';
  if (c.ci.hi < 0 && c.holm < ALPHA) return 'MCTS higher';
  if (c.ci.lo > -MARGIN) return 'random not worse';
  return 'inconclusive';
}

const supports = (o: F1Outcome) => o === 'random higher' || o === 'random not worse';

/** A setting's outcome: its weakest comparison (MCTS higher, inconclusive, uninformative, support). */
function settingOutcome(os: F1Outcome[]): 'support' | 'uninformative' | 'inconclusive' | 'against' {
  if (os.includes('MCTS higher')) return 'against';
  if (os.includes('inconclusive')) return 'inconclusive';
  if (os.includes('uninformative')) return 'uninformative';
  return 'support';
}

function f1Verdict(r: StudyReport, holmOf: (id: string) => number): StudyVerdicts['f1'] {
  const evidence: string[] = [];
  const walkEvidence: string[] = [];
  const counts = { support: 0, uninformative: 0, inconclusive: 0, against: 0 };
  let walkSupport = 0;
  let walkComparisons = 0;
  for (const s of r.settings) {
    const outcomes: F1Outcome[] = [];
    for (const [m, d] of Object.entries(s.random_minus_structured)) {
      const h = holmOf(testId.f1(s.model, s.task, m));
      const o = f1Outcome({ random: d.random_reachable, structured: d.structured_reachable, ci: d.ci, holm: h });
      outcomes.push(o);
      evidence.push(`${s.model} · ${s.task}, ${d.random} vs ${m} at ${d.matched_attempts.toFixed(1)} matched attempts: ${pct(d.random_reachable)} vs ${pct(d.structured_reachable)}, Δ ${pts(d.diff)} points (${interval(d.ci)}), ${pText(d.mcnemar_p, h)}: ${o}.`);
      const w = d.depth_matched;
      if (w) {
        const hw = holmOf(testId.f1Walks(s.model, s.task, m));
        const ow = f1Outcome({ random: w.walks_reachable, structured: d.structured_reachable, ci: w.ci, holm: hw });
        walkComparisons++;
        if (supports(ow)) walkSupport++;
        walkEvidence.push(`${s.model} · ${s.task}, depth-matched walks vs ${m}: ${pct(w.walks_reachable)} vs ${pct(d.structured_reachable)}, Δ ${pts(w.diff)} points (${interval(w.ci)}), ${pText(w.mcnemar_p, hw)}: ${ow.replace('random', 'walks')}.`);
      }
    }
    if (outcomes.length) counts[settingOutcome(outcomes)]++;
  }
  const n = counts.support + counts.uninformative + counts.inconclusive + counts.against;
  const sentence =
    n === 0
      ? 'No setting compares random routes with MCTS (the plan needs a random-routes and an mcts-routes probe), so Finding 1 has no verdict.'
      : `Random routes reach at least as much as MCTS in ${counts.support} of ${plural(n, 'setting')} (every comparison there: random higher, or MCTS ahead by less than ${pts(MARGIN).slice(1)} points at the 95% interval's end). ` +
        `${counts.uninformative} uninformative (both probes at or below ${pct(FLOOR)} or at or above ${pct(1 - FLOOR)}), ${counts.inconclusive} inconclusive, ${counts.against} where MCTS reaches more.`;
  const depth_matched =
    walkComparisons === 0
      ? null
      : { sentence: `Against each preset's depth-matched walks, the walks reach at least as much as the search in ${walkSupport} of ${plural(walkComparisons, 'comparison')} (same rule).`, evidence: walkEvidence };
  return { sentence, evidence, depth_matched, settings: counts };
}

/** One F2 case in words. */
export function caseSentence(c: ScanCase): string {
  const where = `${c.model} · ${c.task}`;
  if (c.status === 'no-failures') return `${where}: no failures to repair — no question is reachable under ${c.probe} without being realized, so there is nothing for silencing to repair.`;
  if (c.status === 'no-case')
    return `${where}: no case — the failure set has ${plural(c.failures, 'question')}, leaving ${c.evaluated} held out (fewer than ${MIN_HELD_OUT_FAILURES}), so no layer is identified and no repair rate is stated.`;
  if (c.layer === null || c.rate === null || c.ci === null)
    return `${where}: no layer's silencing repairs any of the ${c.identification} identification failures, so there is no layer to evaluate on the ${c.evaluated} held out.`;
  const distinct = c.ci.lo > 0 ? 'its 95% interval excludes 0' : 'its 95% interval includes 0';
  return `${where}: silencing layer ${c.layer}'s MLP repairs ${c.repaired} of ${c.evaluated} held-out failures (${pct(c.rate)}, 95% CI ${pct(c.ci.lo)} to ${pct(c.ci.hi)}; ${distinct}) and breaks ${c.collateral} of ${c.realized} held-out realized questions.`;
}

function f2Verdict(r: StudyReport): Verdict {
  const cases = r.f2.cases;
  if (cases.length === 0) return { sentence: 'No silencing scan was run (the plan sets no "scan": true, or its scan runs have no records yet).', evidence: [] };
  const real = cases.filter((c) => c.status === 'case' && c.rate !== null);
  const sentence =
    real.length === cases.length && real.length > 0
      ? `Silencing one MLP block is evaluated out of sample in ${plural(cases.length, 'setting')}; ${verb(real.filter((c) => c.ci!.lo > 0).length, 'repairs', 'repair')} a share of held-out failures whose 95% interval excludes 0.`
      : `Silencing one MLP block is evaluated out of sample in ${real.length} of ${plural(cases.length, 'setting')}; ` +
        `${verb(cases.filter((c) => c.status === 'no-failures').length, 'has', 'have')} no failures to repair, ${verb(cases.filter((c) => c.status === 'no-case').length, 'has', 'have')} too few held-out failures (fewer than ${MIN_HELD_OUT_FAILURES}) to state a rate.`;
  return { sentence, evidence: cases.map(caseSentence) };
}

function deltaWords(what: string, d: { diff: number; ci: { lo: number; hi: number }; p: number }, h: number): string {
  const excludes = d.ci.lo > 0 || d.ci.hi < 0;
  const verdict =
    excludes && h < ALPHA
      ? `distinguishable from zero: ${d.diff > 0 ? 'up' : 'down'}`
      : excludes
        ? 'not distinguishable from zero after the Holm adjustment'
        : 'not distinguishable from zero';
  return `${what} Δ ${pts(d.diff)} points (${interval(d.ci)}, ${pText(d.p, h)}): ${verdict}.`;
}

function f3Verdict(r: StudyReport, holmOf: (id: string) => number): Verdict {
  if (r.f3.pairs.length === 0) return { sentence: 'The plan has no base/trained pairs, so Finding 3 has no verdict.', evidence: [] };
  const evidence = r.f3.pairs.flatMap((p) => [
    `${p.base} → ${p.trained} on ${p.task} (${p.questions} questions): ` +
      deltaWords(`deployed ${pct(p.base_realized)} → ${pct(p.trained_realized)},`, { diff: p.deployed_delta, ci: p.deployed_ci, p: p.deployed_mcnemar_p }, holmOf(testId.deployed(p))),
    ...Object.entries(p.ceilings).map(
      ([label, c]) => `${p.base} → ${p.trained} on ${p.task}: ` + deltaWords(`ceiling (${label}) ${pct(c.base)} → ${pct(c.trained)},`, { diff: c.diff, ci: c.ci, p: c.mcnemar_p }, holmOf(testId.ceiling(p, label))),
    ),
  ]);
  const sentence = r.f3.pairs
    .map((p) => {
      const dep = distinguishable(p.deployed_ci, holmOf(testId.deployed(p)));
      const ceilings = Object.entries(p.ceilings).map(([label, c]) => `${label} ${distinguishable(c.ci, holmOf(testId.ceiling(p, label))) ? (c.diff > 0 ? 'up' : 'down') : 'unchanged (not distinguishable)'}`);
      return `${p.base} → ${p.trained} on ${p.task}: the deployed accuracy ${dep ? (p.deployed_delta > 0 ? 'rises' : 'falls') : 'does not change distinguishably'}; the ceiling: ${ceilings.join(', ')}.`;
    })
    .join(' ');
  return { sentence, evidence };
}

const distinguishable = (ci: { lo: number; hi: number }, h: number) => (ci.lo > 0 || ci.hi < 0) && h < ALPHA;

function multiplicityVerdict(tests: readonly ReportTest[]): Verdict {
  const evidence = tests.map((t) => `${t.label}: p ${formatP(t.p)}, Holm-adjusted ${formatP(t.holm)}.`);
  if (tests.length === 0) return { sentence: 'This report makes no McNemar test.', evidence };
  if (tests.length === 1) return { sentence: 'This report makes 1 McNemar test; its p needs no adjustment (Holm-adjusted p equals raw p).', evidence };
  return {
    sentence: `This report makes ${tests.length} McNemar tests (F1 and F3); each p is shown raw and Holm-adjusted over all ${tests.length}, and a difference counts as distinguishable only when its Holm-adjusted p is below ${ALPHA}.`,
    evidence,
  };
}

/** The verdict of every finding of a report. */
export function studyVerdicts(r: StudyReport): StudyVerdicts {
  const tests = reportTests(r);
  const byId = new Map(tests.map((t) => [t.id, t.holm]));
  const holmOf = (id: string) => byId.get(id)!;
  return { f1: f1Verdict(r, holmOf), f2: f2Verdict(r), f3: f3Verdict(r, holmOf), multiplicity: multiplicityVerdict(tests) };
}

// The verdict of each finding of a study report: one rule per finding, each giving a sentence and
// the evidence behind it (the numbers it rests on, in words). The Report screen, the HTML and JSON
// exports and the study CLI all print these, so a finding reads the same everywhere.
//
// Rules (docs/ARCHITECTURE.md "Vocabulary"; the numbers are defined in definitions.ts):
// - Reach: a probe reaches only when its gold − decoy reach has a 95% interval above 0
//   (decoy.ts reachesBeyondDecoy); else it is "indistinguishable from producing many answers" and
//   does not count as reaching anywhere below.
// - F1, per (setting, MCTS preset), led by the search against its own depth-matched walks (the
//   comparison that isolates guidance), the uniform routes beside it: "no reach" when either side
//   does not reach; "uninformative" when both reachable rates are ≤ FLOOR or ≥ 1 − FLOOR;
//   "random higher" / "MCTS higher" when the paired 95% interval excludes 0 and the Holm-adjusted
//   McNemar p < ALPHA; "random not worse" when the interval's lower end is above −MARGIN; else
//   "inconclusive". Only "random higher" and "random not worse" support random ≥ MCTS.
// - F2: an empty failure set is "no failures to repair"; fewer than MIN_HELD_OUT_FAILURES held-out
//   failures is "no case" (no rate, no layer); a case states its collateral beside its repairs.
// - F3: a Δ is distinguishable from zero when its 95% interval excludes 0 and its Holm-adjusted
//   McNemar p < ALPHA; a ceiling Δ counts as a change of reach only when it also exceeds the
//   decoy's change (compare.ts ceiling_beyond_decoy, interval excluding 0 the same way).
// - Opening: what the study shows (reach, F1, F3's deployed Δ) and where it cuts against the
//   paper (PAPER), each from the verdicts above.

import { reachesBeyondDecoy } from './decoy';
import { isProbeName, presetTitle, probeOf, takesSpace } from './probes/registry';
import { formatP, holm, type PairedDelta } from './stats';
import type { PairReport, ScanCase, SettingReport, StudyReport } from './study-report';

/** Below this many held-out failures, F2 reports no rate and no layer. */
export const MIN_HELD_OUT_FAILURES = 10;
/** Both rates at or below this (or at or above 1 − this): a tie that says nothing. */
export const FLOOR = 0.05;
/** How far MCTS may lead (95% interval's lower end) for random routes to count as not worse. */
export const MARGIN = 0.05;
/** Significance level, applied to Holm-adjusted p. */
export const ALPHA = 0.05;
/** What the paper reports, for the opening's comparison: silencing one MLP repairs 68–92% of the
 *  failure set (Finding 2); training raises the deployed score while the ceiling stays flat or
 *  falls (Finding 3). */
const PAPER = { repair: { lo: 0.68, hi: 0.92 } } as const;
/** The paper's repair range as the report words it: "68–92%". */
export const PAPER_REPAIR_RANGE = `${Math.round(100 * PAPER.repair.lo)}–${Math.round(100 * PAPER.repair.hi)}%`;

/** What a probe that does not reach beyond its decoy is called. */
export const MANY_ANSWERS = 'indistinguishable from producing many answers';

export interface Verdict {
  sentence: string;
  evidence: string[];
  /** The finding in one plain sentence, without run ids or test names, from the same rule
   *  (the report opens with these; the technical sentence stays below). */
  plain?: string;
}

export type F1Outcome = 'random higher' | 'random not worse' | 'inconclusive' | 'MCTS higher' | 'uninformative' | 'no reach';

/** F1's tally over its leading comparisons. */
export type F1Tally = { support: number; no_reach: number; uninformative: number; inconclusive: number; against: number };

export interface StudyVerdicts {
  /** Two sentences: what the study shows and where it cuts against the paper. */
  opening: Verdict;
  /** Which probes reach the gold answer beyond their decoy. */
  reach: Verdict;
  /** Led by each search against its depth-matched walks; `uniform`: the uniform routes beside it. */
  f1: Verdict & { uniform: Verdict | null; tally: F1Tally };
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
/** "a", "a and b", "a, b and c". */
const list = (xs: readonly string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** A study label in words: "random-routes/blocks" → "random routes (blocks)"; a search's walks as
 *  "the walks beside MCTS routes (blocks)". */
export function plainLabel(label: string): string {
  const walks = /^depth-matched walks of (.+)$/.exec(label);
  if (walks) return `the walks beside ${plainLabel(walks[1])}`;
  const [name, space] = label.split('/');
  const words = isProbeName(name) ? probeOf(name).label : name;
  return space ? `${words} (${space})` : words;
}

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
const pText = (p: number, adjusted: number) => `McNemar p ${formatP(p)} (Holm-adjusted ${formatP(adjusted)})`;

/** The F1 outcome of one paired comparison, random − MCTS; `reaches` (each side beyond its decoy,
 *  null without one) makes it "no reach" when either side does not reach. */
export function f1Outcome(c: { random: number; structured: number; ci: { lo: number; hi: number }; holm: number; reaches?: { random: boolean | null; structured: boolean | null } }): F1Outcome {
  if (c.reaches?.random === false || c.reaches?.structured === false) return 'no reach';
  const floor = c.random <= FLOOR && c.structured <= FLOOR;
  const top = c.random >= 1 - FLOOR && c.structured >= 1 - FLOOR;
  if (floor || top) return 'uninformative';
  if (c.ci.lo > 0 && c.holm < ALPHA) return 'random higher';
  if (c.ci.hi < 0 && c.holm < ALPHA) return 'MCTS higher';
  if (c.ci.lo > -MARGIN) return 'random not worse';
  return 'inconclusive';
}

const supports = (o: F1Outcome) => o === 'random higher' || o === 'random not worse';

/** A setting's probe (a label of the setting, or its walks) reaches beyond its decoy; null without one. */
const settingReaches = (s: SettingReport, label: string): boolean | null => reachesBeyondDecoy(s.gold_minus_decoy[label] ?? null);

/** "CoLa's search": an MCTS preset by the search it runs. */
const searchName = (preset: string) => `${presetTitle(preset)}'s search`;

/** One side of an F1 comparison. */
export interface F1Side {
  reachable: number;
  gap: PairedDelta | null;
  reaches: boolean | null;
  outcome: F1Outcome;
  diff: number;
  ci: { lo: number; hi: number };
  mcnemar_p: number;
  holm: number;
}

/** One (setting, MCTS preset) comparison of F1 with both baselines judged by the rule. */
export interface F1Comparison {
  model: string;
  task: string;
  /** The MCTS probe's label, its preset's search ("CoLa's search") and its own space. */
  label: string;
  search: string;
  space: string;
  structured: { reachable: number; gap: PairedDelta | null; reaches: boolean | null };
  uniform: F1Side & { label: string; space: string };
  walks: F1Side | null;
}

/** Every F1 comparison of a report, each side judged by the reach and F1 rules. */
export function f1Comparisons(r: StudyReport, holmOf: (id: string) => number = holmLookup(r)): F1Comparison[] {
  return r.settings.flatMap((s) =>
    Object.entries(s.random_minus_structured).map(([m, d]): F1Comparison => {
      const structured = { reachable: d.structured_reachable, gap: s.gold_minus_decoy[m] ?? null, reaches: settingReaches(s, m) };
      const side = (reachable: number, gap: PairedDelta | null, x: PairedDelta, h: number): F1Side => {
        const reaches = reachesBeyondDecoy(gap);
        const outcome = f1Outcome({ random: reachable, structured: d.structured_reachable, ci: x.ci, holm: h, reaches: { random: reaches, structured: structured.reaches } });
        return { reachable, gap, reaches, outcome, diff: x.diff, ci: x.ci, mcnemar_p: x.mcnemar_p, holm: h };
      };
      const w = d.depth_matched;
      return {
        model: s.model,
        task: s.task,
        label: m,
        search: searchName(d.preset),
        space: d.space,
        structured,
        uniform: { ...side(d.random_reachable, s.gold_minus_decoy[d.random] ?? null, d, holmOf(testId.f1(s.model, s.task, m))), label: d.random, space: d.random_space },
        walks: w && side(w.walks_reachable, w.walks_gold_minus_decoy, w, holmOf(testId.f1Walks(s.model, s.task, m))),
      };
    }),
  );
}

/** The comparison F1 is led by: the search against its walks where the run has them, else uniform routes. */
const lead = (c: F1Comparison) => c.walks ?? c.uniform;

function holmLookup(r: StudyReport, tests: readonly ReportTest[] = reportTests(r)): (id: string) => number {
  const byId = new Map(tests.map((t) => [t.id, t.holm]));
  return (id) => byId.get(id)!;
}

/** An F1 outcome in words, the random side named ("walks", "uniform routes"). */
function outcomeWords(o: F1Outcome, random: string, c: F1Comparison, side: F1Side): string {
  if (o === 'no reach') {
    const who = [...(side.reaches === false ? [random] : []), ...(c.structured.reaches === false ? ['the search'] : [])];
    return `${list(who)} ${who.length === 1 ? 'is' : 'are'} ${MANY_ANSWERS}`;
  }
  return o.replace('random', random).replace('MCTS', 'search');
}

/** "gold − decoy +3.5 points (95% CI …)", or that there is no decoy. */
const gapWords = (gap: PairedDelta | null) => (gap === null ? 'no decoy to compare against' : `gold − decoy ${pts(gap.diff)} points (${interval(gap.ci)})`);

function f1Verdict(r: StudyReport, cs: readonly F1Comparison[]): StudyVerdicts['f1'] {
  const tally: F1Tally = { support: 0, no_reach: 0, uninformative: 0, inconclusive: 0, against: 0 };
  if (cs.length === 0) return { sentence: 'No setting compares random routes with MCTS (the plan needs a random-routes and an mcts-routes probe), so Finding 1 has no verdict.', evidence: [], uniform: null, tally };
  const where = (c: F1Comparison) => `${r.settings.length > 1 ? `${c.model} · ${c.task}, ` : ''}${c.search} (${c.label}, space ${c.space})`;
  for (const c of cs) {
    const o = lead(c).outcome;
    tally[supports(o) ? 'support' : o === 'no reach' ? 'no_reach' : o === 'uninformative' ? 'uninformative' : o === 'inconclusive' ? 'inconclusive' : 'against']++;
  }
  const walksName = (c: F1Comparison) => (c.walks ? 'its walks' : `${c.uniform.label} (space ${c.uniform.space})`);
  const clauses = cs.map((c) => `${where(c)}: ${walksName(c)} ${pct(lead(c).reachable)} vs the search ${pct(c.structured.reachable)}, ${outcomeWords(lead(c).outcome, c.walks ? 'the walks' : 'uniform routes', c, lead(c))}`);
  const rest = [
    tally.no_reach ? `${tally.no_reach} where a side is ${MANY_ANSWERS} (its reach does not exceed its decoy reach)` : '',
    tally.uninformative ? `${tally.uninformative} uninformative (both at or below ${pct(FLOOR)} or at or above ${pct(1 - FLOOR)})` : '',
    tally.inconclusive ? `${tally.inconclusive} inconclusive` : '',
    tally.against ? `${tally.against} where the search reaches more` : '',
  ].filter(Boolean);
  const allWalks = cs.every((c) => c.walks);
  const sentence =
    `${allWalks ? 'Each search against its own depth-matched walks (its own kind of routes, drawn without the gold answer: the comparison that isolates guidance)' : 'Each search against its depth-matched walks where the run has them, else against uniform routes'} — ${clauses.join('; ')}. ` +
    `The ${allWalks ? 'walks' : 'baseline'} reach${allWalks ? '' : 'es'} at least as much as the search in ${support(tally.support, cs.length)}${rest.length ? `; ${list(rest)}` : ''}.`;
  const evidence = cs.flatMap((c) => [
    ...(c.walks ? [sideEvidence(where(c), 'its depth-matched walks', 'the walks', c, c.walks)] : []),
    sideEvidence(where(c), `uniform ${c.uniform.label} (space ${c.uniform.space})`, 'uniform routes', c, c.uniform),
  ]);
  const uniformClauses = cs.map(
    (c) => `${c.uniform.label} (space ${c.uniform.space}) vs ${where(c)}${c.uniform.space === c.space ? '' : ', different spaces'}: ${pct(c.uniform.reachable)} vs ${pct(c.structured.reachable)}, ${outcomeWords(c.uniform.outcome, 'uniform routes', c, c.uniform)}`,
  );
  const uniform = allWalks ? { sentence: `Beside it, uniform random routes over their own space: ${uniformClauses.join('; ')}.`, evidence: [] } : null;
  const plainRest = [
    tally.no_reach ? `in ${tally.no_reach} a side finds wrong answers as often as right ones` : '',
    tally.uninformative ? `in ${tally.uninformative} both almost never or almost always find it` : '',
    tally.inconclusive ? `${tally.inconclusive} ${tally.inconclusive === 1 ? 'is' : 'are'} too close to call` : '',
    tally.against ? `in ${tally.against} the search finds it more often` : '',
  ].filter(Boolean);
  const plain = `In ${support(tally.support, cs.length)}, routes chosen without seeing the answer found the right answer at least as often as a search that was told whether it was right${plainRest.length ? `; ${list(plainRest)}` : ''}.`;
  return { sentence, evidence, uniform, tally, plain };
}

const support = (k: number, n: number) => `${k} of ${plural(n, 'comparison')}`;

function sideEvidence(where: string, name: string, short: string, c: F1Comparison, s: F1Side): string {
  return (
    `${where} vs ${name}: ${pct(s.reachable)} vs ${pct(c.structured.reachable)}, Δ ${pts(s.diff)} points (${interval(s.ci)}), ${pText(s.mcnemar_p, s.holm)}; ` +
    `${short}: ${gapWords(s.gap)}; the search: ${gapWords(c.structured.gap)}; ${outcomeWords(s.outcome, short, c, s)}.`
  );
}

/** Each probe of each setting (and each search's walks) against its decoy. */
function reachVerdict(r: StudyReport): Verdict {
  const judged = r.settings.flatMap((s) => [
    ...Object.keys(s.reachable).map((label) => ({ s, label, reachable: s.reachable[label], decoy: s.reachable_decoy[label], gap: s.gold_minus_decoy[label] ?? null })),
    ...Object.entries(s.random_minus_structured).flatMap(([m, d]) =>
      d.depth_matched ? [{ s, label: `depth-matched walks of ${m}`, reachable: d.depth_matched.walks_reachable, decoy: d.depth_matched.walks_reachable_decoy, gap: d.depth_matched.walks_gold_minus_decoy }] : [],
    ),
  ]);
  if (judged.length === 0) return { sentence: 'No probe has records yet, so no reach is judged against its decoy.', evidence: [] };
  // each probe label once, with the settings where it reaches, does not, or has no decoy
  const labels = [...new Set(judged.map((x) => x.label))];
  const of = (label: string) => judged.filter((x) => x.label === label).map((x) => reachesBeyondDecoy(x.gap));
  const n = r.settings.length;
  const inAll = (k: number) => (k < n ? ` (in ${k} of ${n} settings)` : '');
  const group = (want: boolean | null) => labels.flatMap((l) => (of(l).includes(want) ? [`${l}${inAll(of(l).filter((x) => x === want).length)}`] : []));
  const [reaching, many, unknown] = [group(true), group(false), group(null)];
  const sentence =
    `Against the decoy answer (a wrong answer of the gold's kind)${n > 1 ? `, in each of the ${n} settings unless a count says otherwise` : ''}, ${reaching.length ? `${list(reaching)} reach${reaching.length === 1 ? 'es' : ''} the gold beyond it` : 'no probe reaches the gold beyond it'}` +
    `${many.length ? `; ${list(many)} ${many.length === 1 ? 'is' : 'are'} ${MANY_ANSWERS} (gold − decoy reach's 95% interval does not exclude 0) and count${many.length === 1 ? 's' : ''} as reaching nowhere in this report` : ''}` +
    `${unknown.length ? `; ${list(unknown)} ${unknown.length === 1 ? 'has' : 'have'} no decoy to judge by` : ''}.`;
  const evidence = judged.map((x) => `${x.s.model} · ${x.s.task}, ${x.label}: gold ${pct(x.reachable)}${x.decoy === null ? '' : ` vs decoy ${pct(x.decoy)}`}, ${gapWords(x.gap)}${x.gap === null ? '' : `: ${reachesBeyondDecoy(x.gap) ? 'reaches' : MANY_ANSWERS}`}.`);
  const names = (ls: string[]) => list(ls.map((l) => plainLabel(l.replace(/ \(in \d+ of \d+ settings\)$/, ''))));
  const plain =
    `${reaching.length ? `${names(reaching)} found the right answer more often than a planted wrong one, so ${reaching.length === 1 ? 'it reaches' : 'they reach'} it` : 'No probe found the right answer more often than a planted wrong one'}` +
    `${many.length ? `; ${names(many)} found both about as often, which shows only that the model can be made to say many answers` : ''}.`;
  return { sentence, evidence, plain };
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
  return `${where}: silencing layer ${c.layer}'s MLP (chosen as the layer that repairs the most of the other ${c.identification} failures) repairs ${c.repaired} of ${c.evaluated} held-out failures (${pct(c.rate)}, 95% CI ${pct(c.ci.lo)} to ${pct(c.ci.hi)}; ${distinct}) and breaks ${c.collateral} of ${c.realized} held-out realized questions.`;
}

const withLayer = (c: ScanCase) => c.status === 'case' && c.rate !== null && c.ci !== null;

/** F2 in one plain sentence: what switching off the identified layer's MLP fixes among failures it
 *  was not chosen on, and what it breaks among questions answered right; or why there is no case. */
function f2Plain(cases: readonly ScanCase[]): string {
  const layered = cases.filter(withLayer);
  if (layered.length === 0) {
    const why = cases.every((c) => c.status === 'no-failures')
      ? 'the model got no question wrong that a probe could reach'
      : `too few wrong-but-reachable questions were left to test on (fewer than ${MIN_HELD_OUT_FAILURES}), or no layer fixed any`;
    return `Switching off one MLP block cannot be judged here: ${why}.`;
  }
  const clause = (c: ScanCase) => `${layered.length > 1 ? `for ${c.model}, ` : ''}layer ${c.layer} fixes ${c.repaired} of ${c.evaluated} wrong answers it was not chosen on and breaks ${c.collateral} of ${c.realized} right ones`;
  return `Switching off one MLP block (the one that fixed the most failures on one half, tested on the other half): ${list(layered.map(clause))}.`;
}

function f2Verdict(r: StudyReport): Verdict {
  const cases = r.f2.cases;
  if (cases.length === 0) return { sentence: 'No silencing scan was run (the plan sets no "scan": true, or its scan runs have no records yet).', evidence: [] };
  const real = cases.filter((c) => c.status === 'case' && c.rate !== null);
  const layered = cases.filter(withLayer);
  const collateral = layered.length ? ` The same silencing breaks ${list(layered.map((c) => `${c.collateral} of ${c.realized}`))} held-out realized questions.` : '';
  const sourced = [...new Set(cases.filter((c) => {
      const s = settingOf(r, c);
      return s !== undefined && settingReaches(s, c.probe) === false;
    }).map((c) => c.probe))];
  const source = sourced.length ? ` The failure sets come from ${list(sourced)}, ${sourced.length === 1 ? 'which is' : 'which are'} ${MANY_ANSWERS}.` : '';
  const head =
    real.length === cases.length && real.length > 0
      ? `Silencing one MLP block is evaluated out of sample in ${plural(cases.length, 'setting')}; ${verb(real.filter((c) => c.ci!.lo > 0).length, 'repairs', 'repair')} a share of held-out failures whose 95% interval excludes 0.`
      : `Silencing one MLP block is evaluated out of sample in ${real.length} of ${plural(cases.length, 'setting')}; ` +
        `${verb(cases.filter((c) => c.status === 'no-failures').length, 'has', 'have')} no failures to repair, ${verb(cases.filter((c) => c.status === 'no-case').length, 'has', 'have')} too few held-out failures (fewer than ${MIN_HELD_OUT_FAILURES}) to state a rate.`;
  return { sentence: head + collateral + source, evidence: cases.map(caseSentence), plain: f2Plain(cases) };
}

const settingOf = (r: StudyReport, c: { model: string; task: string }) => r.settings.find((s) => s.model === c.model && s.task === c.task);

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

type Ceiling = PairReport['ceilings'][string];

/** A ceiling's change in words: up or down beyond the decoy's change, a change no larger than the
 *  decoy's, or unchanged. */
export function ceilingChange(c: Ceiling, h: number): { moved: 'up' | 'down' | null; beyondDecoy: boolean | null; words: string } {
  if (!distinguishable(c.ci, h)) return { moved: null, beyondDecoy: null, words: 'unchanged (not distinguishable)' };
  const moved = c.diff > 0 ? 'up' : 'down';
  const b = c.beyond_decoy;
  if (b === null) return { moved, beyondDecoy: null, words: `${moved} (no decoy to compare its change with)` };
  const beyond = moved === 'up' ? b.ci.lo > 0 : b.ci.hi < 0;
  return { moved, beyondDecoy: beyond, words: beyond ? `${moved}, beyond the decoy's change` : `${moved}, but by no more than the decoy's change (the change beyond it, ${pts(b.diff)} points, has an interval that includes 0)` };
}

function f3Verdict(r: StudyReport, holmOf: (id: string) => number): Verdict {
  if (r.f3.pairs.length === 0) return { sentence: 'The plan has no base/trained pairs, so Finding 3 has no verdict.', evidence: [] };
  const evidence = r.f3.pairs.flatMap((p) => [
    `${p.base} → ${p.trained} on ${p.task} (${plural(p.questions, 'question')}): ` +
      deltaWords(`deployed ${pct(p.base_realized)} → ${pct(p.trained_realized)},`, { diff: p.deployed_delta, ci: p.deployed_ci, p: p.deployed_mcnemar_p }, holmOf(testId.deployed(p))),
    ...Object.entries(p.ceilings).map(
      ([label, c]) =>
        `${p.base} → ${p.trained} on ${p.task}: ` +
        deltaWords(`ceiling (${label}) ${pct(c.base)} → ${pct(c.trained)},`, { diff: c.diff, ci: c.ci, p: c.mcnemar_p }, holmOf(testId.ceiling(p, label))) +
        (c.beyond_decoy
          ? ` Against the decoy ${c.base_decoy === null ? '' : `${pct(c.base_decoy)} → ${pct(c.trained_decoy!)}; `}the change beyond the decoy's is ${pts(c.beyond_decoy.diff)} points (bootstrap ${interval(c.beyond_decoy.ci)}).`
          : ' No decoy to compare the change with.'),
    ),
  ]);
  const sentence = r.f3.pairs
    .map((p) => {
      const dep = distinguishable(p.deployed_ci, holmOf(testId.deployed(p)));
      const ceilings = Object.entries(p.ceilings).map(([label, c]) => `${label} ${ceilingChange(c, holmOf(testId.ceiling(p, label))).words}`);
      return `${p.base} → ${p.trained} on ${p.task}: the deployed accuracy ${dep ? (p.deployed_delta > 0 ? 'rises' : 'falls') : 'does not change distinguishably'} (Δ ${pts(p.deployed_delta)} points, ${interval(p.deployed_ci)}); the ceiling: ${ceilings.join(', ')}.`;
    })
    .join(' ');
  const plain = r.f3.pairs
    .map((p) => {
      const dep = distinguishable(p.deployed_ci, holmOf(testId.deployed(p)));
      const moves = Object.entries(p.ceilings).map(([label, c]) => ceilingChange(c, holmOf(testId.ceiling(p, label))));
      const up = moves.filter((m) => m.moved === 'up' && m.beyondDecoy !== false).length;
      const down = moves.filter((m) => m.moved === 'down' && m.beyondDecoy !== false).length;
      const ceiling = up && down ? 'rises under some probes and falls under others' : up ? 'rises' : down ? 'falls' : 'does not clearly change';
      return `Training ${p.base} into ${p.trained} ${dep ? (p.deployed_delta > 0 ? 'raises' : 'lowers') : 'does not clearly change'} the score as deployed (${pts(p.deployed_delta)} points), while the best score a probe can reach ${ceiling}`;
    })
    .join('; ');
  return { sentence, evidence, plain: `${plain}.` };
}

/** Whether a study label ("probe/space" or "probe") names a probe that draws layer routes from a space. */
const drawsRouteLabel = (label: string) => {
  const name = label.split('/')[0];
  return isProbeName(name) && takesSpace(name);
};

const distinguishable = (ci: { lo: number; hi: number }, h: number) => (ci.lo > 0 || ci.hi < 0) && h < ALPHA;

/** Two sentences: what the study shows (reach against the decoy, F1's guidance comparisons, F3's
 *  deployed Δ) and where it cuts against the paper's findings, each clause from a rule above. */
function openingVerdict(r: StudyReport, holmOf: (id: string) => number, cs: readonly F1Comparison[]): Verdict {
  const labels = [...new Set(r.settings.flatMap((s) => Object.keys(s.reachable)))];
  const reachIn = (label: string) => r.settings.filter((s) => label in s.reachable).map((s) => settingReaches(s, label));
  const reaching = labels.filter((l) => reachIn(l).every((x) => x === true));
  const many = labels.filter((l) => reachIn(l).every((x) => x === false));
  const shows: string[] = [];
  if (reaching.length || many.length) {
    shows.push(
      `${reaching.length ? `${list(reaching)} reach${reaching.length === 1 ? 'es' : ''} the gold answer beyond ${reaching.length === 1 ? 'its' : 'their'} decoy` : 'no probe reaches the gold answer beyond its decoy'}` +
        `${many.length ? `, while ${list(many)} ${many.length === 1 ? 'is' : 'are'} ${MANY_ANSWERS}` : ''}`,
    );
  }
  const judged = cs.filter((c) => lead(c).outcome !== 'no reach');
  if (cs.length) {
    shows.push(
      judged.length === 0
        ? 'no search can be judged against its walks, since in every comparison a side does not reach'
        : `the walks reach at least as much as the search in ${judged.filter((c) => supports(lead(c).outcome)).length} of the ${plural(judged.length, 'comparison')} where both sides reach`,
    );
  }
  for (const p of r.f3.pairs.slice(0, 1)) {
    const dep = distinguishable(p.deployed_ci, holmOf(testId.deployed(p)));
    shows.push(`training ${p.base} → ${p.trained} ${dep ? (p.deployed_delta > 0 ? 'raises' : 'lowers') : 'does not distinguishably change'} the deployed accuracy (Δ ${pts(p.deployed_delta)} points)`);
  }
  const cuts: string[] = [];
  if (many.some(drawsRouteLabel)) cuts.push(`route reach here does not exceed decoy reach, so it does not show answers the model holds (Finding 1 reads it as reachability)`);
  const against = cs.filter((c) => lead(c).outcome === 'MCTS higher');
  if (against.length) cuts.push(`${list(against.map((c) => c.search))} reach${against.length === 1 ? 'es' : ''} more than ${against.length === 1 ? 'its' : 'their'} walks (Finding 1: random routes match or beat search)`);
  const cases = r.f2.cases.filter(withLayer);
  const belowPaper = cases.filter((c) => c.ci!.hi < PAPER.repair.lo);
  if (belowPaper.length) cuts.push(`silencing repairs ${list(belowPaper.map((c) => pct(c.rate!)))} of held-out failures, below the paper's ${PAPER_REPAIR_RANGE} (Finding 2)`);
  const harmful = cases.filter((c) => c.realized > 0 && c.collateral / c.realized > c.rate!);
  if (harmful.length) cuts.push(`the same silencing breaks a larger share of realized questions (${list(harmful.map((c) => `${c.collateral} of ${c.realized}`))}) than of failures it repairs (Finding 2)`);
  for (const p of r.f3.pairs) {
    const dep = distinguishable(p.deployed_ci, holmOf(testId.deployed(p)));
    if (!(dep && p.deployed_delta > 0)) cuts.push(`training ${p.base} → ${p.trained} does not raise the deployed accuracy (Finding 3 is about training that does)`);
    // a probe that counts as reaching nowhere (its reach not beyond its decoy) has no ceiling to rise
    const nowhere = (label: string) => [p.base, p.trained].some((m) => {
      const s = settingOf(r, { model: m, task: p.task });
      return s !== undefined && settingReaches(s, label) === false;
    });
    const risen = Object.entries(p.ceilings).filter(([label, c]) => {
      const ch = ceilingChange(c, holmOf(testId.ceiling(p, label)));
      return ch.moved === 'up' && ch.beyondDecoy !== false && !nowhere(label);
    });
    if (risen.length) cuts.push(`the ceiling under ${list(risen.map(([l]) => l))} rises with training (Finding 3: flat or falling)`);
  }
  const first = shows.length ? `This study shows that ${shows.join('; ')}.` : 'This study has no finished runs to show anything yet.';
  const second = cuts.length ? `It cuts against the paper where ${cuts.join('; ')}.` : 'It does not cut against the paper on anything it can test.';
  return { sentence: `${first} ${second}`, evidence: [] };
}

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
  const holmOf = holmLookup(r, tests);
  const cs = f1Comparisons(r, holmOf);
  return { opening: openingVerdict(r, holmOf, cs), reach: reachVerdict(r), f1: f1Verdict(r, cs), f2: f2Verdict(r), f3: f3Verdict(r, holmOf), multiplicity: multiplicityVerdict(tests) };
}

// The findings report as tables (one per finding, plus the per-setting overview): the same rows
// feed the Report screen, the CSV exports and the self-contained HTML report. Every row cites the
// run keys its numbers come from, and carries those runs (`runs`, one list per row) so the Report
// screen can open the questions behind each row.

import { QUESTION_STATES } from '../../audit/compare';
import { decoyShare, gapText, interval, metricCell, points, pValue, share, type Cell } from './cells';
import { METRICS } from '../../audit/metrics/registry';
import type { Metric } from '../../audit/metrics/metric';
import { COVER_TAU } from '../../audit/metrics/cover';
import { settingMetric, type ScanCase, type SettingReport, type StudyReport } from '../../audit/study-report';
import { ALPHA, caseSentence, ceilingChange, f1Comparisons, MANY_ANSWERS, MIN_HELD_OUT_FAILURES, reportTests, testId, type F1Outcome } from '../../audit/verdict';


export interface StudyTable {
  id: string;
  caption: string;
  columns: string[];
  /** The columns the Report screen shows only on demand, so the table fits the screen (the CSV and
   * the HTML report keep every column). */
  details?: string[];
  rows: Cell[][];
  /** Per row, the runs its numbers come from (what to open; not a column of the CSV or HTML). */
  runs?: RowRun[][];
}

export interface RowRun {
  /** What the run is, in the row's terms: "random-routes/blocks", "base, sampling", "silencing". */
  label: string;
  key: string;
}

/** A difference in points with its interval (gold − decoy reach, a Δ beyond the decoy's),
 *  "+3.5 (−1.0 to +8.0)"; "—" without a decoy. */
/** An F1 outcome as the table names it, the random side named. */
const outcomeText = (o: F1Outcome, random: string) => (o === 'no reach' ? MANY_ANSWERS : o.replace('random', random).replace('MCTS', 'search'));
/** "d1 12 · d2 40 · d3 48": attempts per tree depth. */
const profileText = (profile: readonly number[]) => profile.flatMap((c, d) => (c ? [`d${d} ${c}`] : [])).join(' · ');
const keys = (ks: string[]) => ks.map((k) => k.slice(0, 12)).join(' ');

/** A setting's runs by probe label (studyReport lists run_keys in the order it fills `reachable`). */
const settingRuns = (s: StudyReport['settings'][number]): RowRun[] => zipRuns(Object.keys(s.reachable), s.run_keys);
/** Labels with their run keys, position by position (a label without a key gets no button). */
const zipRuns = (labels: string[], keys: readonly string[], prefix = ''): RowRun[] =>
  labels.flatMap((label, i) => (typeof keys[i] === 'string' ? [{ label: `${prefix}${label}`, key: keys[i] }] : []));

/** A selector's accuracy, retained gain with its interval ("—" when there is none) and the note that
 *  says what it means when it is "—" or below 0 (stats.ts retainedGainNote). */
function selectorCells(x: StudyReport['settings'][number]['selectors'][string][string]): Cell[] {
  const gain = x.retained_gain === null ? '—' : share(x.retained_gain, x.retained_gain_ci ? { ci: x.retained_gain_ci } : {});
  const note = x.retained_gain === null || x.retained_gain < 0 ? x.retained_gain_note : null;
  return [share(x.accuracy), x.blind ? 'yes' : 'not blind', gain, note];
}

/** An F2 row's layer, repaired, rate, interval and collateral; a case without a rate says why. */
function caseCells(c: ScanCase): Cell[] {
  if (c.rate === null || c.ci === null) return [null, null, caseSentence(c).split(': ').slice(1).join(': '), null, null];
  return [c.layer, c.repaired, share(c.rate), interval(c.ci, 'share'), c.collateral];
}

/** The registry's metrics with a column in the settings table, and those shown in brackets in the first. */
const COLUMNS = METRICS.filter((m) => m.column !== undefined);
const ASIDES = METRICS.filter((m) => m.aside !== undefined);

/** A setting's value of metric `m` for probe label `l`, with the asides in the probe's first column;
 *  empty where the probe did not run, or the report predates the metric. */
function settingCell(s: SettingReport, m: Metric, l: string, first: boolean): Cell {
  const values = settingMetric(s, m);
  if (!values || !(l in values)) return null;
  const cell = metricCell(m, values[l]);
  const a = first ? ASIDES[0] : undefined;
  const aside = a && settingMetric(s, a)?.[l];
  return typeof aside === 'number' && typeof cell === 'object' && cell !== null ? { ...cell, aside: { label: a!.aside!, value: aside } } : cell;
}

export function studyTables(r: StudyReport): StudyTable[] {
  const holmBy = new Map(reportTests(r).map((t) => [t.id, t.holm]));
  const holmOf = (id: string) => holmBy.get(id)!;
  const labels = [...new Set(r.settings.flatMap((s) => Object.keys(s.reachable)))];
  const f1 = f1Comparisons(r, holmOf);
  return [
    {
      id: 'study-settings',
      caption:
        `Settings: realized, then per probe ${COLUMNS.map((m) => m.term).join(', ')}, each as the report defines it (${ASIDES.map((m) => m.term).join(', ')} in brackets); gold − decoy reach in points with its paired 95% interval ` +
        `(a probe whose interval does not exclude 0 upwards is ${MANY_ANSWERS}); cover@${COVER_TAU}: questions whose attempts are correct at least ${COVER_TAU * 100}% of the time`,
      columns: ['model', 'task', 'questions', 'realized', ...labels.flatMap((l) => COLUMNS.map((m) => `${l}${m.column}`)), 'run keys'],
      details: [...labels.map((l) => `${l} (decoy)`), 'run keys'],
      rows: r.settings.map((s) => [
        s.model,
        s.task,
        s.questions,
        share(s.realized),
        ...labels.flatMap((l) => COLUMNS.map((m, i) => settingCell(s, m, l, i === 0))),
        keys(s.run_keys),
      ]),
      runs: r.settings.map(settingRuns),
    },
    {
      id: 'study-f1',
      caption:
        'F1: each search against its own depth-matched walks (the comparison that isolates guidance), then against uniform random routes over their own space; reachable at matched attempts, ' +
        `gold − decoy reach of each side (points, paired 95% interval); McNemar p raw and Holm-adjusted over the report's tests; outcome by the F1 verdict rule (a side ${MANY_ANSWERS} does not count as reaching; ` +
        `distinguishable: 95% interval excludes 0 and Holm p < ${ALPHA})`,
      columns: [
        'model', 'task', 'MCTS', 'search', 'space', 'MCTS reachable', 'MCTS reachable (decoy)', 'MCTS gold − decoy',
        'depth-matched reachable', 'depth-matched reachable (decoy)', 'depth-matched gold − decoy', 'depth-matched Δ (points)', 'depth-matched 95% CI', 'depth-matched McNemar p', 'depth-matched Holm p', 'depth-matched outcome', 'depth profile',
        'random', 'random space', 'random reachable', 'random reachable (decoy)', 'random gold − decoy', 'Δ (points)', '95% CI', 'McNemar p', 'Holm p', 'outcome', 'matched attempts',
      ],
      details: [
        'MCTS reachable', 'MCTS reachable (decoy)', 'depth-matched reachable', 'depth-matched reachable (decoy)', 'depth-matched 95% CI', 'depth-matched McNemar p', 'depth-matched Holm p', 'depth profile',
        'random space', 'random reachable', 'random reachable (decoy)', 'random gold − decoy', 'Δ (points)', '95% CI', 'McNemar p', 'Holm p', 'matched attempts',
      ],
      rows: f1.map((c) => {
        const d = r.settings.find((s) => s.model === c.model && s.task === c.task)!.random_minus_structured[c.label];
        const w = c.walks;
        return [
          c.model, c.task, c.label, c.search, c.space, share(c.structured.reachable), decoyShare(d.structured_reachable_decoy), gapText(c.structured.gap),
          ...(w && d.depth_matched
            ? [share(w.reachable), decoyShare(d.depth_matched.walks_reachable_decoy), gapText(w.gap), points(w.diff), interval(w.ci), pValue(w.mcnemar_p), pValue(w.holm), outcomeText(w.outcome, 'walks'), profileText(d.depth_matched.depth_profile)]
            : [null, null, null, null, null, null, null, null, null]),
          c.uniform.label, c.uniform.space, share(c.uniform.reachable), decoyShare(d.random_reachable_decoy), gapText(c.uniform.gap), points(c.uniform.diff), interval(c.uniform.ci), pValue(c.uniform.mcnemar_p), pValue(c.uniform.holm),
          outcomeText(c.uniform.outcome, 'random'), d.matched_attempts,
        ];
      }),
      runs: f1.map((c) => settingRuns(r.settings.find((s) => s.model === c.model && s.task === c.task)!).filter((x) => x.label === c.uniform.label || x.label === c.label)),
    },
    {
      id: 'study-selectors',
      caption:
        'F1: answer-blind selectors — accuracy and the share of the probe\'s gain over realized they retain, with a paired bootstrap 95% interval ("not blind" over MCTS attempts). ' +
        'A negative retained gain means the selector answers fewer questions correctly than deployment does.',
      // one row per setting, probe and selector: the table grows down, not sideways
      columns: ['model', 'task', 'probe', 'selector', 'accuracy', 'answer-blind', 'retained gain', 'what it means'],
      rows: r.settings.flatMap((s) =>
        Object.entries(s.selectors).flatMap(([probe, sel]) => Object.entries(sel).map(([n, x]) => [s.model, s.task, probe, n, ...selectorCells(x)])),
      ),
      runs: r.settings.flatMap((s) => Object.entries(s.selectors).flatMap(([probe, sel]) => Object.keys(sel).map(() => settingRuns(s).filter((x) => x.label === probe)))),
    },
    {
      id: 'study-f2',
      caption: `F2: silencing one MLP — layer identified on one half of the failure set, repair rate on the other half (stated only with at least ${MIN_HELD_OUT_FAILURES} held-out failures)`,
      columns: ['model', 'task', 'failure set', 'layer', 'held-out failures', 'repaired', 'repair rate', '95% CI', 'collateral (realized broken)', 'held-out realized', 'run keys'],
      rows: r.f2.cases.map((c) => {
        const [layer, repaired, rate, ci, collateral] = caseCells(c);
        return [c.model, c.task, c.failures, layer, c.evaluated, repaired, rate, ci, collateral, c.realized, keys(c.run_keys)];
      }),
      runs: r.f2.cases.map((c) => zipRuns([`failure set (${c.probe})`, 'silencing'], c.run_keys)),
    },
    {
      id: 'study-f3',
      caption:
        'F3: base → trained, deployed Δ and ceiling Δ (routes and sampling apart), paired 95% intervals and McNemar p (raw and Holm-adjusted over the report\'s tests); the ceiling against the decoy answer beside it, ' +
        'and the ceiling Δ minus the decoy ceiling\'s Δ (points, paired bootstrap 95% interval): a ceiling change counts only when it exceeds the decoy\'s',
      columns: [
        'base', 'trained', 'task', 'questions', 'deployed (base)', 'deployed (trained)', 'deployed Δ', 'deployed 95% CI', 'deployed McNemar p', 'deployed Holm p',
        'ceiling probe', 'ceiling (base)', 'ceiling (trained)', 'ceiling (decoy, base)', 'ceiling (decoy, trained)', 'ceiling Δ', 'ceiling 95% CI', 'McNemar p', 'Holm p', 'Δ beyond the decoy\'s', 'change', 'run keys (base; trained)',
      ],
      details: ['questions', 'deployed (base)', 'deployed (trained)', 'deployed McNemar p', 'ceiling (base)', 'ceiling (trained)', 'ceiling (decoy, base)', 'ceiling (decoy, trained)', 'McNemar p', 'run keys (base; trained)'],
      rows: r.f3.pairs.flatMap((p) =>
        Object.entries(p.ceilings).map(([label, c], i) => [
          p.base,
          p.trained,
          p.task,
          p.questions,
          i === 0 ? share(p.base_realized) : null,
          i === 0 ? share(p.trained_realized) : null,
          i === 0 ? points(p.deployed_delta) : null,
          i === 0 ? interval(p.deployed_ci) : null,
          i === 0 ? pValue(p.deployed_mcnemar_p) : null,
          i === 0 ? pValue(holmOf(testId.deployed(p))) : null,
          label,
          share(c.base),
          share(c.trained),
          decoyShare(c.base_decoy),
          decoyShare(c.trained_decoy),
          points(c.diff),
          interval(c.ci),
          pValue(c.mcnemar_p),
          pValue(holmOf(testId.ceiling(p, label))),
          gapText(c.beyond_decoy),
          ceilingChange(c, holmOf(testId.ceiling(p, label))).words,
          `${keys(p.run_keys.base)}; ${keys(p.run_keys.trained)}`,
        ]),
      ),
      // studyReport lists a pair's run keys in the order it fills `ceilings`
      runs: r.f3.pairs.flatMap((p) =>
        Object.keys(p.ceilings).map((label, i) => [...zipRuns([label], p.run_keys.base.slice(i, i + 1), 'base, '), ...zipRuns([label], p.run_keys.trained.slice(i, i + 1), 'trained, ')]),
      ),
    },
    {
      id: 'study-f3-transitions',
      caption:
        'F3: question transitions, base → trained (rows: the question in the base model, columns: in the trained model), under each ceiling probe. ' +
        'realized = correct as deployed; reachable-only = wrong as deployed, reached by the probe; unreachable = neither. ' +
        'Deployed correct = realized; ceiling = realized or reachable-only.',
      columns: ['base', 'trained', 'task', 'ceiling probe', 'in the base model', ...QUESTION_STATES.map((s) => `trained: ${s}`)],
      rows: r.f3.pairs.flatMap((p) =>
        Object.entries(p.ceilings).flatMap(([label, c]) =>
          QUESTION_STATES.map((from) => [p.base, p.trained, p.task, label, from, ...QUESTION_STATES.map((to) => c.transitions[from]?.[to] ?? null)]),
        ),
      ),
      // studyReport lists a pair's run keys in the order it fills `ceilings`
      runs: r.f3.pairs.flatMap((p) =>
        Object.keys(p.ceilings).flatMap((label, i) =>
          QUESTION_STATES.map(() => [...zipRuns([label], p.run_keys.base.slice(i, i + 1), 'base, '), ...zipRuns([label], p.run_keys.trained.slice(i, i + 1), 'trained, ')]),
        ),
      ),
    },
  ];
}

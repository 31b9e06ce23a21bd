// The findings tables and the HTML report from a hand-written report: values formatted as
// written here, untrusted names escaped, no script.

import { describe, expect, it } from 'vitest';
import { type StudyReport } from '../../audit/study-report';
import { normalizePlan } from '../../audit/study-plan';
import { studyExport } from '../../audit/provenance';
import { studyReportHtml } from './study-html';
import { cellText, csvTable } from './cells';
import { studyTables, type StudyTable } from './study-tables';

/** A table's rows as the screens and the HTML report show them. */
const shown = (t: StudyTable) => t.rows.map((r) => r.map(cellText));

const EVIL = 'evil/<img src=x onerror=alert(1)>';
const report: StudyReport = {
  plan: normalizePlan({ models: [EVIL], tasks: ['builtin:arith-2d'] }),
  plan_key: 'p'.repeat(64),
  name: 'hand <b>study</b>',
  settings: [
    {
      model: EVIL,
      task: 'builtin:arith-2d',
      run_keys: ['a'.repeat(64), 'b'.repeat(64)],
      questions: 20,
      realized: 0.5,
      reachable: { 'random-routes/blocks': 0.9, 'mcts-routes/blocks': 0.8 },
      cover: { 'random-routes/blocks': 0.25, 'mcts-routes/blocks': 0.6 },
      ceiling: { 'random-routes/blocks': 0.95, 'mcts-routes/blocks': 0.85 },
      reachable_decoy: { 'random-routes/blocks': 0.35, 'mcts-routes/blocks': null },
      ceiling_decoy: { 'random-routes/blocks': 0.4, 'mcts-routes/blocks': null },
      // random routes reach beyond their decoy; the search has no decoy (null)
      gold_minus_decoy: { 'random-routes/blocks': { diff: 0.55, ci: { lo: 0.3, hi: 0.7 }, mcnemar_p: 0.001 }, 'mcts-routes/blocks': null },
      attempts: { 'random-routes/blocks': 32, 'mcts-routes/blocks': 31.5 },
      random_minus_structured: { 'mcts-routes/blocks': { diff: 0.1, ci: { lo: -0.05, hi: 0.25 }, mcnemar_p: 0.2891, random: 'random-routes/blocks', space: 'cola', random_space: 'blocks', preset: 'cola', matched_attempts: 31.5, random_reachable: 0.9, structured_reachable: 0.8, random_reachable_decoy: 0.35, structured_reachable_decoy: null , depth_matched: { diff: -0.05, ci: { lo: -0.2, hi: 0.1 }, mcnemar_p: 0.5, matched_attempts: 31.5, walks_reachable: 0.75, walks_reachable_decoy: 0.3, walks_gold_minus_decoy: { diff: 0.45, ci: { lo: 0.2, hi: 0.6 }, mcnemar_p: 0.01 }, depth_profile: [0, 20, 12] }} },
      selectors: {
        'random-routes/blocks': { majority: { accuracy: 0.4, blind: true, retained_gain: -0.25, retained_gain_ci: { lo: -0.6, hi: -0.05 }, retained_gain_reason: null, retained_gain_note: 'below 0: the selector answers 8 questions correctly, 2 fewer than the 10 deployment realizes' } },
        'mcts-routes/blocks': { majority: { accuracy: 0.55, blind: false, retained_gain: null, retained_gain_ci: null, retained_gain_reason: 'the selector picked on 19 of 20 questions', retained_gain_note: 'the selector picked on 19 of 20 questions' } },
      },
    },
  ],
  f1: { settings: 1, comparisons: 1, random_ge_structured: 1, comparisons_random_ge: 1, depth_matched: { comparisons: 1, random_ge: 0 } },
  f2: {
    cases: [
      { model: EVIL, task: 'builtin:arith-2d', run_keys: ['a'.repeat(64), 'c'.repeat(64)], probe: 'random-routes/blocks', status: 'case', failures: 24, layer: 3, identification: 12, evaluated: 12, repaired: 9, rate: 0.75, ci: { lo: 0.3, hi: 0.954 }, collateral: 1, realized: 5, in_sample: [] },
      { model: 'C', task: 'builtin:arith-2d', run_keys: ['e'.repeat(64), 'f'.repeat(64)], probe: 'random-routes/blocks', status: 'no-case', failures: 3, layer: null, identification: 2, evaluated: 1, repaired: 0, rate: null, ci: null, collateral: 0, realized: 5, in_sample: [] },
    ],
  },
  f3: {
    pairs: [
      {
        base: 'A',
        trained: 'B',
        task: 'builtin:arith-2d',
        run_keys: { base: ['a'.repeat(64)], trained: ['d'.repeat(64)] },
        questions: 20,
        deployed_delta: 0.15,
        deployed_ci: { lo: 0.01, hi: 0.3 },
        deployed_mcnemar_p: 0.04,
        ceiling_probe: 'random-routes/blocks',
        ceiling_delta: -0.05,
        ceiling_ci: { lo: -0.2, hi: 0.1 },
        ceilings: { 'random-routes/blocks': { diff: -0.05, ci: { lo: -0.2, hi: 0.1 }, mcnemar_p: 1, base: 0.95, trained: 0.9, base_decoy: 0.2, trained_decoy: 0.25, beyond_decoy: { diff: -0.1, ci: { lo: -0.3, hi: 0.05 } }, transitions: {} } },
        base_realized: 0.5,
        trained_realized: 0.65,
        transitions: {},
      },
    ],
  },
  missing: [],
};

describe('findings tables', () => {
  it('formats every finding with its numbers and run keys', () => {
    const t = Object.fromEntries(studyTables(report).map((x) => [x.id, x]));
    // reachable against the decoy beside each reachable number, then gold − decoy with its interval; "—" where the questions have no decoy
    // and cover@0.5 (questions whose attempts are right at least half the time)
    // (read by column name: a metric the registry adds later is a column of its own, empty in this report)
    const settings = t['study-settings'];
    const SETTING_COLUMNS = ['model', 'task', 'questions', 'realized', ...['random-routes/blocks', 'mcts-routes/blocks'].flatMap((l) => [l, `${l} (decoy)`, `${l} gold − decoy`, `${l} cover@0.5`]), 'run keys'];
    expect(settings.columns.filter((c) => SETTING_COLUMNS.includes(c))).toEqual(SETTING_COLUMNS);
    expect(SETTING_COLUMNS.map((c) => shown(settings)[0][settings.columns.indexOf(c)])).toEqual([EVIL, 'builtin:arith-2d', 20, '50.0%', '90.0% (32.0)', '35.0%', '+55.0 (+30.0 to +70.0)', '25.0%', '80.0% (31.5)', '—', '—', '60.0%', `${'a'.repeat(12)} ${'b'.repeat(12)}`]);
    // four McNemar tests (F1 uniform and depth-matched, F3 deployed and ceiling): Holm over the four,
    // sorted 0.04, 0.2891, 0.5, 1 → 0.16, max(0.16, 3·0.2891) = 0.8673, max(0.8673, 2·0.5) = 1, 1;
    // the interval's lower end, −5 points, is not above −5: inconclusive, not "random not worse".
    // The depth-matched walks lead; CoLa's search is named in its own space (cola), the uniform routes in theirs
    expect(shown(t['study-f1'])[0]).toEqual([
      EVIL, 'builtin:arith-2d', 'mcts-routes/blocks', "CoLa's search", 'cola', '80.0%', '—', '—',
      '75.0%', '30.0%', '+45.0 (+20.0 to +60.0)', '−5.0', '−20.0 to +10.0', '0.500', '1.000', 'inconclusive', 'd1 20 · d2 12',
      'random-routes/blocks', 'blocks', '90.0%', '35.0%', '+55.0 (+30.0 to +70.0)', '+10.0', '−5.0 to +25.0', '0.289', '0.867', 'inconclusive', 31.5,
    ]);
    expect(t['study-f1'].caption).toContain('Holm-adjusted');
    // one row per probe and selector: the table grows down, not sideways; a note says what "—" or a value below 0 means
    expect(t['study-selectors'].columns).toEqual(['model', 'task', 'probe', 'selector', 'accuracy', 'answer-blind', 'retained gain', 'what it means']);
    expect(shown(t['study-selectors'])).toEqual([
      [EVIL, 'builtin:arith-2d', 'random-routes/blocks', 'majority', '40.0%', 'yes', '−25.0% (−60.0% to −5.0%)', 'below 0: the selector answers 8 questions correctly, 2 fewer than the 10 deployment realizes'],
      [EVIL, 'builtin:arith-2d', 'mcts-routes/blocks', 'majority', '55.0%', 'not blind', '—', 'the selector picked on 19 of 20 questions'],
    ]);
    // each table names its detail columns among its own, the rest fit the Report screen
    for (const table of Object.values(t)) for (const d of table.details ?? []) expect(table.columns, table.id).toContain(d);
    expect(t['study-f1'].columns.filter((c) => !t['study-f1'].details!.includes(c))).toEqual([
      'model', 'task', 'MCTS', 'search', 'space', 'MCTS gold − decoy', 'depth-matched gold − decoy', 'depth-matched Δ (points)', 'depth-matched outcome', 'random', 'outcome',
    ]);
    expect(t['study-selectors'].caption).toContain('A negative retained gain means the selector answers fewer questions correctly than deployment does');
    expect(shown(t['study-f2'])[0]).toEqual([EVIL, 'builtin:arith-2d', 24, 3, 12, 9, '75.0%', '30.0% to 95.4%', 1, 5, `${'a'.repeat(12)} ${'c'.repeat(12)}`]);
    // too few held out: no layer, no rate, said in words (never 0/0 or 0.0%)
    expect(shown(t['study-f2'])[1]).toEqual(['C', 'builtin:arith-2d', 3, null, 1, null, 'no case — the failure set has 3 questions, leaving 1 held out (fewer than 10), so no layer is identified and no repair rate is stated.', null, null, 5, `${'e'.repeat(12)} ${'f'.repeat(12)}`]);
    expect(shown(t['study-f3'])[0]).toEqual([
      'A', 'B', 'builtin:arith-2d', 20, '50.0%', '65.0%', '+15.0', '+1.0 to +30.0', '0.040', '0.160',
      'random-routes/blocks', '95.0%', '90.0%', '20.0%', '25.0%', '−5.0', '−20.0 to +10.0', '1.000', '1.000', '−10.0 (−30.0 to +5.0)', 'unchanged (not distinguishable)', `${'a'.repeat(12)}; ${'d'.repeat(12)}`,
    ]);
  });

  it('writes the CSVs with numbers as numbers: shares and points as fractions, one column per interval end, p-values as numbers', () => {
    const t = Object.fromEntries(studyTables(report).map((x) => [x.id, x]));
    const f3 = csvTable(t['study-f3'].columns, t['study-f3'].rows);
    const at = (name: string) => f3.rows[0][f3.header.indexOf(name)];
    expect(f3.header).toContain('deployed 95% CI lo');
    expect([at('deployed (base)'), at('deployed Δ'), at('deployed 95% CI lo'), at('deployed 95% CI hi'), at('deployed McNemar p'), at('deployed Holm p')]).toEqual([0.5, 0.15, 0.01, 0.3, 0.04, 0.16]);
    expect([at('ceiling Δ'), at('ceiling 95% CI lo'), at("Δ beyond the decoy's"), at("Δ beyond the decoy's lo"), at("Δ beyond the decoy's hi")]).toEqual([-0.05, -0.2, -0.1, -0.3, 0.05]);
    const sel = csvTable(t['study-selectors'].columns, t['study-selectors'].rows);
    expect(sel.header).toEqual(['model', 'task', 'probe', 'selector', 'accuracy', 'answer-blind', 'retained gain', 'retained gain lo', 'retained gain hi', 'what it means']);
    expect(sel.rows.map((r) => r.slice(4, 9))).toEqual([[0.4, 'yes', -0.25, -0.6, -0.05], [0.55, 'not blind', null, null, null]]);
    const settings = csvTable(t['study-settings'].columns, t['study-settings'].rows);
    const SETTING_CSV = ['realized', 'random-routes/blocks', 'random-routes/blocks attempts', 'random-routes/blocks (decoy)', 'random-routes/blocks gold − decoy', 'random-routes/blocks gold − decoy lo', 'random-routes/blocks gold − decoy hi'];
    expect(settings.header.filter((c) => SETTING_CSV.includes(c))).toEqual(SETTING_CSV);
    expect(SETTING_CSV.map((c) => settings.rows[0][settings.header.indexOf(c)])).toEqual([0.5, 0.9, 32, 0.35, 0.55, 0.3, 0.7]);
    // no formatted number anywhere in a CSV: no %, no Unicode minus, no "< 0.001"
    for (const table of Object.values(t)) {
      const { rows } = csvTable(table.columns, table.rows);
      for (const v of rows.flat()) if (typeof v === 'string') expect(v, table.id).not.toMatch(/^[−+-]?\d+(\.\d+)?%?$|^< 0\.|−\d/);
    }
  });
});

describe('findings tables: transitions and the runs behind each row', () => {
  const transitions = {
    realized: { realized: 9, 'reachable-only': 1, unreachable: 0 },
    'reachable-only': { realized: 3, 'reachable-only': 5, unreachable: 1 },
    unreachable: { realized: 0, 'reachable-only': 0, unreachable: 1 },
  };
  const sampled = {
    realized: { realized: 8, 'reachable-only': 2, unreachable: 0 },
    'reachable-only': { realized: 2, 'reachable-only': 6, unreachable: 1 },
    unreachable: { realized: 0, 'reachable-only': 1, unreachable: 0 },
  };
  const pair = {
    ...report.f3.pairs[0],
    transitions,
    run_keys: { base: ['a'.repeat(64), 'e'.repeat(64)], trained: ['d'.repeat(64), 'f'.repeat(64)] },
    ceilings: {
      'random-routes/blocks': { ...report.f3.pairs[0].ceilings['random-routes/blocks'], transitions },
      sampling: { diff: 0, ci: { lo: -0.1, hi: 0.1 }, mcnemar_p: 1, base: 0.9, trained: 0.9, base_decoy: null, trained_decoy: null, beyond_decoy: null, transitions: sampled },
    },
  };
  const t = Object.fromEntries(studyTables({ ...report, f3: { pairs: [pair] } }).map((x) => [x.id, x]));

  it('lists the F3 transition tables as the report holds them: rows base state, columns trained state, one per ceiling probe', () => {
    const tr = t['study-f3-transitions'];
    expect(tr.columns).toEqual(['base', 'trained', 'task', 'ceiling probe', 'in the base model', 'trained: realized', 'trained: reachable-only', 'trained: unreachable']);
    expect(tr.rows).toEqual([
      ['A', 'B', 'builtin:arith-2d', 'random-routes/blocks', 'realized', 9, 1, 0],
      ['A', 'B', 'builtin:arith-2d', 'random-routes/blocks', 'reachable-only', 3, 5, 1],
      ['A', 'B', 'builtin:arith-2d', 'random-routes/blocks', 'unreachable', 0, 0, 1],
      ['A', 'B', 'builtin:arith-2d', 'sampling', 'realized', 8, 2, 0],
      ['A', 'B', 'builtin:arith-2d', 'sampling', 'reachable-only', 2, 6, 1],
      ['A', 'B', 'builtin:arith-2d', 'sampling', 'unreachable', 0, 1, 0],
    ]);
    expect(tr.caption).toMatch(/rows: the question in the base model, columns: in the trained model/);
    // a report without transitions shows empty cells, never invented counts
    const empty = studyTables(report).find((x) => x.id === 'study-f3-transitions')!;
    expect(empty.rows[0].slice(5)).toEqual([null, null, null]);
  });

  it('each setting, F1 row, F2 case and F3 row carries the runs its numbers come from', () => {
    const k = (c: string) => c.repeat(64);
    expect(t['study-settings'].runs).toEqual([[{ label: 'random-routes/blocks', key: k('a') }, { label: 'mcts-routes/blocks', key: k('b') }]]);
    expect(t['study-f1'].runs).toEqual([[{ label: 'random-routes/blocks', key: k('a') }, { label: 'mcts-routes/blocks', key: k('b') }]]);
    expect(t['study-selectors'].runs).toEqual([[{ label: 'random-routes/blocks', key: k('a') }], [{ label: 'mcts-routes/blocks', key: k('b') }]]);
    expect(t['study-f2'].runs![0]).toEqual([{ label: 'failure set (random-routes/blocks)', key: k('a') }, { label: 'silencing', key: k('c') }]);
    expect(t['study-f3'].runs).toEqual([
      [{ label: 'base, random-routes/blocks', key: k('a') }, { label: 'trained, random-routes/blocks', key: k('d') }],
      [{ label: 'base, sampling', key: k('e') }, { label: 'trained, sampling', key: k('f') }],
    ]);
    expect(t['study-f3-transitions'].runs).toHaveLength(6);
    expect(t['study-f3-transitions'].runs![3]).toEqual([{ label: 'base, sampling', key: k('e') }, { label: 'trained, sampling', key: k('f') }]);
    for (const table of Object.values(t)) if (table.runs) expect(table.runs).toHaveLength(table.rows.length);
  });
});

describe('self-contained HTML report', () => {
  it('escapes untrusted text, inlines the figures and needs no script or network', () => {
    const exported = studyExport(report, new Map(), { version: '1.2.3', commit: 'abc' });
    const html = studyReportHtml(exported, studyTables(report), [{ title: 'F1: x', alt: 'a <dot>', svg: '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>' }], '2026-12-03');
    expect(html).not.toContain('<img');
    expect(html).toContain('evil/&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('hand &lt;b&gt;study&lt;/b&gt;');
    expect(html).toContain('<circle r="1"/>');
    expect(html).toContain('a &lt;dot&gt;');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    const esc = (x: string) => x.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    for (const caption of studyTables(report).map((t) => t.caption)) expect(html).toContain(esc(caption));
    // each finding's verdict, the multiplicity sentence, the plan as run, the app and the definitions
    for (const v of [exported.verdicts.f1, exported.verdicts.f2, exported.verdicts.f3, exported.verdicts.multiplicity]) expect(html).toContain(esc(v.sentence));
    expect(html).toContain(esc(JSON.stringify(report.plan, null, 1)));
    expect(html).toContain('App 1.2.3, commit <code>abc</code>');
    expect(html).toContain('<dt>retained gain</dt>');
    expect(html).not.toMatch(/0\.000|0\/0/);
    // every table scrolls inside its own box, so the page never scrolls sideways
    expect(html.match(/<table>/g)!.length).toBe(html.match(/<div class="table-wrap"><table>/g)!.length);
    expect(html).toMatch(/\.table-wrap\{overflow-x:auto/);
    // it opens with one plain sentence per finding, the technical opening after them
    const plain = [exported.verdicts.reach, exported.verdicts.f1, exported.verdicts.f2, exported.verdicts.f3].map((v) => v.plain!);
    for (const p of plain) expect(html.indexOf(esc(p))).toBeLessThan(html.indexOf(esc(exported.verdicts.opening.sentence)));
  });
});

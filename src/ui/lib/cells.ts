// Table cells that carry their number: the screens and the HTML report show it formatted ("54.0%",
// "−5.0 to +25.0", "< 0.001"), the CSV writes it as a plain number (0.54, -0.05 and 0.25 in one
// column per interval end, 0.00066) so a spreadsheet or a script reads it without parsing text.

import { formatP, type PairedDelta } from '../../audit/stats';
import type { Estimate, Metric } from '../../audit/metrics/metric';
import type { CsvCell } from '../../store/export';

/** A number and how to show it: a share (0.54 → "54.0%"), a difference of shares in points
 *  (0.035 → "+3.5"), a p-value ("< 0.001"), a plain number (attempts: 14.25 → "14.3"). `ci` adds its 95% interval ("(lo to hi)" after the
 *  value; without a value the cell is the interval alone); `aside` adds another number in brackets
 *  ("(31.5)") that the CSV writes in a column of its own. */
export interface Num {
  unit: 'share' | 'points' | 'p' | 'number';
  value?: number;
  ci?: { lo: number; hi: number };
  aside?: { label: string; value: number };
}

export type Cell = CsvCell | Num;

export const share = (value: number, o: Omit<Num, 'unit' | 'value'> = {}): Num => ({ unit: 'share', value, ...o });
export const points = (value: number, o: Omit<Num, 'unit' | 'value'> = {}): Num => ({ unit: 'points', value, ...o });
export const pValue = (value: number): Num => ({ unit: 'p', value });
/** A rate against the decoy answer; "—" where the questions have none (exact-match answers). */
export const decoyShare = (x: number | null): Cell => (x === null ? '—' : share(x));
/** A paired difference in points with its interval; "—" where there is none (no decoys). */
export const gapText = (g: Pick<PairedDelta, 'diff' | 'ci'> | null): Cell => (g === null ? '—' : points(g.diff, { ci: g.ci }));

/** A metric's value as its registry entry says to show it (Metric.show). */
export function metricCell(m: Metric, value: unknown): Cell {
  if (m.show === 'share') return decoyShare(value as number | null);
  if (m.show === 'paired') return gapText(value as PairedDelta | null);
  if (m.show === 'mean') return { unit: 'number', value: value as number };
  const e = value as Estimate;
  return e.value === null ? '—' : { unit: 'number', value: e.value, ...(e.ci ? { ci: e.ci } : {}) };
}

/** An interval alone, in points or as shares. */
export const interval = (ci: { lo: number; hi: number }, unit: 'share' | 'points' = 'points'): Num => ({ unit, ci });

const isNum = (c: Cell): c is Num => typeof c === 'object' && c !== null;
const minus = (s: string) => s.replace('-', '−');
const fmt = (unit: Num['unit'], x: number) =>
  unit === 'share' ? minus(`${(100 * x).toFixed(1)}%`) : unit === 'points' ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}` : unit === 'number' ? x.toFixed(1) : formatP(x);

/** A cell as the screens and the HTML report show it. */
export function cellText(c: Cell): CsvCell {
  if (!isNum(c)) return c;
  const ci = c.ci ? `${fmt(c.unit, c.ci.lo)} to ${fmt(c.unit, c.ci.hi)}` : null;
  if (c.value === undefined) return ci;
  const brackets = [...(c.aside ? [c.aside.value.toFixed(1)] : []), ...(ci ? [ci] : [])];
  return `${fmt(c.unit, c.value)}${brackets.length ? ` (${brackets.join('; ')})` : ''}`;
}

/** The CSV of a table: each number plain (a share or points as a fraction: 0.54, -0.035), each
 *  interval end and each aside in a column of its own ("<column> lo", "<column> hi",
 *  "<column> <aside>"); a column whose cells are intervals alone becomes its two ends. Text stays
 *  text, "—" (no number) an empty cell. A " (points)" in a column name is dropped: the CSV writes fractions. */
export function csvTable(columns: readonly string[], rows: readonly (readonly Cell[])[]): { header: string[]; rows: CsvCell[][] } {
  const layout = columns.map((name, j) => {
    const nums = rows.map((r) => r[j]).filter(isNum);
    const base = name.replace(' (points)', '');
    return {
      base,
      value: nums.length === 0 || nums.some((n) => n.value !== undefined),
      ci: nums.some((n) => n.ci),
      asides: [...new Set(nums.flatMap((n) => (n.aside ? [n.aside.label] : [])))],
    };
  });
  const header = layout.flatMap((l) => [...(l.value ? [l.base] : []), ...(l.ci ? [`${l.base} lo`, `${l.base} hi`] : []), ...l.asides.map((a) => `${l.base} ${a}`)]);
  const out = rows.map((r) =>
    r.flatMap((c, j): CsvCell[] => {
      const l = layout[j];
      const n = isNum(c) ? c : null;
      return [
        ...(l.value ? [n ? (n.value ?? null) : c === '—' ? null : (c as CsvCell)] : []),
        ...(l.ci ? [n?.ci?.lo ?? null, n?.ci?.hi ?? null] : []),
        ...l.asides.map((a) => (n?.aside?.label === a ? n.aside.value : null)),
      ];
    }),
  );
  return { header, rows: out };
}

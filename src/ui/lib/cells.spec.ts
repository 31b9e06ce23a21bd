// Cells that carry their number: shown formatted, written to CSV as plain numbers.

import { describe, expect, it } from 'vitest';
import { toCsv } from '../../store/export';
import { cellText, csvTable, interval, points, pValue, share } from './cells';

describe('cells', () => {
  it('shows a number formatted, with a Unicode minus, its interval and an aside', () => {
    expect(cellText(share(-4.333))).toBe('−433.3%');
    expect(cellText(share(0.54, { aside: { label: 'attempts', value: 31.5 } }))).toBe('54.0% (31.5)');
    expect(cellText(points(0.035, { ci: { lo: -0.067, hi: 0.136 } }))).toBe('+3.5 (−6.7 to +13.6)');
    expect(cellText(interval({ lo: -0.05, hi: 0.25 }))).toBe('−5.0 to +25.0');
    expect(cellText(pValue(0.000066))).toBe('< 0.001');
    expect(cellText('text')).toBe('text');
  });

  it('writes a CSV a script reads: fractions, one column per interval end and aside, p as a number, ASCII minus, no apostrophe', () => {
    const t = csvTable(
      ['probe', 'retained gain', 'Δ (points)', '95% CI', 'McNemar p'],
      [
        ['random', share(-4.333, { ci: { lo: -16, hi: -1.125 } }), points(-0.05), interval({ lo: -0.2, hi: 0.1 }), pValue(0.000066)],
        ['mcts', '—', points(0.1), interval({ lo: 0, hi: 0.2 }), pValue(1)],
      ],
    );
    expect(t.header).toEqual(['probe', 'retained gain', 'retained gain lo', 'retained gain hi', 'Δ', '95% CI lo', '95% CI hi', 'McNemar p']);
    expect(t.rows).toEqual([
      ['random', -4.333, -16, -1.125, -0.05, -0.2, 0.1, 0.000066],
      ['mcts', null, null, null, 0.1, 0, 0.2, 1],
    ]);
    const csv = toCsv(t.header, t.rows);
    expect(csv).toContain('random,-4.333,-16,-1.125,-0.05,-0.2,0.1,0.000066\r\n');
    expect(csv.split('\r\n').slice(1).join('\n')).not.toMatch(/'|−|%|</);
  });
});

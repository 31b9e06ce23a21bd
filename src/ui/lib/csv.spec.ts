import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv';

describe('csv', () => {
  it('quotes fields with commas, quotes and line breaks and ends rows with CRLF', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['line\nbreak', 3]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",3\r\n');
  });
  it('neutralizes text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1+2')).toBe("'+1+2");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
  });
  it('keeps plain numbers, negative ones included', () => {
    expect(csvCell('-3')).toBe('-3');
    expect(csvCell(-2.5)).toBe('-2.5');
    expect(csvCell('+1e3')).toBe('+1e3');
  });
  it('writes empty cells for null, undefined and non-finite numbers', () => {
    expect(toCsv(['a', 'b', 'c'], [[null, undefined, NaN]])).toBe('a,b,c\r\n,,\r\n');
  });
  it('names a ragged row', () => {
    expect(() => toCsv(['a', 'b'], [['1']])).toThrow(/row 0 has 1 cells, header has 2/);
  });
});

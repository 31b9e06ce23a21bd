// CSV per RFC 4180 (CRLF rows, fields quoted when they hold a comma, quote, CR or LF; quotes doubled),
// safe to open in spreadsheets: a text cell that a spreadsheet would run as a formula (starting with
// = + - @ tab or CR) gets a leading apostrophe, unless it is a plain number such as "-3".

export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let s: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return '';
    s = String(value);
  } else if (typeof value === 'boolean') {
    s = value ? 'true' : 'false';
  } else {
    s = value;
    if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  }
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: CsvCell[][]): string {
  for (const [i, r] of rows.entries()) {
    if (r.length !== header.length) throw new Error(`toCsv: row ${i} has ${r.length} cells, header has ${header.length}`);
  }
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

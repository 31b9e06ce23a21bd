// The date a chat template sees: a condition's date_string ("%d %b %Y", e.g. "26 Jul 2024"),
// never the clock. strftime_now(format) formats that date at 00:00 UTC with Python's strftime in
// the C locale (English names), as transformers' strftime_now would on that day.

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Llama 3.x templates print this date when no strftime_now is given: the default of a condition. */
export const DEFAULT_DATE_STRING = '26 Jul 2024';

/** The UTC date a date_string names, or null when it is not "DD Mon YYYY" of a real day. */
export function parseDateString(s: string): Date | null {
  const m = /^(\d{2}) ([A-Z][a-z]{2}) (\d{4})$/.exec(s);
  if (!m) return null;
  const month = MONTHS.findIndex((name) => name.slice(0, 3) === m[2]);
  const d = new Date(Date.UTC(Number(m[3]), month, Number(m[1])));
  return month >= 0 && d.getUTCDate() === Number(m[1]) && d.getUTCMonth() === month ? d : null;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Python's strftime of a UTC date (C locale); throws naming a directive it does not know. */
export function strftime(d: Date, format: string): string {
  return format.replace(/%(.)/g, (_, c: string) => {
    switch (c) {
      case 'Y': return String(d.getUTCFullYear());
      case 'y': return pad(d.getUTCFullYear() % 100);
      case 'm': return pad(d.getUTCMonth() + 1);
      case 'd': return pad(d.getUTCDate());
      case 'e': return String(d.getUTCDate()).padStart(2, ' ');
      case 'b': return MONTHS[d.getUTCMonth()].slice(0, 3);
      case 'B': return MONTHS[d.getUTCMonth()];
      case 'a': return DAYS[d.getUTCDay()].slice(0, 3);
      case 'A': return DAYS[d.getUTCDay()];
      case 'j': return pad((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000 + 1, 3);
      case 'H': return pad(d.getUTCHours());
      case 'I': return pad(d.getUTCHours() % 12 || 12);
      case 'M': return pad(d.getUTCMinutes());
      case 'S': return pad(d.getUTCSeconds());
      case 'p': return d.getUTCHours() < 12 ? 'AM' : 'PM';
      case '%': return '%';
      default: throw new Error(`strftime_now: the directive %${c} is not supported`);
    }
  });
}

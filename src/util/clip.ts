// Input quoted in a message: at most a few hundred characters of it, so a hostile or huge value
// (a 50 MB field) cannot make the message itself huge.

/** The longest piece of input a message quotes, in characters. */
export const QUOTE_CHARS = 200;

/** `text` cut to `max` characters, saying how long it was when cut. */
export function clip(text: string, max = QUOTE_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length.toLocaleString('en-US')} characters in all)`;
}

/** A value as a message quotes it: JSON (strings in quotes), cut to `max` characters. */
export function quote(value: unknown, max = QUOTE_CHARS): string {
  if (typeof value === 'string') return JSON.stringify(clip(value, max));
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  return clip(json ?? String(value), max);
}

/** Characters a terminal acts on: C0 controls, DEL, C1 controls and the bidirectional overrides. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` as one line a CLI prints: every control character written as an escape (\n, \r, \t,
 *  else \uXXXX), so input cannot colour the terminal, move its cursor or forge a line. */
export function terminalLine(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The first control character of `text` as "U+XXXX", or null when it has none. */
export function firstControl(text: string): string | null {
  const m = text.match(new RegExp(CONTROL.source));
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

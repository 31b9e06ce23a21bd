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

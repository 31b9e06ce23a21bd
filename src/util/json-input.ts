// The one parser for JSON that comes from outside (task files, run-file imports, study plans,
// links, the CLIs' plans and run files, checkpoint configs): JSON.parse's own message for text that
// is not JSON, and two refusals it does not make: nesting deeper than MAX_JSON_DEPTH (such a value
// cannot be stored or exported: every record write fails) and a key repeated in one object
// (JSON.parse silently keeps the last).
// The structure is read first by one pass over the text (structure scan below), which stops at the
// depth bound, so a hostile file is never recursed into; it jumps to the next structural character
// with a native search, so 100 MB of whitespace or one long string is read in well under a second.

import { clip, quote } from './clip';

/** Far deeper than any plan, run file or task row the app writes. */
export const MAX_JSON_DEPTH = 64;

/** A JSON text refused for its structure (not its syntax). */
export class JsonInputError extends Error {
  override name = 'JsonInputError';
}

type PathPart = string | number;

/** Where a key sits, as a path: `settings[0].model`, or "the top level". */
function pathText(path: PathPart[]): string {
  if (path.length === 0) return 'the top level';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** An open object or array while scanning: an object's keys so far and the key being read; an
 *  array's index. */
interface Frame {
  keys: Set<string> | null;
  key: string;
  index: number;
  expectKey: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;
const NEWLINE = 10;

/** The index of the quote that closes the string opened at `open` (text.length when none does). */
function stringEnd(text: string, open: number): number {
  for (let from = open + 1; ; ) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
    from = q + 1;
  }
}

/** The first repeated key ("duplicate key … at … (line n)"), or null; throws at the depth bound.
 *  Lenient on text that is not JSON (JSON.parse refuses that afterwards). */
function scanStructure(text: string, maxDepth: number): string | null {
  const frames: Frame[] = [];
  let line = 1;
  let duplicate: string | null = null;
  const next = /["{}[\],\n]/g; // the only characters that change the structure
  for (let i = 0; i < text.length; i++) {
    next.lastIndex = i;
    if (next.exec(text) === null) break;
    i = next.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = frames.at(-1);
      if (top?.keys && top.expectKey && duplicate === null) {
        const raw = text.slice(i, end + 1);
        let key = raw.slice(1, -1);
        if (raw.includes('\\')) {
          try {
            key = JSON.parse(raw) as string;
          } catch {
            // not JSON: JSON.parse names it afterwards
          }
        }
        if (top.keys.has(key)) duplicate = `duplicate key ${quote(key)} at ${clip(pathText(frames.slice(0, -1).map((f) => (f.keys ? f.key : f.index))))} (line ${line})`;
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (frames.length >= maxDepth) throw new JsonInputError(`nested deeper than ${maxDepth} levels (at line ${line})`);
      frames.push({ keys: c === 123 ? new Set() : null, key: '', index: 0, expectKey: c === 123 });
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      frames.pop();
    } else if (c === 44 /* , */) {
      const top = frames.at(-1);
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    } else if (c === NEWLINE) line++;
  }
  return duplicate;
}

/** Parses untrusted JSON text (a leading byte-order mark dropped, as the browser's File.text()
 *  does); throws JSON.parse's SyntaxError for text that is not JSON, and a JsonInputError naming
 *  the place for nesting past `maxDepth` or a repeated key. */
export function parseJsonInput(input: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const text = input.replace(/^\uFEFF/, '');
  const duplicate = scanStructure(text, maxDepth);
  const value: unknown = JSON.parse(text);
  if (duplicate !== null) throw new JsonInputError(duplicate);
  return value;
}

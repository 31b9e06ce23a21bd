// The one parser for JSON that comes from outside (task files, run-file imports, study plans,
// links, the CLIs' plans and run files): JSON.parse's own message for text that is not JSON, and two refusals it does not make:
// nesting deeper than MAX_JSON_DEPTH (such a value cannot be stored or exported: every record
// write fails) and a key repeated in one object (JSON.parse silently keeps the last).
// The structure is read first with jsonc-parser's visitor, which stops at the depth bound, so a
// hostile file is never recursed into.

import { visit, type JSONPath } from 'jsonc-parser';

/** Far deeper than any plan, run file or task row the app writes. */
export const MAX_JSON_DEPTH = 64;

/** A JSON text refused for its structure (not its syntax). */
export class JsonInputError extends Error {
  override name = 'JsonInputError';
}

/** Where a key sits, as a path: `settings[0].model`, or "the top level". */
function pathText(path: JSONPath): string {
  if (path.length === 0) return 'the top level';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Parses untrusted JSON text (a leading byte-order mark dropped, as the browser's File.text()
 *  does); throws JSON.parse's SyntaxError for text that is not JSON, and a JsonInputError naming
 *  the place for nesting past `maxDepth` or a repeated key. */
export function parseJsonInput(input: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const text = input.replace(/^\uFEFF/, '');
  const keys: Set<string>[] = [];
  let depth = 0;
  let duplicate: string | null = null;
  const enter = (line: number) => {
    if (++depth > maxDepth) throw new JsonInputError(`nested deeper than ${maxDepth} levels (at line ${line + 1})`);
  };
  visit(text, {
    onObjectBegin: (_o, _l, line) => {
      enter(line);
      keys.push(new Set());
    },
    onObjectEnd: () => {
      depth--;
      keys.pop();
    },
    onArrayBegin: (_o, _l, line) => enter(line),
    onArrayEnd: () => {
      depth--;
    },
    onObjectProperty: (key, _o, _l, line, _c, pathSupplier) => {
      const seen = keys.at(-1);
      if (!seen || duplicate !== null) return;
      if (seen.has(key)) duplicate = `duplicate key ${JSON.stringify(key)} at ${pathText(pathSupplier())} (line ${line + 1})`;
      seen.add(key);
    },
  });
  const value: unknown = JSON.parse(text);
  if (duplicate !== null) throw new JsonInputError(duplicate);
  return value;
}

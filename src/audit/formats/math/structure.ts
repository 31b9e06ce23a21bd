// An answer's shape: tuples, sets, intervals and unions, matrices, relations, text, and leaf
// expressions left to the library. Read here before parsing because the library reads "[0,1)"
// and bare lists its own way, and the shape decides how two answers are compared.

import { MAX_ANSWER_CHARS, MAX_ELEMENTS, MAX_FACTORIAL, MAX_NESTING, MAX_NUMBER_DIGITS, MAX_POWER_DEPTH } from './limits';
import { nestingDepth, splitTop, wrapsWhole } from './latex';

export type Node =
  | { kind: 'expr'; tex: string }
  | { kind: 'text'; text: string }
  | { kind: 'tuple'; items: Node[] }
  | { kind: 'set'; items: Node[] }
  | { kind: 'interval'; lo: Node; hi: Node; loClosed: boolean; hiClosed: boolean }
  | { kind: 'union'; items: Node[] }
  | { kind: 'matrix'; rows: Node[][] }
  | { kind: 'relation'; ops: string[]; sides: Node[] };

const RELATION = /\\(?:leq|geq|neq|approx)(?![a-zA-Z])|[=<>]/;

const LONG_NUMBER = new RegExp(`\\d{${MAX_NUMBER_DIGITS + 1}}`);

/** Why an answer is refused before parsing; null when it is within every limit. */
export function refusal(s: string): string | null {
  if (s.length > MAX_ANSWER_CHARS) return `longer than ${MAX_ANSWER_CHARS} characters`;
  if (nestingDepth(s) > MAX_NESTING) return `nested deeper than ${MAX_NESTING}`;
  if (LONG_NUMBER.test(s)) return `a number longer than ${MAX_NUMBER_DIGITS} digits`;
  for (const m of s.matchAll(/(\d+)\s*!/g)) if (Number(m[1]) > MAX_FACTORIAL) return `a factorial beyond ${MAX_FACTORIAL}!`;
  if (/[a-zA-Z)}\]]\s*!/.test(s)) return 'a factorial of an expression';
  if (powerDepth(s) > MAX_POWER_DEPTH) return `exponents nested deeper than ${MAX_POWER_DEPTH}`;
  return null;
}

/** Deepest chain of ^ in s: each ^ followed by a braced group adds the depth inside it. */
function powerDepth(s: string): number {
  let max = 0;
  const stack: number[] = []; // power depth of each open brace
  let depth = 0;
  let pending = false; // a ^ just seen: the next { raises the depth
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '^') {
      max = Math.max(max, depth + 1);
      pending = true;
      continue;
    }
    if (c === '{') {
      stack.push(depth);
      if (pending) depth++;
    } else if (c === '}') depth = stack.pop() ?? 0;
    if (c !== ' ') pending = false;
  }
  return max;
}

const isLoneVariable = (s: string) => /^(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_\{?[a-zA-Z\d]+\}?)?(?:'+)?$|^[a-zA-Z]\s*\(\s*[a-zA-Z]\s*\)$/.test(s.trim());
const hasVariable = (s: string) => /[a-zA-Z]/.test(s.replace(/\\[a-zA-Z]+/g, ' '));

/** The answer's shape, or null when it is empty, refused by a limit, or malformed. */
export function parseStructure(input: string): Node | null {
  const s = input.trim();
  if (s === '' || refusal(s) !== null) return null;
  return node(s, 0);
}

function node(s: string, level: number): Node | null {
  s = s.trim();
  if (s === '' || level > MAX_NESTING) return null;
  // a TeX group around the whole answer: "{1,3}" is "1,3"
  if (s[0] === '{' && s.endsWith('}') && wrapsWhole(s)) return node(s.slice(1, -1), level + 1);
  // x \in S → S
  const inSplit = splitTop(s, /\\in(?![a-zA-Z])/);
  if (inSplit.parts.length === 2 && isLoneVariable(inSplit.parts[0])) return node(inSplit.parts[1], level + 1);
  const rel = relation(s, level);
  if (rel !== undefined) return rel;
  const union = splitTop(s, /\\cup(?![a-zA-Z])/).parts;
  if (union.length > 1) return many(union, level, (items) => ({ kind: 'union', items }));
  const commas = splitTop(s, /,/).parts.filter((p) => p.trim() !== '');
  if (commas.length > 1) return many(commas, level, (items) => ({ kind: 'set', items: items.flatMap(expandSet) }));
  if (s.startsWith('\\{') && s.endsWith('\\}') && wrapsWhole(s, 2)) {
    const inner = s.slice(2, -2).trim();
    if (inner === '') return { kind: 'set', items: [] };
    return many(splitTop(inner, /,/).parts, level, (items) => ({ kind: 'set', items: items.flatMap(expandSet) }));
  }
  if (/^[([]/.test(s) && /[)\]]$/.test(s) && wrapsWhole(s)) {
    const parts = splitTop(s.slice(1, -1), /,/).parts;
    if (parts.length === 1) return node(s.slice(1, -1), level + 1) ?? null;
    const loClosed = s[0] === '[';
    const hiClosed = s.at(-1) === ']';
    if (parts.length === 2 && (loClosed || hiClosed)) {
      const [lo, hi] = parts.map((p) => node(p, level + 1));
      return lo && hi ? { kind: 'interval', lo, hi, loClosed, hiClosed } : null;
    }
    return many(parts, level, (items) => ({ kind: 'tuple', items }));
  }
  // a ratio or a time: "1:4", "12:00"
  const ratio = splitTop(s, /:/).parts;
  if (ratio.length > 1) return many(ratio, level, (items) => ({ kind: 'tuple', items }));
  const matrix = /^\\begin\{([pbvBV]?matrix|array)\}(?:\{[^{}]*\})?([\s\S]*)\\end\{\1\}$/.exec(s);
  if (matrix && !/\\begin/.test(matrix[2])) {
    const rows = matrix[2].split(/\\\\/).map((r) => r.trim()).filter((r) => r !== '' && r !== '\\hline');
    const cells = rows.map((r) => r.split('&').map((c) => node(c, level + 1)));
    if (cells.length === 0 || cells.length > MAX_ELEMENTS || cells.some((r) => r.some((c) => c === null))) return null;
    return { kind: 'matrix', rows: cells as Node[][] };
  }
  const pm = splitTop(s, /\\(?:pm|mp)(?![a-zA-Z])/).parts;
  if (pm.length === 2) {
    const [a, b] = pm.map((p) => p.trim());
    return many(a === '' ? [b, `-${b}`] : [`${a}+${b}`, `${a}-${b}`], level, (items) => ({ kind: 'set', items }));
  }
  const text = /^\\text\s*\{([^{}]*)\}$/.exec(s);
  if (text) return { kind: 'text', text: plainText(text[1]) };
  if (/^[A-Za-z]+(?:\s+[A-Za-z]+)+$/.test(s) && /[A-Za-z]{2}/.test(s)) return { kind: 'text', text: plainText(s) };
  return { kind: 'expr', tex: s };
}

/** Text answers compare without case, spaces or wrapping parentheses: "(C)" is "c". */
export function plainText(s: string): string {
  return s.trim().replace(/^\((.*)\)$/, '$1').replace(/\s+/g, ' ').trim().toLowerCase();
}

function expandSet(n: Node): Node[] {
  return n.kind === 'set' ? n.items : [n];
}

function many(parts: string[], level: number, make: (items: Node[]) => Node): Node | null {
  if (parts.length > MAX_ELEMENTS) return null;
  const items = parts.map((p) => node(p, level + 1));
  return items.every((n) => n !== null) ? make(items as Node[]) : null;
}

/** A relation chain; undefined when s holds no top-level relation. A chain "x = … = v", a
 *  definition "x = v" and a computation "c = v" with constants c, v read as v; "a ≈ v" after an
 *  equation is dropped. */
function relation(s: string, level: number): Node | null | undefined {
  let { parts, seps } = splitTop(s, RELATION);
  if (seps.length === 0) return undefined;
  const approx = seps.indexOf('\\approx');
  if (approx >= 0) {
    if (approx === 0 && isLoneVariable(parts[0])) seps[0] = '=';
    else {
      parts = parts.slice(0, approx + 1);
      seps = seps.slice(0, approx);
      if (seps.length === 0) return node(parts[0], level + 1);
    }
  }
  if (parts.some((p) => p.trim() === '')) return null;
  if (seps.every((o) => o === '=')) {
    const last = parts.at(-1) as string;
    if (parts.length >= 3 || ((isLoneVariable(parts[0]) || !hasVariable(parts[0])) && !hasVariable(last))) return node(last, level + 1);
  }
  const sides = parts.map((p) => node(p, level + 1));
  if (sides.some((n) => n === null)) return null;
  return { kind: 'relation', ops: seps.map((o) => o.trim()), sides: sides as Node[] };
}

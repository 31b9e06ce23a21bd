// An answer read: its normalised text and its shape, or null when it does not read as mathematics
// (a leaf the library cannot parse, a limit exceeded).

import { leafOf } from './engine';
import { braceEnds } from './latex';
import { MAX_ANSWER_CHARS } from './limits';
import { normalizeLatex } from './normalize';
import { parseStructure, type Node } from './structure';

export interface Answer {
  text: string;
  node: Node;
}

/** "\\frac" written with a doubled backslash (escaped once too often) outside a matrix is "\frac". */
function undoubleBackslashes(s: string): string {
  return /\\begin/.test(s) ? s : s.replace(/\\\\(?=[a-zA-Z])/g, '\\');
}

/** A whole answer "12,000,023" (or "12 000 023") is one number, not a list. */
function thousands(s: string): string {
  return /^-?\d{1,3}(?:(?:,\d{3})+|(?: \d{3})+)(?:\.\d+)?$/.test(s) ? s.replace(/[, ]/g, '') : s;
}

/** An answer given whole as "\boxed{X}" is X. */
function unbox(s: string): string {
  const m = /^\s*\\(?:boxed|fbox)\s*\{/.exec(s);
  if (!m) return s;
  const end = braceEnds(s)[m[0].length - 1];
  return end === s.trimEnd().length ? s.slice(m[0].length, end - 1) : s;
}

export function normalizeAnswer(raw: string): string {
  return thousands(normalizeLatex(unbox(undoubleBackslashes(raw))));
}

/** Longer raw text is not read as an answer (normalising it first could cost more than reading it). */
const MAX_RAW_ANSWER_CHARS = 4 * MAX_ANSWER_CHARS;

const answers = new Map<string, Answer | null>();
const ANSWER_CACHE_SIZE = 20_000;

/** The answer `raw` reads as; cached. */
export function readAnswer(raw: string): Answer | null {
  if (raw.length > MAX_RAW_ANSWER_CHARS) return null;
  const hit = answers.get(raw);
  if (hit !== undefined) return hit;
  const text = normalizeAnswer(raw);
  const node = parseStructure(text);
  const a = node && leavesReadable(node) ? { text, node } : null;
  if (answers.size >= ANSWER_CACHE_SIZE) answers.clear();
  answers.set(raw, a);
  return a;
}

export function clearAnswerCache(): void {
  answers.clear();
}

function leavesReadable(n: Node): boolean {
  switch (n.kind) {
    case 'expr':
      return leafOf(n.tex) !== null;
    case 'text':
      return n.text !== '';
    case 'tuple':
    case 'set':
    case 'union':
      return n.items.every(leavesReadable);
    case 'interval':
      return leavesReadable(n.lo) && leavesReadable(n.hi);
    case 'matrix':
      return n.rows.every((r) => r.every(leavesReadable));
    case 'relation':
      return n.sides.every(leavesReadable);
  }
}

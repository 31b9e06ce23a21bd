// Extraction: the answer span of a response, in math-verify's order of rules. Each rule yields
// candidates; rules are tried by priority, and within one the candidate ending last first; the
// first candidate that reads as an answer wins.
//   0   the last \boxed{}/\fbox{} (boxes joined by "and", "," or nothing count as one list), and
//       "final answer is X. I hope"
//   50  "final answer … is X" (the "is" within 100 characters)
//   100 "answer … : X" (X within 50 characters of the colon)
//   200 "answer … X" (X within 50 characters)
//   300 any inline ($…$, \(…\)) or display ($$…$$, \[…\]) LaTeX, a bare \frac{}{}, or a plain number
// where X is a LaTeX span or a plain number.

import { braceEnds } from './latex';
import { MAX_CANDIDATES, MAX_RESPONSE_CHARS } from './limits';

export interface Span {
  text: string;
  start: number;
  end: number;
}

/** A plain number: optional sign, thousands groups ("1,000", "1 000"), decimals, an optional
 *  "/denominator"; a unit may follow ("1,000.99m²"), a word may not precede ("AZYUK2A"). */
const NUMBER_RE = /(?<![\w.\\])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?![\d,.])|\d+|(?=\.\d))(?:\.\d+)?(?:\s*\/\s*\d+)?(?!\d)/g;
/** A bare fraction outside any LaTeX delimiters ("\frac{10}{9}"). */
const FRACTION_RE = /-?\\[dtc]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}/g;
const BOX_RE = /\\(?:boxed|fbox)\s*\{/g;
/** What may stand between two boxes read as one list. */
const BOX_JOIN = /^(?:\s|\$|,|\\quad|\\text\{\s*(?:and|or)\s*\}|\b(?:and|or)\b)*$/;

/** The next index of `token` at or after a position, memoised: positions asked for only grow,
 *  so a whole scan costs one pass per token. `ok` rejects a hit (an escaped "$"). */
function nextOf(s: string, token: string, ok: (at: number) => boolean = () => true): (from: number) => number {
  let last = -2;
  return (from) => {
    if (last === -1 || (last >= from && last !== -2)) return last;
    let at = s.indexOf(token, from);
    while (at >= 0 && !ok(at)) at = s.indexOf(token, at + 1);
    last = at;
    return at;
  };
}

/** LaTeX spans, left to right without overlap: display $$…$$ and \[…\] may span lines, inline
 *  $…$ and \(…\) may not; a "$" after a digit or backslash opens nothing, an escaped "\$" closes
 *  nothing. At one position the forms are tried in that order. A hand-written scan rather than one
 *  regex: a regex retries every unclosed opener to the end of the text, quadratic on a response
 *  full of "\[". */
function delimitedSpans(s: string): Span[] {
  const unescaped = (at: number) => s[at - 1] !== '\\';
  const dollars = nextOf(s, '$$');
  const bracket = nextOf(s, '\\]');
  const dollar = nextOf(s, '$', unescaped);
  const paren = nextOf(s, '\\)');
  const newline = nextOf(s, '\n');
  const out: Span[] = [];
  const take = (start: number, open: number, close: number, closeLen: number) => {
    out.push({ text: s.slice(open, close), start, end: close + closeLen });
    return close + closeLen;
  };
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === '$' && s[i + 1] === '$') {
      const close = dollars(i + 3);
      if (close >= 0) {
        i = take(i, i + 2, close, 2);
        continue;
      }
    }
    if (c === '\\' && s[i + 1] === '[') {
      const close = bracket(i + 3);
      if (close >= 0) {
        i = take(i, i + 2, close, 2);
        continue;
      }
    }
    if (c === '$' && !/[\\\d]/.test(s[i - 1] ?? '') && s[i + 1] !== '$') {
      const close = dollar(i + 2);
      const nl = newline(i + 1);
      if (close >= 0 && (nl < 0 || close < nl)) {
        i = take(i, i + 1, close, 1);
        continue;
      }
    }
    if (c === '\\' && s[i + 1] === '(') {
      const close = paren(i + 3);
      const nl = newline(i + 2);
      if (close >= 0 && (nl < 0 || close < nl)) {
        i = take(i, i + 2, close, 2);
        continue;
      }
    }
    i++;
  }
  return out;
}

export function latexSpans(s: string): Span[] {
  const spans = delimitedSpans(s);
  const covered = new Uint8Array(s.length);
  for (const x of spans) covered.fill(1, x.start, x.end);
  const fractions = [...s.matchAll(FRACTION_RE)].filter((m) => covered[m.index] === 0).map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
  return fractions.length ? [...spans, ...fractions].sort((a, b) => a.start - b.start) : spans;
}

function numberSpans(s: string, from = 0, to = s.length): Span[] {
  const out: Span[] = [];
  for (const m of s.slice(from, to).matchAll(NUMBER_RE)) if (m[0] !== '') out.push({ text: m[0], start: from + m.index, end: from + m.index + m[0].length });
  return out;
}

/** Boxes, consecutive ones joined: "\boxed{-2} and \boxed{1}" reads as "-2, 1". */
export function boxGroups(s: string): Span[] {
  const boxes: Span[] = [];
  const ends = braceEnds(s);
  for (const m of s.matchAll(BOX_RE)) {
    const open = m.index + m[0].length - 1;
    const end = ends[open];
    if (end < 0) continue;
    boxes.push({ text: s.slice(open + 1, end - 1), start: m.index, end });
  }
  const groups: Span[] = [];
  for (const b of boxes) {
    const last = groups.at(-1);
    if (last && b.start >= last.end && BOX_JOIN.test(s.slice(last.end, b.start))) {
      last.text += `, ${b.text}`;
      last.end = b.end;
    } else if (!last || b.start >= last.end) groups.push({ ...b });
  }
  return groups;
}

/** The first LaTeX span or plain number starting in [from, from + within]; `latex` is sorted by start. */
function firstAnswerAt(s: string, from: number, within: number, latex: Span[]): Span[] {
  const out: Span[] = [];
  let lo = 0;
  let hi = latex.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (latex[mid].start < from) lo = mid + 1;
    else hi = mid;
  }
  const l = latex[lo];
  if (l && l.start <= from + within) out.push(l);
  const n = numberSpans(s, from, Math.min(s.length, from + within + 64)).find((x) => x.start <= from + within);
  if (n) out.push(n);
  return out;
}

/** The last MAX_CANDIDATES matches of `re`: earlier ones would end before those kept. */
function lastMatches(s: string, re: RegExp): RegExpExecArray[] {
  return [...s.matchAll(re)].slice(-MAX_CANDIDATES);
}

/** Candidate spans by rule, in priority order; within a rule, the candidate ending last first. */
export function candidates(response: string, boxedOnly = false): Span[][] {
  if (response.length > MAX_RESPONSE_CHARS) return [];
  const boxes = boxGroups(response);
  if (boxedOnly) return boxes.length ? [[boxes.at(-1) as Span]] : [];
  const latex = latexSpans(response);
  const p0: Span[] = [...boxes];
  const p50: Span[] = [];
  const p100: Span[] = [];
  const p200: Span[] = [];
  for (const m of lastMatches(response, /final answer is:?\s*/gi)) {
    for (const c of firstAnswerAt(response, m.index + m[0].length, 0, latex)) {
      if (/^\.?\s?I hope/i.test(response.slice(c.end))) p0.push(c);
    }
  }
  for (const m of lastMatches(response, /final answer/gi)) {
    const is = /[\s\S]{0,100}?\sis:?\s*/y;
    is.lastIndex = m.index + m[0].length;
    const hit = is.exec(response);
    if (hit) p50.push(...firstAnswerAt(response, hit.index + hit[0].length, 0, latex));
  }
  for (const m of lastMatches(response, /answer/gi)) {
    const after = m.index + m[0].length;
    const colon = response.slice(after, after + 51).search(/[:：]/);
    if (colon >= 0) p100.push(...firstAnswerAt(response, after + colon + 1, 50, latex));
    p200.push(...firstAnswerAt(response, after, 50, latex));
  }
  const p300 = [...latex, ...numberSpans(response)];
  const byEnd = (a: Span, b: Span) => b.end - a.end || a.start - b.start;
  return [p0, p50, p100, p200, p300].map((group) => group.sort(byEnd).slice(0, MAX_CANDIDATES));
}

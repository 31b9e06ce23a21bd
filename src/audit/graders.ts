// Answer formats and graders: extract an answer from a response, compare it with the gold answer.
// Every grader returns "[invalid]" when nothing can be extracted; that counts as wrong.
// Bump GRADER_VERSION whenever a rule changes what is extracted: it is part of the condition.
// v2: leading-dot decimals (".5"); the number after an answer marker is the last of its clause
// ("answer is 2 + 3 = 5" → 5); letters stated correct, "option X", "answer is: X)", negated "(X)"
// skipped, option text inside the response; GradeOptions.requireBoxed.
// v3: an exponent ("1e3" → 1000, "2.5E-2" → 0.025), with |exponent| ≤ MAX_EXPONENT.

import type { AnswerFormat } from './types';
import { quote } from '../util/clip';

export const GRADER_VERSION = 3;
export const INVALID = '[invalid]';

export interface Grade {
  extracted: string;
  correct: boolean;
}

export interface GradeOptions {
  /** Option texts for multiple choice; their count bounds the valid letters. */
  choices?: string[];
  /** Read the answer only from the last \boxed{...}; a response without one is invalid. */
  requireBoxed?: boolean;
}

export function grade(format: AnswerFormat, gold: string, response: string, opts: GradeOptions = {}): Grade {
  const g = normalizeGold(format, gold);
  const n = optionCount(g, opts.choices); // used by mc-letter only
  const extracted = opts.requireBoxed
    ? extractBoxed(format, response, n)
    : format === 'numeric'
      ? extractNumeric(response)
      : format === 'mc-letter'
        ? extractLetter(response, n, opts.choices)
        : extractExact(response);
  return { extracted, correct: matches(extracted, g) };
}

/** The grader's equality rule: an extracted answer counts when it is the canonical answer. */
const matches = (extracted: string, canonical: string) => extracted !== INVALID && extracted === canonical;

/** Whether an extracted answer is `answer` (a gold or a decoy answer) under the grader's rule. */
export function isAnswer(format: AnswerFormat, answer: string, extracted: string): boolean {
  return matches(extracted, normalizeGold(format, answer));
}

/** How many option letters are valid for a multiple-choice question: its options, or at least
 *  A–E (and up to the gold letter) when it lists none. */
export function optionCount(goldLetter: string, choices?: string[]): number {
  return choices?.length ?? Math.max(5, letterIndex(goldLetter) + 1);
}

/** The canonical form of a gold answer; throws when the gold answer itself cannot be read. */
export function normalizeGold(format: AnswerFormat, gold: string): string {
  if (format === 'numeric') {
    const hash = gold.lastIndexOf('####');
    const text = hash >= 0 ? gold.slice(hash + 4) : gold;
    const v = parseNumber(text.trim()) ?? numbersIn(text)[0] ?? null;
    if (v === null) throw new Error(`numeric gold answer ${quote(gold)} holds no number`);
    return v;
  }
  if (format === 'mc-letter') {
    const m = /^\s*[([]?\s*([A-Za-z])\s*[)\]]?\s*\.?\s*$/.exec(gold);
    if (!m) throw new Error(`multiple-choice gold answer ${quote(gold)} is not a single letter`);
    return m[1].toUpperCase();
  }
  if (format === 'exact') {
    const g = normalizeText(gold);
    if (g === '') throw new Error(`exact-match gold answer ${quote(gold)} is empty after normalization`);
    return g;
  }
  throw new Error(`unknown answer format ${quote(format)} (known: numeric, mc-letter, exact)`);
}

/** The answer read only from the last \boxed{...} (GradeOptions.requireBoxed); n bounds the valid letters. */
export function extractBoxed(format: AnswerFormat, response: string, n: number): string {
  const b = lastBoxed(response);
  if (b === null) return INVALID;
  if (format === 'numeric') return numbersIn(b).at(-1) ?? INVALID;
  if (format === 'mc-letter') {
    const l = boxedLetter(b);
    return l !== null && letterIndex(l) < n ? l.toUpperCase() : INVALID;
  }
  return normalizeText(unwrapTex(b)) || INVALID;
}

// ---------------------------------------------------------------- numbers

/** The largest exponent read ("1e1000"): a bound on the digits a number may expand to. */
export const MAX_EXPONENT = 1000;
/** The most digits a number may have (integer and fraction, or denominator) to be read as one: no
 *  answer is that long, and exact arithmetic on a 50-million-digit run takes minutes. */
export const MAX_DIGITS = 1000;

/** One number token: optional sign, optional $, digits with optional thousands groups and decimals
 *  (or a bare ".5"), optional exponent, optional /denominator. The sign counts only when not glued to a preceding word
 *  or digit ("12-5" holds 12 and 5); nothing glued to a preceding word or "." starts a number. */
const NUMBER_RE = /(?<![\w.])([+-]?)\$?(?=\.?\d)((?:\d{1,3}(?:,\d{3})+(?!\d))|\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+)(?!\w))?(?:\/(\d+)(?!\d|\.\d))?/g;

function prepNumeric(s: string): string {
  return s
    .replace(/[\u2212\u2013]/g, '-') // unicode minus and en dash as minus
    .replace(/\{,\}/g, ',') // LaTeX thousands separator 1{,}234
    .replace(/\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}/g, '$1/$2');
}

function numbersIn(s: string): string[] {
  const out: string[] = [];
  for (const m of prepNumeric(s).matchAll(NUMBER_RE)) {
    const v = rationalString(m[1], m[2], m[3], m[5], m[4]);
    if (v !== null) out.push(v);
  }
  return out;
}

/** The whole string as one number ("-1,234.50", "1/2", ".5", "$3", "1e3"), or null. */
export function parseNumber(s: string): string | null {
  const t = prepNumeric(s).trim();
  const m = /^([+-]?)\$?(?=\.?\d)((?:\d{1,3}(?:,\d{3})+)|\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?(?:\/(\d+))?$/.exec(t);
  return m ? rationalString(m[1], m[2], m[3], m[5], m[4]) : null;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Canonical text of sign·int.frac·10^exp/den: an integer, an exact terminating decimal, or "p/q";
 *  null when the exponent is beyond MAX_EXPONENT, a part has more than MAX_DIGITS digits or the
 *  denominator is 0. */
function rationalString(sign: string, int: string, frac: string | undefined, den: string | undefined, exp?: string): string | null {
  const f = frac ?? '';
  const e = exp === undefined ? 0 : Number(exp);
  if (!(Math.abs(e) <= MAX_EXPONENT)) return null;
  if (int.length + f.length > MAX_DIGITS || (den?.length ?? 0) > MAX_DIGITS) return null;
  let p = BigInt(int.replace(/,/g, '') + f);
  let q = 10n ** BigInt(f.length);
  if (e > 0) p *= 10n ** BigInt(e);
  else if (e < 0) q *= 10n ** BigInt(-e);
  if (den !== undefined) {
    const d = BigInt(den);
    if (d === 0n) return null;
    q *= d;
  }
  if (sign === '-') p = -p;
  const g = gcd(p, q);
  if (g > 1n) [p, q] = [p / g, q / g];
  if (p === 0n) return '0';
  if (q === 1n) return p.toString();
  // terminating decimal when q = 2^a 5^b
  let r = q;
  let digits = 0;
  while (r % 10n === 0n) [r, digits] = [r / 10n, digits + 1];
  while (r % 2n === 0n || r % 5n === 0n) {
    r = r % 2n === 0n ? r / 2n : r / 5n;
    digits++;
  }
  if (r !== 1n) return `${p}/${q}`;
  const scaled = (p < 0n ? -p : p) * (10n ** BigInt(digits) / q);
  const s = scaled.toString().padStart(digits + 1, '0');
  return `${p < 0n ? '-' : ''}${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
}

/** Content of the last \boxed{...}, braces balanced; null when absent. */
function lastBoxed(s: string): string | null {
  const at = s.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at + 6; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return s.slice(at + 7, i);
  }
  return null;
}

/** \text{x}, \textbf{x}, \mathrm{x}, \mbox{x} → x. */
function unwrapTex(s: string): string {
  return s.replace(/\\(?:text(?:bf)?|math(?:rm|bf)|mbox)\s*\{([^{}]*)\}/g, '$1');
}

/** The text after the last "answer is"/"answer:"/"answer =" up to its sentence end (a newline, or
 *  . ! ? not followed by a digit), leading whitespace skipped; null when there is no marker. */
function answerClause(response: string): string | null {
  let at = -1;
  for (const m of response.matchAll(/answer\s*(?:is\b|[:=])/gi)) at = m.index + m[0].length;
  if (at < 0) return null;
  const rest = response.slice(at).replace(/^\s+/, '');
  const end = rest.search(/\n|[.!?](?!\d)/);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Rules in order: the last number in the last \boxed{} (invalid when it holds none); the first number
 *  after the last "####"; the last number of the answer clause (see answerClause); the last number anywhere. */
export function extractNumeric(response: string): string {
  const boxed = lastBoxed(response);
  if (boxed !== null) return numbersIn(boxed).at(-1) ?? INVALID;
  const hash = response.lastIndexOf('####');
  if (hash >= 0) {
    const v = numbersIn(response.slice(hash + 4))[0];
    if (v !== undefined) return v;
  }
  const clause = answerClause(response);
  const v = clause === null ? undefined : numbersIn(clause).at(-1);
  return v ?? numbersIn(response).at(-1) ?? INVALID;
}

// ---------------------------------------------------------------- letters

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function letterIndex(letter: string): number {
  return LETTERS.indexOf(letter.toUpperCase());
}

export function indexLetter(i: number): string {
  if (!(i >= 0 && i < LETTERS.length)) throw new RangeError(`option index ${i} has no letter`);
  return LETTERS[i];
}

/** "answer is (B)", "answer is: C) Paris", "answer: option c", "correct option is B". */
const ANSWER_LETTER_RE =
  /(?:answer|(?:correct|right|best)\s+(?:option|choice))\s*(?:is\b\s*:?|[:=])?\s*(?:(?:option|choice)\s*)?[([]?\s*([A-Za-z])\s*[)\]]?(?![A-Za-z])/gi;
/** "B is correct", "(D) is the right answer", "C is the answer" (a bare "C is right" is not: "angle C is right"). */
const STATED_CORRECT_RE =
  /(?<![A-Za-z])[([]?([A-Z])[)\]]?\s+is\s+(?:correct|the\s+(?:(?:correct|right)\s+(?:answer|option|choice)|answer))\b/g;
/** "option B", "choice (c)". */
const OPTION_RE = /\b(?:option|choice)(?:\s*[([]\s*|\s+)([A-Za-z])\s*[)\]]?(?![A-Za-z])/gi;
/** A capital after a colon that ends its phrase: "Final choice: B", "Result: (C)." */
const COLON_LETTER_RE = /:[ \t]*[([]?([A-Z])(?=[)\].,;]|[ \t]*(?:\n|$))/g;

function boxedLetter(b: string): string | null {
  return /^\s*[([]?\s*([A-Za-z])\s*(?:[)\].:]|$)/.exec(unwrapTex(b))?.[1] ?? null;
}

/**
 * Rules in order, each taking its last match (by position) whose letter is one of the first n:
 * 1. a stated answer: "answer is (B)", "answer is: C) Paris", "answer: c" (lower case only when nothing
 *    but punctuation follows), "B is correct", "D is the right answer" (not after "not");
 * 2. \boxed{B}; 3. "option B" not after "not"; 4. a parenthesized capital "(B)" not after "not";
 * 5. a leading capital followed by punctuation ("B." "B)"); 6. the whole response one letter;
 * 7. the response equal to one option's text, else exactly one option's text inside the response;
 * 8. a capital closing a phrase after a colon ("Final choice: B").
 */
export function extractLetter(response: string, n: number, choices?: string[]): string {
  const valid = (l: string) => letterIndex(l) >= 0 && letterIndex(l) < n;
  const pick = (cands: string[]) => cands.filter(valid).at(-1)?.toUpperCase() ?? null;
  const notNegated = (m: RegExpExecArray) => !/\bnot\s*$/i.test(response.slice(0, m.index));
  const all = (re: RegExp) => [...response.matchAll(re)];
  const rules: (() => string[])[] = [
    () =>
      [
        ...all(ANSWER_LETTER_RE).filter(
          (m) => /[A-Z]/.test(m[1]) || /^\s*(?:$|[.,;:!)\]])/.test(response.slice(m.index + m[0].length)),
        ),
        ...all(STATED_CORRECT_RE).filter(notNegated),
      ]
        .sort((a, b) => a.index - b.index)
        .map((m) => m[1]),
    () => {
      const b = lastBoxed(response);
      const l = b === null ? null : boxedLetter(b);
      return l === null ? [] : [l];
    },
    () => all(OPTION_RE).filter(notNegated).map((m) => m[1]),
    () => all(/\(([A-Z])\)/g).filter(notNegated).map((m) => m[1]),
    () => /^\s*[([]?([A-Z])(?:[)\].:,]|\s*$)/.exec(response)?.slice(1, 2) ?? [],
    () => /^\s*([A-Za-z])\s*$/.exec(response)?.slice(1, 2) ?? [],
    () => {
      if (!choices) return [];
      const r = normalizeText(response);
      const opts = choices.slice(0, n).map(normalizeText);
      const equal = opts.flatMap((c, i) => (c !== '' && c === r ? [indexLetter(i)] : []));
      const inside = opts.flatMap((c, i) => (c !== '' && ` ${r} `.includes(` ${c} `) ? [indexLetter(i)] : []));
      return equal.length === 1 ? equal : inside.length === 1 ? inside : [];
    },
    () => all(COLON_LETTER_RE).map((m) => m[1]),
  ];
  for (const rule of rules) {
    const l = pick(rule());
    if (l !== null) return l;
  }
  return INVALID;
}

// ---------------------------------------------------------------- exact match

/** NFKC, lower case, punctuation removed, whitespace collapsed. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text after the last "answer is"/"answer:" if any, else the first non-empty line; normalized. */
export function extractExact(response: string): string {
  let text = response;
  let last = -1;
  for (const m of response.matchAll(/answer\s*(?:is|:)/gi)) last = m.index + m[0].length;
  if (last >= 0) text = response.slice(last);
  const line = text.split(/\r?\n/).find((l) => normalizeText(l) !== '') ?? '';
  const n = normalizeText(line);
  return n === '' ? INVALID : n;
}

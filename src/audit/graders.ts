// Answer formats and graders: extract an answer from a response, compare it with the gold answer.
// Every grader returns "[invalid]" when nothing can be extracted; that counts as wrong.
// Bump GRADER_VERSION whenever a rule changes what is extracted: it is part of the condition.

import type { AnswerFormat } from './types';

export const GRADER_VERSION = 1;
export const INVALID = '[invalid]';

export interface Grade {
  extracted: string;
  correct: boolean;
}

export interface GradeOptions {
  /** Option texts for multiple choice; their count bounds the valid letters. */
  choices?: string[];
}

export function grade(format: AnswerFormat, gold: string, response: string, opts: GradeOptions = {}): Grade {
  switch (format) {
    case 'numeric': {
      const g = normalizeGold('numeric', gold);
      const extracted = extractNumeric(response);
      return { extracted, correct: extracted !== INVALID && extracted === g };
    }
    case 'mc-letter': {
      const g = normalizeGold('mc-letter', gold);
      const n = opts.choices?.length ?? Math.max(5, letterIndex(g) + 1);
      const extracted = extractLetter(response, n, opts.choices);
      return { extracted, correct: extracted !== INVALID && extracted === g };
    }
    case 'exact': {
      const g = normalizeGold('exact', gold);
      const extracted = extractExact(response);
      return { extracted, correct: extracted !== INVALID && extracted === g };
    }
    default:
      throw new Error(`unknown answer format "${format as string}" (known: numeric, mc-letter, exact)`);
  }
}

/** The canonical form of a gold answer; throws when the gold answer itself cannot be read. */
export function normalizeGold(format: AnswerFormat, gold: string): string {
  if (format === 'numeric') {
    const hash = gold.lastIndexOf('####');
    const text = hash >= 0 ? gold.slice(hash + 4) : gold;
    const whole = parseNumber(text.trim());
    const v = whole ?? firstNumber(text);
    if (v === null) throw new Error(`numeric gold answer "${gold}" holds no number`);
    return v;
  }
  if (format === 'mc-letter') {
    const m = /^\s*[([]?\s*([A-Za-z])\s*[)\]]?\s*\.?\s*$/.exec(gold);
    if (!m) throw new Error(`multiple-choice gold answer "${gold}" is not a single letter`);
    return m[1].toUpperCase();
  }
  if (format === 'exact') {
    const g = normalizeText(gold);
    if (g === '') throw new Error(`exact-match gold answer "${gold}" is empty after normalization`);
    return g;
  }
  throw new Error(`unknown answer format "${format as string}" (known: numeric, mc-letter, exact)`);
}

// ---------------------------------------------------------------- numbers

/** One number token: optional sign, optional $, digits with optional thousands groups, decimals, /denominator.
 *  The sign counts only when not glued to a preceding word or digit ("12-5" holds 12 and 5). */
const NUMBER_RE = /(?<![\w.])([+-]?)\$?((?:\d{1,3}(?:,\d{3})+(?!\d))|\d+)(?:\.(\d+))?(?:\/(\d+)(?![\d.]))?/g;

function prepNumeric(s: string): string {
  return s
    .replace(/[\u2212\u2013]/g, '-') // unicode minus and en dash as minus
    .replace(/\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}/g, '$1/$2');
}

function numbersIn(s: string): string[] {
  const out: string[] = [];
  for (const m of prepNumeric(s).matchAll(NUMBER_RE)) {
    const v = rationalString(m[1], m[2], m[3], m[4]);
    if (v !== null) out.push(v);
  }
  return out;
}

function firstNumber(s: string): string | null {
  return numbersIn(s)[0] ?? null;
}

/** The whole string as one number ("-1,234.50", "1/2", "$3"), or null. */
export function parseNumber(s: string): string | null {
  const t = prepNumeric(s).trim();
  const m = /^([+-]?)\$?((?:\d{1,3}(?:,\d{3})+)|\d+)(?:\.(\d+))?(?:\/(\d+))?$/.exec(t);
  return m ? rationalString(m[1], m[2], m[3], m[4]) : null;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Canonical text of sign·int.frac/den: an integer, an exact terminating decimal, or "p/q". */
function rationalString(sign: string, int: string, frac: string | undefined, den: string | undefined): string | null {
  const f = frac ?? '';
  let p = BigInt(int.replace(/,/g, '') + f);
  let q = 10n ** BigInt(f.length);
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

/** Rules in order: last \boxed{}, text after the last "####", after the last "answer is"/"answer:",
 *  then the last number anywhere. */
export function extractNumeric(response: string): string {
  const boxed = lastBoxed(response);
  if (boxed !== null) {
    const nums = numbersIn(boxed);
    return nums.length ? nums[nums.length - 1] : INVALID;
  }
  const hash = response.lastIndexOf('####');
  if (hash >= 0) {
    const v = firstNumber(response.slice(hash + 4));
    if (v !== null) return v;
  }
  const answerRe = /answer\s*(?:is|:|=)/gi;
  let lastAnswer = -1;
  for (const m of response.matchAll(answerRe)) lastAnswer = m.index + m[0].length;
  if (lastAnswer >= 0) {
    const v = firstNumber(response.slice(lastAnswer));
    if (v !== null) return v;
  }
  const nums = numbersIn(response);
  return nums.length ? nums[nums.length - 1] : INVALID;
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

/**
 * Rules in order, each taking its last match whose letter is one of the first n:
 * "answer is (B)" / "answer: c" (lower case only when nothing but punctuation follows),
 * \boxed{B}, a parenthesized capital "(B)", a leading capital followed by punctuation ("B." "B)"),
 * the whole response being one letter, and finally the response equal to one option's text.
 */
export function extractLetter(response: string, n: number, choices?: string[]): string {
  const valid = (l: string) => letterIndex(l) >= 0 && letterIndex(l) < n;
  const pick = (cands: string[]) => {
    for (let i = cands.length - 1; i >= 0; i--) if (valid(cands[i])) return cands[i].toUpperCase();
    return null;
  };
  const rules: (() => string[])[] = [
    () =>
      [...response.matchAll(/answer\s*(?:is|:|=)?\s*(?:option\s*)?[([]?\s*([A-Za-z])\s*[)\]]?(?![A-Za-z])/gi)]
        .filter((m) => /[A-Z]/.test(m[1]) || /^\s*(?:$|[.,;:!)\]])/.test(response.slice(m.index + m[0].length)))
        .map((m) => m[1]),
    () => {
      const b = lastBoxed(response);
      const m = b === null ? null : /^\s*(?:\\text\{)?\s*([A-Za-z])\s*\}?\s*$/.exec(b);
      return m ? [m[1]] : [];
    },
    () => [...response.matchAll(/\(([A-Z])\)/g)].map((m) => m[1]),
    () => {
      const m = /^\s*[([]?([A-Z])(?:[)\].:,]|\s*$)/.exec(response);
      return m ? [m[1]] : [];
    },
    () => {
      const m = /^\s*([A-Za-z])\s*$/.exec(response);
      return m ? [m[1]] : [];
    },
  ];
  for (const rule of rules) {
    const l = pick(rule());
    if (l !== null) return l;
  }
  if (choices) {
    const r = normalizeText(response);
    const hits = choices.map((c, i) => (normalizeText(c) === r && r !== '' ? i : -1)).filter((i) => i >= 0);
    if (hits.length === 1 && hits[0] < n) return indexLetter(hits[0]);
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

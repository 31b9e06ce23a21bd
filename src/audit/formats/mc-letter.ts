// mc-letter: an option letter (A, B, …) of a multiple-choice question; scored by default by the
// log-likelihood of each option letter (the condition's mcMode), or by generating and extracting
// one. Its version is part of every mc-letter condition:
// v2: letters stated correct, "option X", "answer is: X)", negated "(X)" skipped, option text inside
// the response; GradeOptions.requireBoxed.
// v3: unchanged rules (the version the three first formats shared).

import { quote } from '../../util/clip';
import { INVALID, type Format } from './format';
import { lastBoxed, normalizeText, unwrapTex } from './text';

/** The raw prompt of a multiple-choice task: the question, its lettered options, "Answer:". */
export const MC_TEMPLATE = '{{question}}\n{{choices}}\nAnswer:';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function letterIndex(letter: string): number {
  return LETTERS.indexOf(letter.toUpperCase());
}

export function indexLetter(i: number): string {
  if (!(i >= 0 && i < LETTERS.length)) throw new RangeError(`option index ${i} has no letter`);
  return LETTERS[i];
}

/** How many option letters are valid for a multiple-choice question: its options, or at least
 *  A–E (and up to the gold letter) when it lists none. */
export function optionCount(goldLetter: string, choices?: string[]): number {
  return choices?.length ?? Math.max(5, letterIndex(goldLetter) + 1);
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

export const mcLetterFormat: Format<'mc-letter'> = {
  name: 'mc-letter',
  label: 'option letter',
  version: 3,
  normalizeGold(gold) {
    const m = /^\s*[([]?\s*([A-Za-z])\s*[)\]]?\s*\.?\s*$/.exec(gold);
    if (!m) throw new Error(`multiple-choice gold answer ${quote(gold)} is not a single letter`);
    return m[1].toUpperCase();
  },
  extract: (response, q) => extractLetter(response, optionCount(q.gold, q.choices), q.choices),
  extractBoxed(response, q) {
    const b = lastBoxed(response);
    const l = b === null ? null : boxedLetter(b);
    return l !== null && letterIndex(l) < optionCount(q.gold, q.choices) ? l.toUpperCase() : INVALID;
  },
  equal: (gold, extracted) => extracted === gold,
  key: (extracted) => extracted,
  /** Another valid option letter. */
  decoy(gold, choices, int) {
    const g = letterIndex(gold);
    const others = Array.from({ length: Math.min(optionCount(gold, choices), 26) }, (_, i) => i).filter((i) => i !== g);
    return others.length ? indexLetter(others[int(others.length)]) : null;
  },
  promptTemplate: MC_TEMPLATE,
  maxNewTokens: 32,
  stopSequences: ['\n\n', 'Question:'],
  scoring: 'loglik',
};

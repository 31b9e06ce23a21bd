// numeric: a number (integer, decimal, fraction, exponent, thousands groups), compared exactly as a
// rational. Its version is part of every numeric condition:
// v2: leading-dot decimals (".5"); the number after an answer marker is the last of its clause
// ("answer is 2 + 3 = 5" → 5); GradeOptions.requireBoxed.
// v3: an exponent ("1e3" → 1000, "2.5E-2" → 0.025), with |exponent| ≤ MAX_EXPONENT.

import { quote } from '../../util/clip';
import { INVALID, type Format } from './format';
import { lastBoxed } from './text';

/** The largest exponent read ("1e1000"): a bound on the digits a number may expand to. */
export const MAX_EXPONENT = 1000;
/** The most digits a number may have (integer and fraction, or denominator) to be read as one: no
 *  answer is that long, and exact arithmetic on a 50-million-digit run takes minutes. */
export const MAX_DIGITS = 1000;
/** A numeric decoy is the gold plus a nonzero whole offset of at most this size. */
const MAX_DECOY_OFFSET = 3;

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

/** A canonical number ("-12", "2.5", "-7/3") as numerator and positive denominator. */
function rational(canonical: string): [bigint, bigint] {
  const [num, den = '1'] = canonical.split('/');
  const [int, frac = ''] = num.split('.');
  return [BigInt(int + frac), BigInt(den) * 10n ** BigInt(frac.length)];
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

export const numericFormat: Format<'numeric'> = {
  name: 'numeric',
  label: 'number',
  version: 3,
  normalizeGold(gold) {
    const hash = gold.lastIndexOf('####');
    const text = hash >= 0 ? gold.slice(hash + 4) : gold;
    const v = parseNumber(text.trim()) ?? numbersIn(text)[0] ?? null;
    if (v === null) throw new Error(`numeric gold answer ${quote(gold)} holds no number`);
    return v;
  },
  extract: (response) => extractNumeric(response),
  extractBoxed(response) {
    const b = lastBoxed(response);
    return b === null ? INVALID : (numbersIn(b).at(-1) ?? INVALID);
  },
  equal: (gold, extracted) => extracted === gold,
  key: (extracted) => extracted,
  /** The gold plus a seeded offset in ±1..±MAX_DECOY_OFFSET that keeps its sign (a fraction or
   *  decimal keeps its denominator). */
  decoy(gold, _choices, int) {
    const [p, q] = rational(gold);
    const offsets = Array.from({ length: MAX_DECOY_OFFSET }, (_, i) => BigInt(i + 1)).flatMap((d) => [-d, d]);
    const sameSign = offsets.filter((d) => (p < 0n ? p + d * q < 0n : p + d * q >= 0n));
    return parseNumber(`${p + sameSign[int(sameSign.length)] * q}/${q}`);
  },
  promptTemplate: 'Question: {{question}}\nAnswer:',
  maxNewTokens: 256,
  stopSequences: ['\n\n', 'Question:'],
  scoring: 'generate',
};

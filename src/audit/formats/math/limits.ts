// Bounds that keep grading fast on hostile input. Compute-engine calls are synchronous and cannot
// be interrupted, so every answer is checked against these before the library sees it.

/** A longer response is refused (no answer extracted): some 50k tokens, beyond any completion an
 *  audit asks for; below it every scan is linear (a 190k-character response takes milliseconds). */
export const MAX_RESPONSE_CHARS = 200_000;
/** A longer candidate answer is skipped: no final answer is this long. */
export const MAX_ANSWER_CHARS = 500;
/** Characters of candidates read per response before extraction gives up: bounds the parsing
 *  done on a response full of long LaTeX spans. */
export const MAX_READ_CHARS = 4_000;
/** Candidates tried per extraction rule before giving up on it (each try may parse LaTeX). */
export const MAX_CANDIDATES = 24;
/** Deepest nesting of braces, brackets and parentheses in an answer. */
export const MAX_NESTING = 24;
/** Deepest chain of exponents (`a^{b^{c}}` is 2): towers overflow the library's arithmetic. */
export const MAX_POWER_DEPTH = 2;
/** Most digits in one number literal. */
export const MAX_NUMBER_DIGITS = 100;
/** Largest literal a factorial may take (99999! takes seconds). */
export const MAX_FACTORIAL = 1_000;
/** Most elements of a tuple, set, list or matrix. */
export const MAX_ELEMENTS = 64;
/** Commands the library may iterate on for seconds (a sum to 10^6): answers holding them are
 *  parsed but never evaluated, only compared by their canonical form. */
export const ITERATIVE_COMMANDS = /\\(?:sum|prod|int|iint|iiint|oint|lim|limsup|liminf)(?![a-zA-Z])/;

// math: competition-math answers (LaTeX expressions) graded by equivalence with math-verify's
// semantics (the library in math/: extraction, normalisation, equivalence on
// @cortex-js/compute-engine). Its version is the library's MATH_VERSION, so improving it changes
// the condition keys of math conditions only.

import { INVALID, type Format } from './format';
import { extractMathAnswer, MATH_VERSION, mathDecoy, mathEquivalent, mathKey, normalizeMathGold } from './math/index';

export const mathFormat: Format<'math'> = {
  name: 'math',
  label: 'math expression, by equivalence',
  version: MATH_VERSION,
  normalizeGold: normalizeMathGold,
  extract: (response) => extractMathAnswer(response) ?? INVALID,
  extractBoxed: (response) => extractMathAnswer(response, { boxedOnly: true }) ?? INVALID,
  equal: mathEquivalent,
  key: mathKey,
  /** A number in the gold perturbed; never equivalent to the gold. */
  decoy: (gold, _choices, int) => mathDecoy(gold, int),
  // a chain of thought then the boxed answer, as the math recipes ask (recipes.ts has each one's own)
  promptTemplate: '{{question}}\nPlease reason step by step, and put your final answer within \\boxed{}.',
  maxNewTokens: 1024,
  // the reasoning has blank lines; the model's end-of-sequence token ends it
  stopSequences: [],
  scoring: 'generate',
};

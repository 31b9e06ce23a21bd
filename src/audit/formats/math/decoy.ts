// Decoys: a wrong answer of the gold's kind, made by moving one number in the gold by a small
// whole offset, checked not to be equivalent to the gold.

import { readAnswer } from './answer';
import { nodesEqual } from './equivalence';

/** The largest offset added to a number. */
const MAX_OFFSET = 3;
/** Perturbations tried before giving up. */
const TRIES = 8;
const LITERAL_RE = /(?<![\w.\\])\d+(?:\.\d+)?(?![\w])/g;

/** A wrong answer of the gold answer's kind (see index.ts mathDecoy), or null. */
export function decoyOf(goldText: string, int: (n: number) => number): string | null {
  const gold = readAnswer(goldText);
  if (!gold) return null;
  const literals = [...gold.text.matchAll(LITERAL_RE)];
  if (literals.length === 0) return null;
  for (let t = 0; t < TRIES; t++) {
    const m = literals[int(literals.length)];
    const [whole, frac] = m[0].split('.');
    const offsets = Array.from({ length: MAX_OFFSET }, (_, i) => i + 1).flatMap((d) => [-d, d]).filter((d) => Number(whole) + d >= 0 && (Number(whole) + d !== 0 || Number(whole) === 0));
    const moved = `${BigInt(whole) + BigInt(offsets[int(offsets.length)])}${frac === undefined ? '' : `.${frac}`}`;
    const text = gold.text.slice(0, m.index) + moved + gold.text.slice(m.index + m[0].length);
    const decoy = readAnswer(text);
    if (decoy && decoy.node.kind === gold.node.kind && !nodesEqual(gold.node, decoy.node)) return decoy.text;
  }
  return null;
}

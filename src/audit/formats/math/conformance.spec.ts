// Conformance with the reference grader: our grader against math-verify's labelled test cases
// (test/fixtures/math-verify). Agreement must stay at or above MIN_AGREEMENT, and every case on
// which we disagree must be listed in KNOWN_DISAGREEMENTS with its reason (and no listed case
// may agree, so the list stays true).

import { describe, expect, it } from 'vitest';
import { gradeMath } from './index';
import { fixtureCases } from './testing';

const MIN_AGREEMENT = 0.97;

/** Line number in cases.jsonl (1-based) → why our grade differs from math-verify's label. */
const KNOWN_DISAGREEMENTS: ReadonlyMap<number, string> = new Map([]);

const cases = fixtureCases();

describe('conformance with math-verify', () => {
  const results = cases.map((c, i) => ({ line: i + 1, c, got: gradeMath(c.gold, c.response) }));

  it('reads a fixture of labelled cases of both labels', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(cases.some((c) => c.expected)).toBe(true);
    expect(cases.some((c) => !c.expected)).toBe(true);
  });

  it(`agrees on at least ${MIN_AGREEMENT * 100}% of cases`, () => {
    const agree = results.filter((r) => r.got.correct === r.c.expected).length;
    expect(agree / cases.length).toBeGreaterThanOrEqual(MIN_AGREEMENT);
  });

  it('disagrees only on the listed cases, and on every listed case', () => {
    const unlisted = results
      .filter((r) => r.got.correct !== r.c.expected && !KNOWN_DISAGREEMENTS.has(r.line))
      .map((r) => `line ${r.line} (${r.c.source}): expected ${r.c.expected}, extracted ${JSON.stringify(r.got.extracted)}`);
    const stale = [...KNOWN_DISAGREEMENTS.keys()].filter((line) => results[line - 1]?.got.correct === results[line - 1]?.c.expected);
    expect(unlisted).toEqual([]);
    expect(stale).toEqual([]);
  });
});

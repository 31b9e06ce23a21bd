// What an answer format declares (docs/ARCHITECTURE.md "Answer formats"): how its gold answers
// are read, how an answer is extracted from a response and compared, what a wrong answer of the
// gold's kind is (the decoy), the condition a task of the format gets by default, and its version.
// Each format is one file of this folder, listed once in registry.ts.

import type { McMode } from '../types';

/** What every extractor returns when a response holds no answer; it counts as wrong. */
export const INVALID = '[invalid]';

/** The question an answer is extracted for: its gold answer (canonical) and its options. */
export interface AnswerContext {
  gold: string;
  choices?: string[];
}

export interface Format<Name extends string = string> {
  name: Name;
  /** How Setup's answer-format list names it. */
  label: string;
  /** The version of this format's rules: a condition of the format records it (graderVersion),
   *  so a changed rule never reuses records, keys or decoys of another format. */
  version: number;
  /** The canonical form of a gold answer; throws naming the gold when it cannot be read. */
  normalizeGold(gold: string): string;
  /** The answer in a free-text response, or INVALID. */
  extract(response: string, q: AnswerContext): string;
  /** The answer read only from the response's last \boxed{} (a condition's requireBoxed), or INVALID. */
  extractBoxed(response: string, q: AnswerContext): string;
  /** Whether an extracted answer (never INVALID) is the canonical answer `gold`. */
  equal(gold: string, extracted: string): boolean;
  /** The canonical key of an extracted answer: equal keys are one answer (majority vote). */
  key(extracted: string): string;
  /** A wrong answer of the gold's kind, drawn with `int` (a seeded integer below n); null when
   *  none can be made. */
  decoy(gold: string, choices: string[] | undefined, int: (n: number) => number): string | null;
  /** The default condition of a task file in this format. */
  promptTemplate: string;
  maxNewTokens: number;
  stopSequences: readonly string[];
  /** How answers are scored by default: generated, or (with options) by the log-likelihood of each
   *  option letter, in which case `generate` may be chosen instead. */
  scoring: McMode;
}

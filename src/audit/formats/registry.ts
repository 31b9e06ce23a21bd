// Every answer format ReachLab grades, listed once. Adding a format: one file in this folder
// exporting its Format, and one line in FORMATS. The format union, condition checks, the run file,
// the permalink, the CLI's choices, Setup's list and the task-file reader ask this module.

import { AuditError } from '../errors';
import type { Condition, McMode } from '../types';
import { exactFormat } from './exact';
import type { Format } from './format';
import { mathFormat } from './math';
import { mcLetterFormat } from './mc-letter';
import { numericFormat } from './numeric';

export const FORMATS = [numericFormat, mcLetterFormat, exactFormat, mathFormat] as const;

export type AnswerFormat = (typeof FORMATS)[number]['name'];

export const FORMAT_NAMES: readonly AnswerFormat[] = FORMATS.map((f) => f.name);

const byName = new Map<string, Format>(FORMATS.map((f) => [f.name, f]));

/** Adds a format of a test's own to FORMATS and the lookups below; returns its removal. Lists other
 *  modules derive when loaded see it when it is registered before they load. Tests only: the app's
 *  formats are FORMATS. */
export function registerFormat(format: Format): () => void {
  if (byName.has(format.name)) throw new AuditError('bad-input', `a format named "${format.name}" is registered already`);
  const lists = [[FORMATS, format], [FORMAT_NAMES, format.name]] as unknown as [unknown[], unknown][];
  byName.set(format.name, format);
  for (const [list, x] of lists) list.push(x);
  return () => {
    byName.delete(format.name);
    for (const [list, x] of lists) list.splice(list.indexOf(x), 1);
  };
}

export const isAnswerFormat = (s: unknown): s is AnswerFormat => typeof s === 'string' && byName.has(s);

/** The format a name names; throws on a name no format has. */
export function formatOf(name: string): Format<AnswerFormat> {
  const f = byName.get(name);
  if (!f) throw new AuditError('bad-input', `unknown answer format "${name}" (known: ${FORMAT_NAMES.join(', ')})`);
  return f as Format<AnswerFormat>;
}

/** The grader version a condition of this format records now (its format's own version). */
export const graderVersionOf = (name: AnswerFormat): number => formatOf(name).version;

/** Whether a condition's answers were extracted by this version's rules of its format: only then
 *  are its extracted answers in the canonical form this version's equality, keys and decoys use. */
export const gradedNow = (c: Pick<Condition, 'answerFormat' | 'graderVersion'>): boolean =>
  byName.get(c.answerFormat)?.version === c.graderVersion;

/** The canonical key of answers under a condition (majority vote); the answer itself when the
 *  condition is unknown or graded by another version. */
export function answerKeyOf(c: Pick<Condition, 'answerFormat' | 'graderVersion'> | null): (extracted: string) => string {
  return c !== null && gradedNow(c) ? formatOf(c.answerFormat).key : (x) => x;
}

/** The scoring a task or condition of the format gets: a log-likelihood format records its mode
 *  (the task's, default log-likelihood), the others none. */
export function scoringFields(name: AnswerFormat, mcMode?: McMode): { mcMode?: McMode } {
  return formatOf(name).scoring === 'loglik' ? { mcMode: mcMode ?? 'loglik' } : {};
}

/** Whether a format can be scored by log-likelihood over option letters. */
export const scoresByLoglik = (name: AnswerFormat): boolean => formatOf(name).scoring === 'loglik';

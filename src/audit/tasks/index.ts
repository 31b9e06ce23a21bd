// loadTask: one entry point from a task spec string to loaded questions.
//   builtin:arith-2d | builtin:arith-2d-mc | hub:gsm8k | hub:arc-easy | hub:arc-challenge |
//   hub:commonsense_qa | hub:mmlu:<subject> | file:<name>  (file needs `text` and `mapping`)

import { AuditError } from '../errors';
import type { AnswerFormat, LoadedTask } from '../types';
import { builtinTask } from './builtin';
import { fileTask, type TaskFileFormat, type TaskFileMapping } from './file';
import { hubTask, type FetchLike } from './hub';

export interface LoadTaskOptions {
  /** Test questions to load (default 100). */
  questions?: number;
  /** Train questions (default 200 for built-ins, 0 for Hub presets). */
  trainQuestions?: number;
  /** Seed of built-in generators (default 1). */
  seed?: number;
  fetch?: FetchLike;
  rowsEndpoint?: string;
  signal?: AbortSignal;
  /** file: the file's text, mapping and answer format. */
  file?: { text: string; mapping: TaskFileMapping; answerFormat: AnswerFormat; format?: TaskFileFormat };
}

export async function loadTask(spec: string, o: LoadTaskOptions = {}): Promise<LoadedTask> {
  const questions = o.questions ?? 100;
  if (!Number.isInteger(questions) || questions < 1) throw new AuditError('bad-input', `questions must be a positive integer, got ${questions}`);
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? '' : spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  switch (kind) {
    case 'builtin':
      try {
        return builtinTask(rest, { questions, trainQuestions: o.trainQuestions ?? 200, seed: o.seed ?? 1 });
      } catch (e) {
        throw new AuditError('bad-input', (e as Error).message);
      }
    case 'hub':
      return hubTask(rest, { questions, trainQuestions: o.trainQuestions ?? 0, endpoint: o.rowsEndpoint, fetch: o.fetch, signal: o.signal });
    case 'file':
      if (!o.file) throw new AuditError('bad-input', `task "${spec}" needs the file's text, a field mapping and an answer format`);
      return fileTask({ name: rest, questions, ...o.file });
    default:
      throw new AuditError('bad-input', `task spec "${spec}" must start with builtin:, hub: or file: (e.g. builtin:arith-2d)`);
  }
}

// A study permalink: the plan as written, JSON in base64url, in the URL hash:
//   #study=<base64url of the plan JSON>
// Opening such a link shows the Study screen with the plan in the editor; nothing starts by itself.
// Parsing is defensive: the link is data (decoded, JSON-parsed, re-serialized as JSON text; never
// evaluated, never HTML), and a corrupt or oversized link is refused with a message naming what is
// wrong. A link whose JSON is not a valid plan still lands in the editor, with the plan's problem.

import { loadTask } from '../../audit/index';
import { normalizePlan, type NormalizedPlan } from '../../audit/study-plan';
import { questionsRefusal, studyTaskOptions } from '../../store/study';
import { taskEntry, taskRows } from '../../audit/tasks/registry';
import { rowsRead } from '../stores/task-rows.svelte';
import { base64UrlDecode, base64UrlEncode } from './permalink';
import { JsonInputError, parseJsonInput } from '../../util/json-input';

/** The longest `study=` value read (base64url characters; about 12 KB of plan JSON). */
export const MAX_STUDY_LINK = 16_384;

export type StudyLink =
  /** The plan as pretty JSON text for the editor; `problem` when it is JSON but not a valid plan. */
  | { planText: string; problem?: string }
  /** Nothing usable: the link is corrupt or too long. */
  | { problem: string };

/** The hash of a link to this plan (the plan's JSON as written, compact). */
export function encodeStudyLink(plan: unknown): string {
  return `#study=${base64UrlEncode(JSON.stringify(plan))}`;
}

/** The study link in a URL hash; null when the hash carries none. */
export function parseStudyLink(hash: string): StudyLink | null {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!/(^|&)study=/.test(raw)) return null;
  // (the plan's length alone: the address also carries the setup's permalink, lib/address.ts)
  const value = new URLSearchParams(raw).get('study') ?? '';
  if (value.length > MAX_STUDY_LINK) return { problem: `The study link is too long (${value.length} characters; at most ${MAX_STUDY_LINK}), so it was not read.` };
  if (value === '') return { problem: 'The study link holds no plan (nothing after "study=").' };
  let text: string;
  try {
    text = base64UrlDecode(value);
  } catch {
    return { problem: 'The study link is corrupt: its plan is not base64url-encoded UTF-8 text (was the link cut off when copied?).' };
  }
  let plan: unknown;
  try {
    plan = parseJsonInput(text);
  } catch (e) {
    if (e instanceof JsonInputError) return { problem: `The study link's plan is refused: ${e.message}.` };
    return { problem: 'The study link is corrupt: its plan is not valid JSON (was the link cut off when copied?).' };
  }
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan)) return { problem: 'The study link is corrupt: its plan is not a JSON object.' };
  const planText = JSON.stringify(plan, null, 2);
  try {
    normalizePlan(plan);
    return { planText };
  } catch (e) {
    return { planText, problem: `The plan in the study link is not a valid plan (${(e as Error).message}); it is in the editor to fix.` };
  }
}

/** The plan's tasks that hold fewer questions than it asks for, each in the words the study CLI
 *  refuses it with: a built-in task generated as the CLI generates it, a Hub preset by its stated
 *  size. Other tasks are checked when they are loaded. */
export async function questionShortfalls(plan: NormalizedPlan): Promise<string[]> {
  const out: string[] = [];
  for (const task of plan.tasks) {
    const preset = task.startsWith('hub:') ? taskEntry(task) : undefined;
    const has = preset ? taskRows(preset, rowsRead(task)) : task.startsWith('builtin:') ? await loadTask(task, studyTaskOptions(plan)).then((t) => t.test.length, () => null) : null;
    if (has !== null && has < plan.questions) out.push(questionsRefusal(plan.questions, task, has));
  }
  return out;
}

// What the browser is told when the screen changes: the page title, and what a screen reader hears
// of a run's progress (polite, at most once per tenth of the run, and when its status changes).

import type { RunProgress } from '../backend';
import type { Screen } from '../stores/app.svelte';

/** Each screen's name (its page title, and the heading of its error when it cannot be drawn). */
export const SCREEN_NAMES: Record<Screen, string> = {
  setup: 'Set up an audit',
  run: 'Audit run',
  results: 'Results',
  question: 'Question',
  library: 'Library',
  compare: 'Checkpoint comparison',
  help: 'How to read this',
  study: 'Study',
  'study-report': 'Study report',
  walk: 'Guided walk',
};

/** The page title for a screen; a question's title names the question. */
export function screenTitle(screen: Screen, questionId: string | null = null): string {
  const name = screen === 'question' && questionId !== null ? `Question ${questionId}` : SCREEN_NAMES[screen];
  return `${name} · ReachLab`;
}

/** The tenth of the run reached (0–10), or the status, as the key of what was last announced. */
export function progressStep(p: RunProgress): string {
  if (p.status !== 'running') return p.status;
  return String(p.recordsTotal > 0 ? Math.floor((10 * p.recordsDone) / p.recordsTotal) : 0);
}

/** The sentence announced for a run's progress. */
export function progressSentence(p: RunProgress): string {
  const questions = `${p.questionsDone} of ${p.questionsTotal} questions`;
  if (p.status === 'running') return `Audit running: ${questions} done.`;
  if (p.status === 'finished') return `Audit finished: ${questions}. Results are ready.`;
  return `Audit ${p.status}: ${questions} done.${p.message ? ` ${p.message}` : ''}`;
}

// What a screen reader hears of a run's progress (polite, at most once per tenth of the run, and when
// its status changes). The screens themselves, their titles and tabs: src/ui/screens.ts.

import type { RunProgress } from '../backend';

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

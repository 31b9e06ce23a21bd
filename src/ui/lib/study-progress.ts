// The study's progress in words, shown at the top of the Study screen while it runs.

import type { StudyProgress } from '../../store/study-runner';
import { formatDuration } from './estimate';
import { timeLeftText, type TimeLeft } from './run-clock';

export interface StudyProgressLines {
  /** "Run 3 of 12", counting the run being worked on. */
  runs: string;
  /** The current run: what it is and its questions done; null between runs. */
  current: string | null;
  /** Time left for the whole study (from the wall clock, lib/run-clock.ts), or why it is not known yet. */
  eta: string;
  /** Time since this tab started the study. */
  elapsed: string;
}

export function studyProgressLines(p: StudyProgress, timeLeft: TimeLeft | null, elapsedMs: number): StudyProgressLines {
  const working = p.current ? p.runsDone + 1 : p.runsDone;
  const c = p.current;
  const questions = c?.questionsTotal === undefined ? '' : ` — ${c.questionsDone ?? 0} of ${c.questionsTotal} questions`;
  return {
    runs: `Run ${Math.min(working, p.runsTotal)} of ${p.runsTotal} (${p.runsDone} done)`,
    current: c ? `${c.model} · ${c.task} · ${c.label}${questions}` : null,
    eta: `Time left: ${timeLeftText(timeLeft, 'measured once a run has been computed')}`,
    elapsed: `Elapsed ${formatDuration(elapsedMs / 1000)}`,
  };
}

// The study's progress in words, shown at the top of the Study screen while it runs.

import type { StudyProgress } from '../../store/study-runner';
import { formatDuration } from './estimate';

export interface StudyProgressLines {
  /** "Run 3 of 12", counting the run being worked on. */
  runs: string;
  /** The current run: what it is and its questions done; null between runs. */
  current: string | null;
  /** Time left for the whole study, or why it is not known yet. */
  eta: string;
}

export function studyProgressLines(p: StudyProgress): StudyProgressLines {
  const working = p.current ? p.runsDone + 1 : p.runsDone;
  const c = p.current;
  const questions = c?.questionsTotal === undefined ? '' : ` — ${c.questionsDone ?? 0} of ${c.questionsTotal} questions`;
  return {
    runs: `Run ${Math.min(working, p.runsTotal)} of ${p.runsTotal} (${p.runsDone} done)`,
    current: c ? `${c.model} · ${c.task} · ${c.label}${questions}` : null,
    eta: p.etaSec == null ? 'Time left: measured once a run has been computed' : `About ${formatDuration(p.etaSec)} left`,
  };
}

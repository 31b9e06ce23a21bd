// A model load's progress in plain words ("Preparing the engine: layer 3"), never the engine's
// phase names ("session: layer 0").
import type { LoadPhase, LoadProgress } from '../../engine/types';

const PHASE_WORDS: Record<LoadPhase, string> = {
  config: 'Reading the model’s settings',
  download: 'Downloading',
  weights: 'Reading the weights',
  graph: 'Building the model',
  session: 'Preparing the engine',
};

/** What a load is doing, for the progress bar's label. */
export function loadProgressWords(p: LoadProgress): string {
  return p.item ? `${PHASE_WORDS[p.phase]}: ${p.item}` : PHASE_WORDS[p.phase];
}

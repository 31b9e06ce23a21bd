// Okabe–Ito colours (distinguishable under the common colour-vision deficiencies), one per meaning.
// Figures never rely on colour alone: lines also differ by dash and carry direct labels.

import type { ProbeName, ProbeSpec } from '../../audit/types';

export const OKABE_ITO = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
  grey: '#999999',
} as const;

export const PROBE_COLOR: Record<ProbeName, string> = {
  deployment: OKABE_ITO.black,
  'random-routes': OKABE_ITO.blue,
  'mcts-routes': OKABE_ITO.vermillion,
  'depth-matched-routes': OKABE_ITO.skyBlue,
  sampling: OKABE_ITO.bluishGreen,
  'mlp-silencing': OKABE_ITO.reddishPurple,
};

/** SVG stroke-dasharray per probe, so curves differ without colour. */
export const PROBE_DASH: Record<ProbeName, string> = {
  deployment: '2,3',
  'random-routes': 'none',
  'mcts-routes': '8,4',
  'depth-matched-routes': '1,3',
  sampling: '3,2',
  'mlp-silencing': '1,2',
};

export const EFFECT_COLOR = { repaired: OKABE_ITO.bluishGreen, broken: OKABE_ITO.vermillion } as const;

export const PROBE_LABEL: Record<ProbeName, string> = {
  deployment: 'deployment',
  'random-routes': 'random routes',
  'mcts-routes': 'MCTS routes',
  'depth-matched-routes': 'depth-matched routes',
  sampling: 'sampling',
  'mlp-silencing': 'MLP silencing',
};

const PRESET_NAME: Record<string, string> = { cola: 'CoLa', 'program-selection': 'program selection' };

/** A probe as screens and figures name it: MCTS and its depth-matched baseline by their preset,
 *  since a run may hold both presets (an earlier version's custom MCTS spec has none). */
export function probeLabel(spec: ProbeSpec): string {
  if (spec.probe !== 'mcts-routes' && spec.probe !== 'depth-matched-routes') return PROBE_LABEL[spec.probe];
  const preset = PRESET_NAME[spec.preset];
  return preset ? `${PROBE_LABEL[spec.probe]} (${preset})` : PROBE_LABEL[spec.probe];
}

/** Stroke colour and dash of a probe's curve; program-selection MCTS differs from CoLa's. */
export function probeStyle(spec: ProbeSpec): { color: string; dash: string } {
  if (spec.probe === 'mcts-routes' && spec.preset === 'program-selection') return { color: OKABE_ITO.orange, dash: '6,2,1,2' };
  return { color: PROBE_COLOR[spec.probe], dash: PROBE_DASH[spec.probe] };
}

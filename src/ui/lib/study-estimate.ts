// The built-in study's time before this device has timed a run of it: what `npm run -s bench:study`
// measured for the app (headless Chromium, WebAssembly, two shared cores). The home card states it;
// the Study screen shows it, as a guess, until the study has timed a run here.

import builtinPlan from '../../../studies/builtin.json';
import { normalizePlan, type NormalizedPlan } from '../../audit/study-plan';
import { canonicalJson } from '../../util/hash';

/** bench:study's chromium_wasm_s for studies/builtin.json on a 2-core machine (114.7 s on
 *  2026-12-08 with the cores otherwise idle, the CLI 83.1 s in the same run). */
export const BUILTIN_STUDY_SECONDS = 115;
/** The machine that time was measured on, as the card words it. */
export const BUILTIN_STUDY_MACHINE = 'a 2-core laptop (WebAssembly)';

const withoutName = ({ name: _name, ...rest }: NormalizedPlan) => canonicalJson(rest);
const BUILTIN = withoutName(normalizePlan(builtinPlan));

/** Seconds the whole plan takes on the bench machine: known for the built-in study only. */
export function studyPriorSeconds(plan: NormalizedPlan): number | null {
  return withoutName(plan) === BUILTIN ? BUILTIN_STUDY_SECONDS : null;
}

/** "about 9 minutes": the card's words for the built-in study's time. */
export function builtinStudyTime(): string {
  const min = Math.max(1, Math.round(BUILTIN_STUDY_SECONDS / 60));
  return `about ${min} ${min === 1 ? 'minute' : 'minutes'}`;
}

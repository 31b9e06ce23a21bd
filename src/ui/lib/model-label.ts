// How a run's model is named on screen: its name with the revision, written once.

import type { RunManifest } from '../../audit/types';

/** "owner/name@rev": the revision is appended unless the name already ends with it (Hub models do). */
export function modelLabel(model: Pick<RunManifest['model'], 'name' | 'revision'>): string {
  const rev = model.revision;
  return rev && !model.name.endsWith(`@${rev}`) ? `${model.name}@${rev}` : model.name;
}

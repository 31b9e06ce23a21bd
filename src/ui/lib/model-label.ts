// How a run's model is named on screen: its name with the revision and the Hub commit it resolved
// to, written once.

import type { RunManifest } from '../../audit/types';

const COMMIT_SHA = /^[0-9a-f]{40}$/;

/** A commit as the app shows it: a Hub sha's first 12 digits; another (a built-in model's build) as it is. */
export const commitLabel = (commit: string): string => (COMMIT_SHA.test(commit) ? commit.slice(0, 12) : commit);

/** "owner/name@rev (commit 1a2b3c4d5e6f)": the revision is appended unless the name already ends
 *  with it (Hub models do); the commit when the load resolved the revision to one. */
export function modelLabel(model: Pick<RunManifest['model'], 'name' | 'revision' | 'commit'>): string {
  const rev = model.revision;
  const named = rev && !model.name.endsWith(`@${rev}`) ? `${model.name}@${rev}` : model.name;
  return model.commit && COMMIT_SHA.test(model.commit) ? `${named} (commit ${commitLabel(model.commit)})` : named;
}

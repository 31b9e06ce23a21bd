// Setups of runs started in this browser, kept (without tokens) so that a run interrupted by a
// reload, a closed tab or a crash resumes from the Library with one click: starting the same setup
// again resumes the stored run under its id. Runs on picked folders or task files cannot be kept
// (a File does not survive a reload) and are resumed by setting them up again.

import type { RunSetup } from '../backend';

const PREFIX = 'reachlab:setup:';

type Store = Pick<Storage, 'getItem' | 'setItem'>;

/** The setup as it can be kept, or null when it needs files the browser cannot keep. */
export function keepableSetup(setup: RunSetup): RunSetup | null {
  if (setup.model.kind === 'files' || setup.task.kind === 'file') return null;
  const model = setup.model.kind === 'hub' ? { ...setup.model, token: undefined } : setup.model;
  return JSON.parse(JSON.stringify({ ...setup, model })) as RunSetup;
}

export function saveSetup(storage: Store | null, runId: string, setup: RunSetup): void {
  const kept = keepableSetup(setup);
  if (!kept) return;
  try {
    storage?.setItem(PREFIX + runId, JSON.stringify(kept));
  } catch {
    // storage full or disabled: the run still resumes by setting it up again
  }
}

/** The kept setup of a run; null when there is none or it is unreadable. */
export function loadSetup(storage: Store | null, runId: string): RunSetup | null {
  try {
    const s = JSON.parse(storage?.getItem(PREFIX + runId) ?? 'null') as Partial<RunSetup> | null;
    const ok = s && typeof s === 'object' && s.model && ['builtin', 'hub'].includes(s.model.kind) && s.task && ['builtin', 'hub'].includes(s.task.kind)
      && s.condition && Array.isArray(s.probes) && s.load && Number.isInteger(s.questionSeed); // kept before question seeds: not resumable
    return ok ? (s as RunSetup) : null;
  } catch {
    return null;
  }
}

/** The latest run an interruption stopped (a reload, a closed tab, a lost engine) that can resume
 *  with one click here, with its kept setup; null when there is none. Paused and cancelled runs
 *  were stopped on purpose and stay in the Library. */
export function interruptedRun<E extends { id: string; status: string; legacy: boolean; startedAt: string }>(entries: readonly E[], storage: Store | null): { entry: E; setup: RunSetup } | null {
  const newestFirst = entries.filter((e) => e.status === 'interrupted' && !e.legacy).sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  for (const entry of newestFirst) {
    const setup = loadSetup(storage, entry.id);
    if (setup) return { entry, setup };
  }
  return null;
}

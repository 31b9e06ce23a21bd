// Test-split sizes read from the source in this session (a Hub preset's num_rows_total, kept when a
// load read it), so Setup and the Study form show the live count rather than the declared one.

import type { LoadedTask } from '../../audit/types';

const read = $state<Record<string, number>>({});

/** The count a load read for a task ref ("hub:gsm8k"); undefined until one did. */
export function rowsRead(ref: string): number | undefined {
  return Object.hasOwn(read, ref) ? read[ref] : undefined;
}

/** Keeps the count the source reported for a loaded task; the task itself back. */
export function noteRowsRead(ref: string, task: LoadedTask): LoadedTask {
  if (task.sourceRows !== undefined) read[ref] = task.sourceRows;
  return task;
}

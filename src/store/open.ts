// The app's one way to get a RunStore: IndexedDB when it opens, else memory with the reason,
// so an audit always runs (and can be exported) even in a private window.

import type { OpenOptions } from './db.ts';
import { isStoreError } from './errors.ts';
import { IdbRunStore } from './idb-store.ts';
import { MemoryRunStore } from './memory-store.ts';
import type { RunStore } from './store.ts';

export interface OpenedStore {
  store: RunStore;
  /** Set when the store is in memory: what to tell the user. */
  warning?: string;
}

export async function openRunStore(opts: OpenOptions & { keyRange?: typeof IDBKeyRange } = {}): Promise<OpenedStore> {
  try {
    return { store: await IdbRunStore.open(opts) };
  } catch (e) {
    if (!isStoreError(e) || (e.code !== 'unavailable' && e.code !== 'blocked')) throw e;
    return { store: new MemoryRunStore(e.message), warning: e.message };
  }
}

// Starts an import worker (one per import; src/store/import-remote.ts ends it when the import settles).
export function spawnImporter(): Worker {
  return new Worker(new URL('../../workers/import.worker.ts', import.meta.url), { type: 'module', name: 'reachlab-import' });
}

// Starts a fresh engine worker and connects to it (one per engine; a crashed or GPU-lost engine is
// replaced by calling this again — no page reload).
import { connectEngine, type RemoteEngine } from './remote';

export function spawnEngine(): RemoteEngine {
  const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'reachlab-engine' });
  return connectEngine(worker);
}

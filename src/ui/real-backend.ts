// The AppBackend over the engine worker, the audit API and the IndexedDB store: wired by the lead.

import type { AppBackend } from './backend';

export async function createRealBackend(): Promise<AppBackend> {
  throw new Error('engine backend not wired: open the app with ?fake=1 for the scripted demo backend');
}

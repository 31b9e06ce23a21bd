// Picks the AppBackend: in development builds `?fake=1` in the URL runs the real audit over a fake
// engine, in memory (testing/test-backend.ts; a banner says so); otherwise, and always in
// production builds, the engine worker over the IndexedDB store (./real-backend). Both load
// lazily, as separate chunks; production builds hold no fake engine.

import type { AppBackend } from './backend';

export interface CreatedBackend {
  backend: AppBackend;
  /** The fake engine runs instead of a model (the app shows a banner). */
  scripted: boolean;
}

export async function createBackend(url: URL): Promise<CreatedBackend> {
  if (import.meta.env.DEV && url.searchParams.get('fake') === '1') {
    const { TestBackend } = await import('./testing/test-backend');
    return { backend: new TestBackend({ delayMs: 40, browser: navigator }), scripted: true };
  }
  const { createRealBackend } = await import('./real-backend');
  return { backend: await createRealBackend(), scripted: false };
}

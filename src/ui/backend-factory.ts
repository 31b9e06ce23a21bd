// Picks the AppBackend: the scripted fake with ?fake=1 in the URL (dev and UI tests), otherwise the
// real one (engine worker + audit + store, in ./real-backend). Both load lazily, as separate chunks.

import type { AppBackend } from './backend';

export async function createBackend(url: URL): Promise<AppBackend> {
  if (url.searchParams.get('fake') === '1') {
    const { createFakeBackend } = await import('./testing/fake-backend');
    return createFakeBackend();
  }
  const { createRealBackend } = await import('./real-backend');
  return createRealBackend();
}

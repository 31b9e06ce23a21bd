// Picks the AppBackend: in development builds `?fake=1` in the URL runs the scripted fake (a banner
// says so); otherwise, and always in production builds, the real one (engine worker + audit + store,
// in ./real-backend). Both load lazily, as separate chunks; production builds hold no fake.

import type { AppBackend } from './backend';

export interface CreatedBackend {
  backend: AppBackend;
  /** The scripted fake is running (the app shows a banner). */
  scripted: boolean;
}

export async function createBackend(url: URL): Promise<CreatedBackend> {
  if (import.meta.env.DEV && url.searchParams.get('fake') === '1') {
    const { createFakeBackend } = await import('./testing/fake-backend');
    return { backend: createFakeBackend(), scripted: true };
  }
  const { createRealBackend } = await import('./real-backend');
  return { backend: await createRealBackend(), scripted: false };
}

// Registers the service worker (production builds) once the page's first model load has settled.
// That load fetches ORT's 25 MB wasm; the service worker's precache fetches the same file. In flight
// together in Chromium, one of them fails (ERR_CACHE_WRITE_FAILURE: ORT logs "wasm streaming compile
// failed" and falls back to a slower path). One after the other, both succeed.

export function registerOfflineWorker(settled: () => boolean): void {
  if (import.meta.env.DEV || !('serviceWorker' in navigator)) return;
  let done = false;
  const stop = $effect.root(() => {
    $effect(() => {
      if (done || !settled()) return;
      done = true;
      const base = import.meta.env.BASE_URL;
      navigator.serviceWorker.register(`${base}sw.js`, { scope: base }).catch((e: unknown) => {
        // the app works online without it; offline starts need it
        console.warn(`service worker not registered: ${e instanceof Error ? e.message : String(e)}`);
      });
      queueMicrotask(stop);
    });
  });
}

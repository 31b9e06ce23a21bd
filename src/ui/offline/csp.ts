// The production build's Content-Security-Policy, defined once: vite.config.ts puts it in the built
// pages as a meta tag and sends it from `vite preview`, and the service worker adds it to what it
// serves. No 'unsafe-eval' (ORT needs only 'wasm-unsafe-eval' to compile its WebAssembly); workers
// from the app's origin (and blob:, which ORT's threads may use); the network only to the app's
// origin, the Hugging Face Hub and its file hosts, a stand-in Hub on this machine, and any mirror
// named at build time (REACHLAB_HUB_MIRRORS, space-separated origins).

/** Where a model or dataset may be fetched from, besides the app's own origin. */
const HUB_ORIGINS = [
  'https://huggingface.co',
  'https://*.huggingface.co',
  'https://*.hf.co',
  'http://localhost:*',
  'http://127.0.0.1:*',
] as const;

/** An origin a mirror is named by: scheme, host (a leading *. allowed), optional port. */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9.-]+(:(\d+|\*))?$/i;

/** The directives; `frame-ancestors` only as a header (browsers ignore it in a meta tag). */
function cspDirectives(mirrors: readonly string[] = []): string[] {
  for (const m of mirrors) if (!ORIGIN.test(m)) throw new Error(`REACHLAB_HUB_MIRRORS: "${m}" is not an origin like https://mirror.example`);
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    // Svelte and Observable Plot set style attributes and <style> in figures; no script runs from them.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' blob: data: ${[...HUB_ORIGINS, ...mirrors].join(' ')}`,
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ];
}

/** The policy as a meta tag carries it. */
export function cspMeta(mirrors: readonly string[] = []): string {
  return cspDirectives(mirrors).join('; ');
}

/** The policy as a header carries it. */
export function cspHeader(mirrors: readonly string[] = []): string {
  return [...cspDirectives(mirrors), "frame-ancestors 'none'"].join('; ');
}

/** REACHLAB_HUB_MIRRORS as a list of origins. */
export function mirrorsFrom(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((s) => s.length > 0);
}

import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { offlineWorker } from './src/ui/offline/build.ts';
import { ISOLATION_HEADERS } from './src/ui/offline/isolation.ts';
import { cspHeader, cspMeta, mirrorsFrom } from './src/ui/offline/csp.ts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
process.env.VITE_APP_VERSION = pkg.version;

// The production build's Content-Security-Policy (src/ui/offline/csp.ts); a Hub mirror is allowed by
// naming its origin at build time: REACHLAB_HUB_MIRRORS="https://mirror.example" npm run build.
const mirrors = mirrorsFrom(process.env.REACHLAB_HUB_MIRRORS);
const CSP_HEADERS = { 'Content-Security-Policy': cspHeader(mirrors) };
// the commit the app is built from, exported with every study report ("unknown" outside a git checkout)
try {
  process.env.VITE_APP_COMMIT = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  process.env.VITE_APP_COMMIT = 'unknown';
}

export default defineConfig({
  plugins: [
    svelte(),
    // Offline and cross-origin isolation on any static host: the service worker (src/ui/offline/sw.ts)
    // precaches the app shell and ORT's runtime files and adds COOP/COEP to what it serves; the page
    // registers it (src/ui/offline/register.svelte.ts) once its first model load has settled.
    offlineWorker('src/ui/offline/sw.ts', cspHeader(mirrors)),
    {
      // the policy in every built page, ahead of any script (the dev server, with its inline HMR
      // client, runs without one)
      name: 'reachlab-csp-meta',
      apply: 'build',
      transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: cspMeta(mirrors) }, injectTo: 'head-prepend' }],
    },
  ],
  // No SPA fallback: a missing file must answer 404 (the Hub reader probes optional files).
  appType: 'mpa',
  worker: { format: 'es' },
  // ORT ships its own wasm/mjs loaders; let it fetch them from public/ort/ instead of pre-bundling.
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  build: {
    target: 'es2022',
    sourcemap: false, // no public source maps
    rollupOptions: { input: { main: 'index.html', selftest: 'selftest.html' } },
  },
  // cross-origin isolation lets ORT use SharedArrayBuffer (multi-threaded WASM)
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: { ...ISOLATION_HEADERS, ...CSP_HEADERS } },
});

import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readFileSync } from 'node:fs';
import { offlineWorker } from './src/ui/offline/build.ts';
import { ISOLATION_HEADERS } from './src/ui/offline/isolation.ts';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
process.env.VITE_APP_VERSION = pkg.version;

export default defineConfig({
  plugins: [
    svelte(),
    // Offline and cross-origin isolation on any static host: the service worker (src/ui/offline/sw.ts)
    // precaches the app shell and ORT's runtime files and adds COOP/COEP to what it serves; the page
    // registers it (src/ui/offline/register.svelte.ts) once its first model load has settled.
    offlineWorker('src/ui/offline/sw.ts'),
  ],
  // No SPA fallback: a missing file must answer 404 (the Hub reader probes optional files).
  appType: 'mpa',
  worker: { format: 'es' },
  // ORT ships its own wasm/mjs loaders; let it fetch them from public/ort/ instead of pre-bundling.
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  build: {
    target: 'es2022',
    sourcemap: true,
    rollupOptions: { input: { main: 'index.html', selftest: 'selftest.html' } },
  },
  // cross-origin isolation lets ORT use SharedArrayBuffer (multi-threaded WASM)
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
});

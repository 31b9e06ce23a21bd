import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
process.env.VITE_APP_VERSION = pkg.version;

export default defineConfig({
  plugins: [svelte()],
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
  server: {
    headers: {
      // cross-origin isolation lets ORT use SharedArrayBuffer (multi-threaded WASM).
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    },
  },
  preview: {
    headers: {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    },
  },
});

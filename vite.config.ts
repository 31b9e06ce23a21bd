import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readFileSync } from 'node:fs';
import { VitePWA } from 'vite-plugin-pwa';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
process.env.VITE_APP_VERSION = pkg.version;

export default defineConfig({
  plugins: [
    svelte(),
    // Offline: a service worker precaches the app shell and ORT's runtime files, so after one visit
    // the app starts with no network. Model files are not precached: the weight cache
    // (src/store/weight-cache.ts) keeps the models a user has loaded.
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: 'script',
      manifest: {
        name: 'ReachLab',
        short_name: 'ReachLab',
        description: 'Audit small language models: realized vs reachable, question by question.',
        theme_color: '#1f3a5f',
        background_color: '#ffffff',
        display: 'standalone',
        icons: [],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,wasm,mjs,webmanifest,svg}'],
        globIgnores: ['hub/**'],
        // ORT's WebGPU+wasm runtime is ~28 MB.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
        navigateFallback: null,
      },
    }),
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

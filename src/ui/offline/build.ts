// Build-time only (vite.config.ts): after the app is built, lists its files for the service worker's
// precache and builds src/ui/offline/sw.ts into dist/sw.js with that list in place of
// self.__WB_MANIFEST. The runtime side stays Workbox (workbox-precaching); only the file list is
// written here, because workbox-build (through vite-plugin-pwa) brings Babel and Rollup, about
// 35 MB, into every npm ci for a directory listing and a hash per file.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { build, type Plugin, type ResolvedConfig } from 'vite';

/** What the app needs offline: the shell, its scripts and styles, ORT's runtime, icons. */
const PRECACHE = /\.(js|mjs|css|html|wasm|webmanifest|svg|png)$/;
/** Models come through the weight cache, not the precache; the worker does not list itself. */
const SKIP = [/^hub\//, /^sw\.js$/];
/** ORT's WebGPU + wasm runtime is about 28 MB. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface PrecacheEntry {
  url: string;
  /** null for Vite's hashed assets/ files: the name already changes with the content. */
  revision: string | null;
}

/** Vite names everything it emits under assets/ `name-<hash>.ext`. */
const HASHED = /^assets\//;

/** Every file under `dir` the precache takes, with a content hash as its revision (unless its name
 *  is hashed), sorted by URL. */
export function precacheEntries(dir: string): PrecacheEntry[] {
  const out: PrecacheEntry[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const url = relative(dir, path).split(sep).join('/');
        if (!PRECACHE.test(url) || SKIP.some((re) => re.test(url)) || statSync(path).size > MAX_FILE_BYTES) continue;
        out.push({ url, revision: HASHED.test(url) ? null : createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 32) });
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => a.url.localeCompare(b.url));
}

/** Vite plugin: builds `swSrc` into `<outDir>/sw.js` (one IIFE) once the app's build is written;
 *  `csp` is the Content-Security-Policy header the worker adds to what it serves. */
export function offlineWorker(swSrc: string, csp: string): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'reachlab-offline-worker',
    apply: 'build',
    configResolved(c) {
      config = c;
    },
    async closeBundle() {
      const outDir = resolve(config.root, config.build.outDir);
      await build({
        configFile: false,
        root: config.root,
        logLevel: 'warn',
        define: {
          'self.__WB_MANIFEST': JSON.stringify(precacheEntries(outDir)),
          'process.env.NODE_ENV': JSON.stringify('production'), // Workbox's dev logging off
          __REACHLAB_CSP__: JSON.stringify(csp),
        },
        build: {
          outDir,
          emptyOutDir: false,
          copyPublicDir: false,
          target: config.build.target,
          sourcemap: false, // no public source maps
          lib: { entry: resolve(config.root, swSrc), formats: ['iife'], name: 'reachlabServiceWorker', fileName: () => 'sw.js' },
        },
      });
    },
  };
}

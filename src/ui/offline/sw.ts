// The service worker: precaches the app shell and ORT's runtime so the app starts offline after one
// visit, and serves the app's pages and scripts cross-origin isolated (COOP/COEP) even from a static
// host that sends no such headers, so ORT may use WebAssembly threads (SharedArrayBuffer), with the
// Content-Security-Policy header. Hub files
// are not precached: the weight cache (src/store/weight-cache.ts) keeps the models a person loaded.
import { clientsClaim } from 'workbox-core';
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import { withIsolation } from './isolation';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };
/** The build's Content-Security-Policy header (src/ui/offline/csp.ts), put in by offlineWorker. */
declare const __REACHLAB_CSP__: string;

addPlugins([{ handlerWillRespond: async ({ response }) => withIsolation(response, { 'Content-Security-Policy': __REACHLAB_CSP__ }) }]);
// the app reads its query (?ep=, links carry #hash): any query still means the precached page
precacheAndRoute(self.__WB_MANIFEST, { ignoreURLParametersMatching: [/.*/] });
cleanupOutdatedCaches();
void self.skipWaiting();
clientsClaim();

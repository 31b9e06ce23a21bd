// The service worker: precaches the app shell and ORT's runtime so the app starts offline after one
// visit, and serves the app's pages and scripts cross-origin isolated (COOP/COEP) even from a static
// host that sends no such headers, so ORT may use WebAssembly threads (SharedArrayBuffer). Hub files
// are not precached: the weight cache (src/store/weight-cache.ts) keeps the models a person loaded.
import { clientsClaim } from 'workbox-core';
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import { withIsolation } from './isolation';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

addPlugins([{ handlerWillRespond: async ({ response }) => withIsolation(response) }]);
// the app reads its query (?ep=, links carry #hash): any query still means the precached page
precacheAndRoute(self.__WB_MANIFEST, { ignoreURLParametersMatching: [/.*/] });
cleanupOutdatedCaches();
void self.skipWaiting();
clientsClaim();

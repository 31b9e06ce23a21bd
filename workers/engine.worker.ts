// The engine's home in the browser: a module worker serving one in-process Engine over comlink.
// Hub checkpoints go through the weight cache (Cache API), so a model loaded once loads again
// offline; where the Cache API is unavailable they stream from the Hub as before.
import { createEngine } from '../src/engine/engine';
import { exposeEngine } from '../src/engine/remote';
import { HubReader } from '../src/engine/sources/hub';
import { openReader } from '../src/engine/sources/reader';
import { cachingHubReader } from '../src/store/cached-reader';
import { WeightCache } from '../src/store/weight-cache';

const cache = WeightCache.open().catch((e: unknown) => {
  console.warn(`weight cache unavailable: ${e instanceof Error ? e.message : String(e)}`);
  return null;
});

exposeEngine(
  createEngine({
    openReader: (source, onBytes, opts) =>
      source.kind === 'hub'
        ? cachingHubReader(new HubReader(source, onBytes, undefined, { signal: opts?.signal }), cache, { token: source.token, onBytes })
        : openReader(source, onBytes, opts),
  }),
);

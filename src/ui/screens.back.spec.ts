// @vitest-environment jsdom
// Back and Forward through the screens, over jsdom's history.

import { describe, expect, it } from 'vitest';
import { AddressBar } from './lib/address';
import { AppState } from './stores/app.svelte';
import { TestBackend, auditedRun } from './testing/test-backend';

/** The real backend over the fake engine, holding one finished run. */
const backend = new TestBackend();
const runs = { r2: await auditedRun(4, backend) };
const q1 = runs.r2.records[0]!.doc_id;
const fresh = () => new AppState(backend, null);

describe('Back', () => {
  it('returns through the screens the person moved through, with their parameters', async () => {
    history.replaceState(null, '', '#');
    const app = fresh();
    const bar = new AddressBar(window);
    const stop = bar.watch((h) => void app.openAddress(h));
    // what App.svelte's effect does on each change of route
    const shown = () => bar.show(app.route, app.address, app.routeFromAddress);
    shown();
    app.go('library');
    shown();
    app.openRun(runs.r2);
    shown();
    app.openQuestion(q1);
    shown();
    expect(location.hash).toBe(`#${new URLSearchParams({ screen: 'question', run: runs.r2.manifest.id, q: q1 })}&${app.setup.permalink.slice(1)}`);

    const back = async (): Promise<void> => {
      const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
      history.back();
      await popped;
      await new Promise((r) => setTimeout(r, 0)); // the run is read from the store
      shown();
    };
    await back();
    expect(app.route).toEqual({ name: 'results', run: runs.r2 });
    await back();
    expect(app.route).toEqual({ name: 'library' });
    await back();
    expect(app.screen).toBe('setup');
    // going Back wrote no step of its own: Forward still leads to the library
    const forward = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
    history.forward();
    await forward;
    await new Promise((r) => setTimeout(r, 0));
    expect(app.screen).toBe('library');
    stop();
  });
});

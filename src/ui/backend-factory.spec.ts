// The development page `?fake=1`: the real backend over the fake engine, in memory, and said so.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEPLOYMENT } from '../audit';
import { createBackend } from './backend-factory';
import { TestBackend, runToEnd, testSetup } from './testing/test-backend';

describe('createBackend with ?fake=1 (development builds)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('runs the real audit over the fake engine and flags the banner', async () => {
    vi.stubGlobal('navigator', { onLine: true });
    const { backend, scripted } = await createBackend(new URL('http://localhost/?fake=1'));
    expect(scripted).toBe(true);
    expect(backend).toBeInstanceOf(TestBackend);
    expect(await backend.listRuns()).toEqual([]); // nothing stored before
    const run = await runToEnd(backend as TestBackend, testSetup([{ probe: DEPLOYMENT }], 2));
    expect(run.manifest.status).toBe('finished');
    expect(run.records).toHaveLength(2);
    expect((await backend.environment()).gpu.status).toBe('missing'); // the page's navigator has no GPU here
  });
});

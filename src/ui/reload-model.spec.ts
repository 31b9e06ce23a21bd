// Reload model on a Hub model re-asks the Hub for the revision's commit: the same commit keeps what
// is loaded, a moved one loads anew, an unreachable Hub keeps what is loaded.
import { describe, expect, it, vi } from 'vitest';
import { EngineError } from '../engine/types';
import type { ModelChoice } from './backend';
import { TestBackend } from './testing/test-backend';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const HUB: ModelChoice = { kind: 'hub', repo: 'org/model', revision: 'main' };
const OPTS = { ep: 'wasm', dtype: 'f32' } as const;

describe('Reload model on a Hub model', () => {
  it('loads anew when the revision moved to another commit, and only then', async () => {
    /** The commit the Hub's main names now; null: the Hub cannot be reached. */
    let main: string | null = A;
    const backend = new TestBackend({ repoInfo: async () => (main === null ? Promise.reject(new EngineError('network', 'offline')) : { sha: main, gated: false, files: {} }) });
    const engine = backend.engines[0];
    const fakeLoad = engine.load.bind(engine);
    // a load reads the files at the commit main names
    const loads = vi.spyOn(engine, 'load').mockImplementation(async (...a) => ({ ...(await fakeLoad(...a)), commit: main ?? A }));

    expect((await backend.loadModel(HUB, OPTS, () => {})).commit).toBe(A);
    expect((await backend.loadModel(HUB, OPTS, () => {})).commit).toBe(A);
    expect(loads, 'the same commit: what is loaded stays').toHaveBeenCalledTimes(1);

    main = B;
    expect((await backend.loadModel(HUB, OPTS, () => {})).commit).toBe(B);
    expect(loads, 'main moved: loaded anew').toHaveBeenCalledTimes(2);

    main = null;
    expect((await backend.loadModel(HUB, OPTS, () => {})).commit).toBe(B);
    expect(loads, 'the Hub unreachable: what is loaded stays').toHaveBeenCalledTimes(2);
  });
});

import { describe, expect, it } from 'vitest';
import { runProvenance } from './provenance';
import type { RunManifest } from './types';

const manifest: RunManifest = {
  id: 'run-a',
  appVersion: '0',
  model: { fingerprint: 'fp-a', name: 'org/model', source: 'hub:org/model', revision: 'main' },
  task: { id: 't', version: 1, questions: 5, question_seed: 1 },
  condition: null,
  condition_key: 'k',
  probes: [{ probe: 'deployment' }],
  engine: { ep: 'wasm', dtype: 'f32' },
  startedAt: '',
  status: 'finished',
};

describe("a cited run's provenance", () => {
  it("names the Hub commit its model's revision resolved to, where the manifest knows it", () => {
    const commit = 'a'.repeat(40);
    expect(runProvenance('key', { ...manifest, model: { ...manifest.model, commit } }).model).toEqual({ name: 'org/model', source: 'hub:org/model', revision: 'main', commit, fingerprint: 'fp-a', chat_template: null });
    // no commit known: no field, so such a report reads as before
    expect(runProvenance('key', manifest).model).not.toHaveProperty('commit');
  });
});

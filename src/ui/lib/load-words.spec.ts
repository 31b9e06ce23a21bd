import { describe, expect, it } from 'vitest';
import { loadProgressWords } from './load-words';

describe('loadProgressWords', () => {
  it('names what the load does in plain words, never the phase name', () => {
    expect(loadProgressWords({ phase: 'session', item: 'layer 0', loadedBytes: 0, totalBytes: 1 })).toBe('Preparing the engine: layer 0');
    expect(loadProgressWords({ phase: 'download', item: 'model.safetensors', loadedBytes: 1, totalBytes: 2 })).toBe('Downloading: model.safetensors');
    expect(loadProgressWords({ phase: 'config', loadedBytes: 0, totalBytes: 0 })).toBe('Reading the model’s settings');
  });
});

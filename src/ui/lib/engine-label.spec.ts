import { describe, expect, it } from 'vitest';
import { engineLabel, epWords } from './engine-label';

describe('engineLabel', () => {
  it('names each execution provider, never a native run as WebAssembly', () => {
    expect(epWords('cpu')).toBe('native CPU');
    expect(engineLabel({ ep: 'wasm' })).toBe('WebAssembly');
    expect(engineLabel({ ep: 'webgpu' })).toBe('WebGPU');
    expect(engineLabel({ ep: 'cpu' })).toBe('native CPU');
    expect(engineLabel({ ep: 'cuda' })).toBe('CUDA');
  });
  it('adds the onnxruntime build and version when the run recorded them', () => {
    expect(engineLabel({ ep: 'cpu', runtime: { name: 'onnxruntime-node', version: '1.31.1' } })).toBe('native CPU (onnxruntime-node 1.31.1)');
    expect(engineLabel({ ep: 'webgpu', runtime: { name: 'onnxruntime-node', version: '1.31.1' } })).toBe('WebGPU (onnxruntime-node 1.31.1)');
  });
});

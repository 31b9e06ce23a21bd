import { describe, expect, it } from 'vitest';
import { checkEp, engineOf, epLine, parseEp } from './ep-flag.ts';
import type { ModelInfo } from '../../src/engine/types.ts';

const info = (o: Partial<ModelInfo>) => ({ ep: 'wasm', dtype: 'f32', ...o }) as ModelInfo;

describe('--ep', () => {
  it('takes webgpu or wasm (default wasm) and names the choices otherwise', () => {
    expect(parseEp(undefined)).toBe('wasm');
    expect(parseEp('webgpu')).toBe('webgpu');
    expect(() => parseEp('cuda')).toThrow('--ep must be one of webgpu, wasm, got "cuda"');
  });

  it('refuses a load that fell back to another EP, with the engine\'s reason', () => {
    expect(() => checkEp(info({ fallbackReason: 'WebGPU unavailable: no adapter' }), 'webgpu')).toThrow('--ep webgpu: the engine loaded on wasm (WebGPU unavailable: no adapter)');
    expect(() => checkEp(info({ ep: 'webgpu' }), 'webgpu')).not.toThrow();
  });

  it('names the adapter where there is one', () => {
    const gpu = info({ ep: 'webgpu', dtype: 'q4f16', adapter: 'nvidia hopper (NVIDIA H100)' });
    expect(engineOf(gpu)).toEqual({ ep: 'webgpu', dtype: 'q4f16', adapter: 'nvidia hopper (NVIDIA H100)' });
    expect(engineOf(info({}))).toEqual({ ep: 'wasm', dtype: 'f32' });
    expect(epLine(gpu)).toBe('engine: webgpu on nvidia hopper (NVIDIA H100), q4f16');
  });
});

import { describe, expect, it } from 'vitest';
import { checkEp, engineOf, epLine, epLoad, parseEp } from './ep-flag.ts';
import { hasNativeRuntime } from '../../src/engine/ort.ts';
import type { ModelInfo } from '../../src/engine/types.ts';

const info = (o: Partial<ModelInfo>) => ({ ep: 'wasm', dtype: 'f32', ...o }) as ModelInfo;
const node = { name: 'onnxruntime-node', version: '1.31.1' } as const;

describe('--ep', () => {
  it('takes cpu, cuda, webgpu, webgpu-web or wasm and names the choices otherwise', () => {
    expect(parseEp(undefined)).toBe('default');
    expect(parseEp('webgpu')).toBe('webgpu');
    expect(parseEp('cpu')).toBe('cpu');
    expect(() => parseEp('gpu')).toThrow('--ep must be one of cpu, cuda, webgpu, webgpu-web, wasm, got "gpu"');
  });

  it('defaults to the native cpu provider where the native package is installed, else wasm', async () => {
    expect(await epLoad('default')).toEqual({ ep: (await hasNativeRuntime()) ? 'cpu' : 'wasm' });
    expect(await epLoad('webgpu-web')).toEqual({ ep: 'webgpu', runtime: 'onnxruntime-web' });
    expect(await epLoad('cuda')).toEqual({ ep: 'cuda' });
  });

  it('refuses a load that fell back to another EP or runtime, with the engine\'s reason', () => {
    expect(() => checkEp(info({ fallbackReason: 'WebGPU unavailable: no adapter' }), 'webgpu')).toThrow('--ep webgpu: the engine loaded on wasm (WebGPU unavailable: no adapter)');
    expect(() => checkEp(info({ ep: 'webgpu' }), 'webgpu')).not.toThrow();
    expect(() => checkEp(info({ ep: 'webgpu', runtime: node }), { ep: 'webgpu', runtime: 'onnxruntime-web' })).toThrow('--ep webgpu on onnxruntime-web: the engine loaded on onnxruntime-node');
  });

  it('names the runtime and the adapter where there is one', () => {
    const gpu = info({ ep: 'webgpu', dtype: 'q4f16', adapter: 'nvidia hopper (NVIDIA H100)' });
    expect(engineOf(gpu)).toEqual({ ep: 'webgpu', dtype: 'q4f16', adapter: 'nvidia hopper (NVIDIA H100)' });
    expect(engineOf(info({ ep: 'cpu', runtime: node }))).toEqual({ ep: 'cpu', dtype: 'f32', runtime: node });
    expect(epLine(gpu)).toBe('engine: webgpu on nvidia hopper (NVIDIA H100), q4f16');
    expect(epLine(info({ ep: 'cpu', runtime: node }))).toBe('engine: cpu (onnxruntime-node 1.31.1), f32');
  });
});

import { describe, expect, it } from 'vitest';
import { defaultRuntime, getOrt, hasNativeRuntime, runtimeOf, runtimeRefusal } from './ort.ts';

describe('the runtime an EP runs on', () => {
  it('refuses an EP on a runtime that has none, naming which runs it', async () => {
    expect(await runtimeRefusal('wasm', 'onnxruntime-node')).toBe("the wasm EP is onnxruntime-web's: onnxruntime-node runs cpu, webgpu and cuda");
    expect(await runtimeRefusal('cpu', 'onnxruntime-web')).toBe("the cpu EP is onnxruntime-node's: onnxruntime-web runs wasm and webgpu");
    expect(await runtimeRefusal('wasm')).toBeNull();
  });

  it('runs cpu on onnxruntime-node where the native package is installed, else names its install', async () => {
    expect(await defaultRuntime('cpu')).toBe('onnxruntime-node');
    expect(await defaultRuntime('wasm')).toBe('onnxruntime-web');
    if (await hasNativeRuntime()) {
      expect(runtimeOf(await getOrt('cpu'))).toEqual({ name: 'onnxruntime-node', version: '1.31.1' });
      expect(await defaultRuntime('webgpu')).toBe('onnxruntime-node');
    } else {
      await expect(getOrt('cpu')).rejects.toThrow('the cpu EP needs onnxruntime-node, which is not installed: run npm --prefix native ci');
      expect(await defaultRuntime('webgpu')).toBe('onnxruntime-web');
    }
    expect(runtimeOf(await getOrt('wasm'))).toEqual({ name: 'onnxruntime-web', version: '1.31.1' });
  });
});

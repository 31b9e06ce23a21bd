import { describe, expect, it } from 'vitest';
import { adapterInfoOf, adapterLabel } from './adapter.ts';

describe('adapter', () => {
  it('reads GPUAdapterInfo getters into plain data and names vendor, architecture, device and driver', () => {
    class Info {
      get vendor() { return 'nvidia'; }
      get architecture() { return 'hopper'; }
      get device() { return 'NVIDIA H100 80GB HBM3'; }
      get description() { return 'NVIDIA: 550.54.15'; }
    }
    const a = adapterInfoOf(new Info() as unknown as GPUAdapterInfo);
    expect(a).toEqual({ vendor: 'nvidia', architecture: 'hopper', device: 'NVIDIA H100 80GB HBM3', description: 'NVIDIA: 550.54.15', isFallbackAdapter: false });
    expect(adapterLabel(a)).toBe('nvidia hopper (NVIDIA H100 80GB HBM3, NVIDIA: 550.54.15)');
  });

  it('says when the adapter is a software fallback, and when the driver names nothing', () => {
    expect(adapterLabel(adapterInfoOf({ vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true }))).toBe('google swiftshader (fallback adapter)');
    expect(adapterLabel(adapterInfoOf(undefined))).toBe('unknown adapter');
  });
});

// The WebGPU adapter an engine runs on, as plain data and as one line for people (model info,
// records' provenance, reports).

/** The adapter, as GPUAdapterInfo reports it (empty strings where the driver says nothing). */
export interface AdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
}

/** GPUAdapterInfo as plain data (its fields are getters on the prototype). */
export function adapterInfoOf(info: Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean } | undefined): AdapterInfo {
  return {
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    device: info?.device ?? '',
    description: info?.description ?? '',
    isFallbackAdapter: info?.isFallbackAdapter ?? false,
  };
}

/** One line naming an adapter: "nvidia ampere (NVIDIA H100 80GB HBM3, driver …)". */
export function adapterLabel(a: AdapterInfo): string {
  const name = [a.vendor, a.architecture].filter(Boolean).join(' ') || 'unknown adapter';
  const detail = [a.device, a.description].filter((s, i, all) => s && all.indexOf(s) === i).join(', ');
  return `${name}${detail ? ` (${detail})` : ''}${a.isFallbackAdapter ? ' (fallback adapter)' : ''}`;
}

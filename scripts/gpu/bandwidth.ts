// The GPU's memory bandwidth as a WebGPU copy kernel measures it (16-byte loads and stores over a
// buffer far larger than any cache), on a device of its own: the ceiling a decode's share is taken of.

const COPY = /* wgsl */ `
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
  let i = g.x + g.y * n.x * 256u;
  if (i < arrayLength(&src)) { dst[i] = src[i]; }
}`;

export interface Bandwidth {
  /** Bytes read plus bytes written per second, best of `reps` timed batches. */
  copy_bytes_per_s: number;
  buffer_bytes: number;
  copies_per_batch: number;
}

export async function copyBandwidth(gpu: GPU, maxBytes: number, reps = 5, copiesPerBatch = 10): Promise<Bandwidth> {
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter for the bandwidth kernel');
  const limit = Math.min(adapter.limits.maxStorageBufferBindingSize, adapter.limits.maxBufferSize);
  const device = await adapter.requestDevice({ requiredLimits: { maxStorageBufferBindingSize: limit, maxBufferSize: limit } });
  try {
    const bytes = Math.floor(Math.min(maxBytes, limit) / 16) * 16;
    const make = () => device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE });
    const [src, dst] = [make(), make()];
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: COPY }), entryPoint: 'main' } });
    const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: src } }, { binding: 1, resource: { buffer: dst } }] });
    const groups = Math.ceil(bytes / 16 / 256);
    const x = Math.min(groups, 32768);
    const y = Math.ceil(groups / x);
    const batch = async () => {
      const enc = device.createCommandEncoder();
      for (let i = 0; i < copiesPerBatch; i++) {
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(x, y);
        pass.end();
      }
      const t0 = performance.now();
      device.queue.submit([enc.finish()]);
      await device.queue.onSubmittedWorkDone();
      return (performance.now() - t0) / 1000;
    };
    await batch(); // warm-up: pipeline and first touch of the buffers
    let best = Infinity;
    for (let r = 0; r < reps; r++) best = Math.min(best, await batch());
    src.destroy();
    dst.destroy();
    return { copy_bytes_per_s: (2 * bytes * copiesPerBatch) / best, buffer_bytes: bytes, copies_per_batch: copiesPerBatch };
  } finally {
    device.destroy();
  }
}

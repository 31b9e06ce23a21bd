// Node only: WebGPU through Dawn, the npm package `webgpu` (installed by the `gpu/` package, never
// by the app's own npm ci). Installing it gives Node a `navigator.gpu`, so onnxruntime-web's WebGPU
// build runs the same code path as in a browser. Loaded only when a Node caller asks for WebGPU.
//
// Dawn needs a Vulkan driver on Linux: a GPU's ICD, or SwiftShader's (Debian's chromium ships one;
// VK_ICD_FILENAMES names it, and LD_LIBRARY_PATH a libvulkan.so.1 where the system has none).

interface DawnModule {
  create(flags: string[]): GPU;
  globals: Record<string, unknown>;
}

let installed: Promise<GPU> | null = null;
let dispatchCount = 0;

/** GPU compute dispatches issued in this process since Dawn was installed (benchmarks). */
export function gpuDispatches(): number {
  return dispatchCount;
}

/** Installs Dawn's `navigator.gpu` once; rejects naming what is missing. */
export function installNodeWebGpu(): Promise<GPU> {
  installed ??= (async () => {
    const dawn = await importDawn();
    Object.assign(globalThis, dawn.globals);
    const gpu = dawn.create([]);
    // Node 20 has no navigator; Node 21+ has one without gpu
    const nav = (globalThis as { navigator?: object }).navigator;
    if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
    else (globalThis as { navigator?: object }).navigator = { gpu };
    patchQueue(dawn.globals.GPUQueue as { prototype: GPUQueue } | undefined);
    countDispatches(dawn.globals.GPUComputePassEncoder as { prototype: GPUComputePassEncoder } | undefined);
    return gpu;
  })();
  return installed;
}

/** The bytes of a file beside a module (onnxruntime-web's .wasm beside its bundle). */
export async function readBeside(moduleUrl: string, name: string): Promise<Uint8Array> {
  const spec = 'node:fs/promises';
  const fs = (await import(/* @vite-ignore */ spec)) as typeof import('node:fs/promises');
  return new Uint8Array(await fs.readFile(new URL(name, moduleUrl)));
}

/** The package `webgpu`: beside the caller (a packed bundle's node_modules), else the repo's gpu/ package. */
async function importDawn(): Promise<DawnModule> {
  const inRepo = '../../gpu/node_modules/webgpu/index.js'; // a variable: bundlers must not take it as an asset
  const candidates = ['webgpu', new URL(inRepo, import.meta.url).href];
  for (const spec of candidates) {
    try {
      const mod = (await import(/* @vite-ignore */ spec)) as Partial<DawnModule>;
      if (typeof mod.create === 'function' && mod.globals) return mod as DawnModule;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  throw new Error('WebGPU in Node needs the package webgpu (Dawn): run `npm --prefix gpu ci`');
}

/** Dawn's writeBuffer refuses a view of shared memory ("Invalid argument"), and onnxruntime's
 *  threaded WebAssembly memory is shared: such views are copied first. */
function patchQueue(GPUQueueClass: { prototype: GPUQueue } | undefined): void {
  const proto = GPUQueueClass?.prototype;
  if (!proto) throw new Error('the package webgpu exposes no GPUQueue');
  const write = proto.writeBuffer;
  proto.writeBuffer = function (this: GPUQueue, buffer: GPUBuffer, offset: number, data: BufferSource | SharedArrayBuffer, dataOffset?: number, size?: number) {
    let copy = data;
    if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) {
      copy = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
      // offsets and sizes count elements of a typed array: the copy counts bytes
      const unit = 'BYTES_PER_ELEMENT' in data ? (data as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT : 1;
      dataOffset = dataOffset === undefined ? undefined : dataOffset * unit;
      size = size === undefined ? undefined : size * unit;
    } else if (data instanceof SharedArrayBuffer) {
      copy = new Uint8Array(data).slice();
    }
    return write.call(this, buffer, offset, copy as BufferSource, dataOffset, size);
  } as GPUQueue['writeBuffer'];
}

function countDispatches(PassClass: { prototype: GPUComputePassEncoder } | undefined): void {
  const proto = PassClass?.prototype;
  if (!proto) throw new Error('the package webgpu exposes no GPUComputePassEncoder');
  const direct = proto.dispatchWorkgroups;
  const indirect = proto.dispatchWorkgroupsIndirect;
  proto.dispatchWorkgroups = function (this: GPUComputePassEncoder, ...args: Parameters<GPUComputePassEncoder['dispatchWorkgroups']>) {
    dispatchCount++;
    return direct.apply(this, args);
  };
  proto.dispatchWorkgroupsIndirect = function (this: GPUComputePassEncoder, ...args: Parameters<GPUComputePassEncoder['dispatchWorkgroupsIndirect']>) {
    dispatchCount++;
    return indirect.apply(this, args);
  };
}

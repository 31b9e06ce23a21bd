// The one place that chooses the onnxruntime-web build. Browsers get the native WebGPU EP bundle
// (`onnxruntime-web/webgpu`, which also carries the wasm EP). Node gets the package's Node build
// (wasm EP), or, when a caller asks for WebGPU, the same WebGPU bundle as browsers over Dawn
// (node-webgpu.ts). Node's imports go through variable specifiers so bundlers never pull them (or
// the deprecated JSEP default build) into the browser graph.
import type * as OrtModule from 'onnxruntime-common';
import type { ExecutionProvider } from './types.ts';

export type Ort = typeof OrtModule;

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined'
  && typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === 'undefined';

let ortPromise: Promise<Ort> | null = null;
let nodeGpuOrt: Promise<Ort> | null = null;

/** The onnxruntime-web build for an execution provider. In Node, 'webgpu' installs Dawn first and
 *  rejects naming what is missing (the package webgpu); any other choice gets the Node build. */
export function getOrt(ep: ExecutionProvider | 'auto' = 'auto'): Promise<Ort> {
  if (isNode && ep === 'webgpu') {
    nodeGpuOrt ??= (async () => {
      // a literal import, so a Node bundle (bench:gpu's pack) carries it; browsers never load it
      const { installNodeWebGpu, readBeside } = await import('./node-webgpu.ts');
      await installNodeWebGpu();
      const build = 'onnxruntime-web/webgpu';
      const ort = (await import(/* @vite-ignore */ build)) as Ort;
      // the bundle fetches its .wasm beside itself, and Node's fetch takes no file: URL; its threads
      // would start workers from a fetched script, so it runs on one (the kernels run on the GPU)
      ort.env.wasm.wasmBinary = await readBeside(import.meta.resolve(build), 'ort-wasm-simd-threaded.asyncify.wasm');
      ort.env.wasm.numThreads = 1;
      return ort;
    })();
    nodeGpuOrt.catch(() => (nodeGpuOrt = null));
    return nodeGpuOrt;
  }
  if (!ortPromise) {
    ortPromise = (async () => {
      if (isNode) {
        const spec = 'onnxruntime-web';
        const mod = (await import(/* @vite-ignore */ spec)) as Ort & { default?: Ort };
        return withThreads((mod.InferenceSession ? mod : mod.default) as Ort);
      }
      // The .wasm runtime is the bundler-emitted asset beside ORT's chunk (Vite resolves ORT's
      // `new URL(..., import.meta.url)`), so the app serves and precaches it itself.
      return withThreads((await import('onnxruntime-web/webgpu')) as unknown as Ort);
    })();
  }
  return ortPromise;
}

/** navigator.gpu where this environment has it: browsers, and Node once getOrt('webgpu') installed Dawn. */
export function webGpu(): GPU | undefined {
  if (isNode && !nodeGpuOrt) return undefined;
  return (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
}

/** onnxruntime-web's default is half the cores (one thread on two); set before the first session. */
async function withThreads(ort: Ort): Promise<Ort> {
  ort.env.wasm.numThreads = await availableThreads();
  return ort;
}

/** All cores in Node and in cross-origin-isolated pages (SharedArrayBuffer); one thread elsewhere. */
async function availableThreads(): Promise<number> {
  if (isNode) {
    const spec = 'node:os';
    const os = (await import(/* @vite-ignore */ spec)) as typeof import('node:os');
    return Math.max(1, os.availableParallelism());
  }
  const g = globalThis as { crossOriginIsolated?: boolean; navigator?: { hardwareConcurrency?: number } };
  return g.crossOriginIsolated ? Math.max(1, g.navigator?.hardwareConcurrency ?? 1) : 1;
}

/** Threads the WebAssembly kernels run on (after getOrt). */
export function wasmThreads(ort: Ort): number {
  return ort.env.wasm.numThreads ?? 1;
}

// The one place that chooses the onnxruntime-web build. Browsers get the native WebGPU EP bundle
// (`onnxruntime-web/webgpu`, which also carries the wasm EP); Node gets the package's Node build,
// imported through a variable specifier so bundlers never pull it (or the deprecated JSEP default
// build) into the browser graph.
import type * as OrtModule from 'onnxruntime-common';

export type Ort = typeof OrtModule;

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined'
  && typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === 'undefined';

let ortPromise: Promise<Ort> | null = null;

/** Execution providers this environment's build can offer. */
export function availableEps(): ('webgpu' | 'wasm')[] {
  return isNode ? ['wasm'] : ['webgpu', 'wasm'];
}

export function getOrt(): Promise<Ort> {
  if (!ortPromise) {
    ortPromise = (async () => {
      let ort: Ort;
      if (isNode) {
        const spec = 'onnxruntime-web';
        const mod = (await import(/* @vite-ignore */ spec)) as Ort & { default?: Ort };
        ort = (mod.InferenceSession ? mod : mod.default) as Ort;
      } else {
        // The .wasm runtime is the bundler-emitted asset beside ORT's chunk (Vite resolves ORT's
        // `new URL(..., import.meta.url)`), so the app serves and precaches it itself.
        ort = (await import('onnxruntime-web/webgpu')) as unknown as Ort;
      }
      // onnxruntime-web's default is half the cores (one thread on two); set before the first session
      ort.env.wasm.numThreads = await availableThreads();
      return ort;
    })();
  }
  return ortPromise;
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

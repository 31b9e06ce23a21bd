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
      if (isNode) {
        const spec = 'onnxruntime-web';
        const mod = (await import(/* @vite-ignore */ spec)) as Ort & { default?: Ort };
        return (mod.InferenceSession ? mod : mod.default) as Ort;
      }
      // The .wasm runtime is the bundler-emitted asset beside ORT's chunk (Vite resolves ORT's
      // `new URL(..., import.meta.url)`), so the app serves and precaches it itself.
      return (await import('onnxruntime-web/webgpu')) as unknown as Ort;
    })();
  }
  return ortPromise;
}

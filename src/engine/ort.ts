// The one place that chooses the onnxruntime-web build. Browsers get the native WebGPU EP bundle
// (`onnxruntime-web/webgpu`, which also carries the wasm EP); Node gets the package's Node build,
// imported through a variable specifier so bundlers never pull it (or the deprecated JSEP default
// build) into the browser graph.
import type * as OrtModule from 'onnxruntime-common';

export type Ort = typeof OrtModule;

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined'
  && typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === 'undefined';

/** Where the browser build fetches its .wasm/.mjs runtime files; the app copies them to public/ort/. */
let wasmPaths = '/ort/';
let ortPromise: Promise<Ort> | null = null;

/** Sets the URL prefix of ORT's wasm files (browser only); call before the first getOrt(). */
export function setOrtWasmPaths(prefix: string): void {
  wasmPaths = prefix;
}

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
      const mod = (await import('onnxruntime-web/webgpu')) as unknown as Ort;
      mod.env.wasm.wasmPaths = wasmPaths;
      return mod;
    })();
  }
  return ortPromise;
}

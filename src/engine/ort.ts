// The one place that chooses the onnxruntime build and its session options. Browsers get
// onnxruntime-web's native WebGPU EP bundle (`onnxruntime-web/webgpu`, which also carries the wasm
// EP). Node gets, per execution provider:
//   wasm           onnxruntime-web's Node build (the browser's WebAssembly kernels);
//   cpu, cuda      onnxruntime-node from the native/ package (native-ort.ts), refused naming the
//                  install command where it (or its CUDA provider) is missing;
//   webgpu         onnxruntime-node's own WebGPU provider where the native package is installed,
//                  else (or with runtime 'onnxruntime-web') the browser's WebGPU bundle over Dawn
//                  (node-webgpu.ts).
// Node's imports go through variable specifiers so bundlers never pull them (or the deprecated
// JSEP default build) into the browser graph.
import type * as OrtModule from 'onnxruntime-common';
import type { InferenceSession } from 'onnxruntime-common';
import type { ExecutionProvider, OrtRuntime, RuntimeInfo } from './types.ts';

export type Ort = typeof OrtModule;

export const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined'
  && typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === 'undefined';

let webOrt: Promise<Ort> | null = null;
/** The browsers' WASM EP build (onnxruntime-web/wasm). */
let wasmOrt: Promise<Ort> | null = null;
let nodeGpuOrt: Promise<Ort> | null = null;
/** Threads of the native runtime's CPU kernels (intraOpNumThreads); all cores unless set. */
let nativeThreads: number | null = null;

/** Why an EP cannot run in this environment, naming what to install; null when it can. */
export async function runtimeRefusal(ep: ExecutionProvider, runtime?: OrtRuntime): Promise<string | null> {
  if (runtime !== undefined && runtime !== 'onnxruntime-web' && runtime !== 'onnxruntime-node') return `unknown runtime ${JSON.stringify(runtime)} (onnxruntime-web or onnxruntime-node)`;
  const native = ep === 'cpu' || ep === 'cuda' || (ep === 'webgpu' && runtime === 'onnxruntime-node');
  if (ep === 'wasm' && runtime === 'onnxruntime-node') return 'the wasm EP is onnxruntime-web\'s: onnxruntime-node runs cpu, webgpu and cuda';
  if ((ep === 'cpu' || ep === 'cuda') && runtime === 'onnxruntime-web') return `the ${ep} EP is onnxruntime-node's: onnxruntime-web runs wasm and webgpu`;
  if (!native) return null;
  if (!isNode) return `the ${ep} EP runs in Node only (onnxruntime-node); in a browser choose webgpu or wasm`;
  const { nativeRuntime, NATIVE_INSTALL, CUDA_INSTALL } = await import('./native-ort.ts');
  const rt = await nativeRuntime();
  if (!rt) return `the ${ep} EP needs onnxruntime-node, which is not installed: run ${NATIVE_INSTALL}`;
  if (!rt.providers.includes(ep)) return `onnxruntime-node ${rt.version} here has no ${ep} provider (it has ${rt.providers.join(', ')})${ep === 'cuda' ? `: install it with ${CUDA_INSTALL}` : ''}`;
  return null;
}

/** Whether onnxruntime-node (the native/ package) is installed here: Node's CLIs default to its cpu EP then. */
export async function hasNativeRuntime(): Promise<boolean> {
  if (!isNode) return false;
  const { nativeRuntime } = await import('./native-ort.ts');
  return (await nativeRuntime()) !== null;
}

/** The runtime an EP runs on when none is named: onnxruntime-node for cpu and cuda, and for webgpu
 *  in Node where it is installed; onnxruntime-web otherwise. */
export async function defaultRuntime(ep: ExecutionProvider | 'auto'): Promise<OrtRuntime> {
  if (ep === 'cpu' || ep === 'cuda') return 'onnxruntime-node';
  if (ep === 'webgpu' && (await hasNativeRuntime())) return 'onnxruntime-node';
  return 'onnxruntime-web';
}

/** The onnxruntime build for an EP (and runtime); rejects naming what is missing (runtimeRefusal). */
export async function getOrt(ep: ExecutionProvider | 'auto' = 'auto', runtime?: OrtRuntime): Promise<Ort> {
  const rt = runtime ?? (await defaultRuntime(ep));
  if (ep !== 'auto') {
    const refusal = await runtimeRefusal(ep, rt);
    if (refusal) throw new Error(refusal);
  }
  if (rt === 'onnxruntime-node') {
    const { nativeRuntime } = await import('./native-ort.ts');
    nativeThreads ??= await nodeCores();
    return (await nativeRuntime())!.ort;
  }
  if (isNode && ep === 'webgpu') return webOverDawn();
  // the WASM EP in browsers runs on ORT's plain WebAssembly build (the one Node loads): the WebGPU
  // bundle's asyncify build ran the built-in study 1.87× the CLI's time, this one 1.38× (bench:study)
  if (!isNode && ep === 'wasm') {
    wasmOrt ??= import('onnxruntime-web/wasm').then((m) => withThreads(m as unknown as Ort));
    return wasmOrt;
  }
  webOrt ??= (async () => {
    if (isNode) {
      const spec = 'onnxruntime-web';
      const mod = (await import(/* @vite-ignore */ spec)) as Ort & { default?: Ort };
      return withThreads((mod.InferenceSession ? mod : mod.default) as Ort);
    }
    // The .wasm runtime is the bundler-emitted asset beside ORT's chunk (Vite resolves ORT's
    // `new URL(..., import.meta.url)`), so the app serves and precaches it itself.
    return withThreads((await import('onnxruntime-web/webgpu')) as unknown as Ort);
  })();
  return webOrt;
}

/** onnxruntime-web's WebGPU bundle over Dawn's navigator.gpu (Node without the native package, or asked for). */
function webOverDawn(): Promise<Ort> {
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

/** The runtime a build is, and its version. */
export function runtimeOf(ort: Ort): RuntimeInfo {
  const v = ort.env.versions as { web?: string; node?: string; common: string };
  return v.node ? { name: 'onnxruntime-node', version: v.node } : { name: 'onnxruntime-web', version: v.web ?? v.common };
}

/** Whether this build's WebGPU state can stay on the device between runs (onnxruntime-web hands
 *  the engine its GPUDevice; onnxruntime-node's WebGPU provider does not, so its state crosses to
 *  the CPU between runs: runtime/cpu-io.ts). */
export function exposesGpuDevice(ort: Ort): boolean {
  return runtimeOf(ort).name === 'onnxruntime-web';
}

/** Session options every session of this build gets for an EP (threads on the native CPU kernels). */
export function sessionOptionsOf(ort: Ort, ep: ExecutionProvider): InferenceSession.SessionOptions {
  if (runtimeOf(ort).name !== 'onnxruntime-node') return { executionProviders: [ep] };
  return { executionProviders: [ep], intraOpNumThreads: nativeThreads ?? 1 };
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
  if (isNode) return nodeCores();
  const g = globalThis as { crossOriginIsolated?: boolean; navigator?: { hardwareConcurrency?: number } };
  return g.crossOriginIsolated ? Math.max(1, g.navigator?.hardwareConcurrency ?? 1) : 1;
}

async function nodeCores(): Promise<number> {
  const spec = 'node:os';
  const os = (await import(/* @vite-ignore */ spec)) as typeof import('node:os');
  return Math.max(1, os.availableParallelism());
}

/** Sets the CPU kernels' threads of a build, before its first session (benchmarks pin both sides). */
export function setThreads(ort: Ort, n: number): void {
  if (runtimeOf(ort).name === 'onnxruntime-node') nativeThreads = n;
  else ort.env.wasm.numThreads = n;
}

/** Threads the CPU kernels run on (after getOrt): WebAssembly's, or the native runtime's. */
export function cpuThreads(ort: Ort): number {
  return runtimeOf(ort).name === 'onnxruntime-node' ? (nativeThreads ?? 1) : (ort.env.wasm.numThreads ?? 1);
}

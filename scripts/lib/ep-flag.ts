// The CLIs' --ep, from one place:
//   cpu         onnxruntime-node's CPU provider (the native/ package): the default where it is installed
//   cuda        onnxruntime-node's CUDA provider, where it was installed (refused naming the install otherwise)
//   webgpu      WebGPU: onnxruntime-node's own provider where the native package is installed, else
//               onnxruntime-web's WebGPU bundle over Dawn (the gpu/ package)
//   webgpu-web  onnxruntime-web's WebGPU bundle over Dawn, the browser's own WebGPU code path
//   wasm        onnxruntime-web's WebAssembly kernels: the default without the native package
// A run that would land elsewhere (a WebGPU load falling back to WebAssembly) is refused, naming
// why: a study on a GPU server must never run on the CPU unnoticed.
import { hasNativeRuntime } from '../../src/engine/ort.ts';
import type { ExecutionProvider, ModelInfo, OrtRuntime, RuntimeInfo } from '../../src/engine/types.ts';

export const CLI_EPS = ['cpu', 'cuda', 'webgpu', 'webgpu-web', 'wasm'] as const;
/** A parsed --ep; 'default' where none was given (cpu with the native package, else wasm). */
export type CliEp = (typeof CLI_EPS)[number] | 'default';

/** What a CLI's engine.load takes for an --ep. */
export interface EpLoad {
  ep: ExecutionProvider;
  runtime?: OrtRuntime;
}

/** The value of --ep; anything else throws naming the choices. */
export function parseEp(value: string | undefined): CliEp {
  if (value === undefined) return 'default';
  if (!(CLI_EPS as readonly string[]).includes(value)) throw new Error(`--ep must be one of ${CLI_EPS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as CliEp;
}

/** The load options of an --ep (the default resolved here: cpu where onnxruntime-node is installed). */
export async function epLoad(ep: CliEp): Promise<EpLoad> {
  if (ep === 'default') return { ep: (await hasNativeRuntime()) ? 'cpu' : 'wasm' };
  if (ep === 'webgpu-web') return { ep: 'webgpu', runtime: 'onnxruntime-web' };
  return { ep };
}

/** Throws when the engine did not load on the EP (and runtime) asked for. */
export function checkEp(info: ModelInfo, wanted: EpLoad | ExecutionProvider): void {
  const w = typeof wanted === 'string' ? { ep: wanted } : wanted;
  if (info.ep !== w.ep) throw new Error(`--ep ${w.ep}: the engine loaded on ${info.ep}${info.fallbackReason ? ` (${info.fallbackReason})` : ''}`);
  if (w.runtime && info.runtime && info.runtime.name !== w.runtime) throw new Error(`--ep ${w.ep} on ${w.runtime}: the engine loaded on ${info.runtime.name}`);
}

/** The engine as outputs name it: EP, runtime, dtype and, on WebGPU, the adapter. */
export function engineOf(info: ModelInfo): { ep: ExecutionProvider; dtype: ModelInfo['dtype']; adapter?: string; runtime?: RuntimeInfo } {
  return { ep: info.ep, dtype: info.dtype, ...(info.adapter ? { adapter: info.adapter } : {}), ...(info.runtime ? { runtime: info.runtime } : {}) };
}

/** One line for stderr: the EP, its runtime and, on WebGPU, the adapter. */
export function epLine(info: ModelInfo): string {
  const rt = info.runtime ? ` (${info.runtime.name} ${info.runtime.version})` : '';
  return `engine: ${info.ep}${rt}${info.adapter ? ` on ${info.adapter}` : ''}, ${info.dtype}`;
}

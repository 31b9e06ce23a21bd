// The CLIs' --ep webgpu|wasm, from one place. WebAssembly is the default; `--ep webgpu` runs the
// browser's WebGPU code path over Dawn (src/engine/node-webgpu.ts; `npm --prefix gpu ci` installs
// it) and is refused, naming why, when the engine would fall back to WebAssembly: a study on a GPU
// server must never run on the CPU unnoticed.
import type { ExecutionProvider, ModelInfo } from '../../src/engine/types.ts';

export const CLI_EPS: readonly ExecutionProvider[] = ['webgpu', 'wasm'];

/** The value of --ep (undefined: wasm); anything else throws naming the choices. */
export function parseEp(value: string | undefined): ExecutionProvider {
  if (value === undefined) return 'wasm';
  if (!(CLI_EPS as readonly string[]).includes(value)) throw new Error(`--ep must be one of ${CLI_EPS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as ExecutionProvider;
}

/** Throws when the engine did not load on the EP asked for. */
export function checkEp(info: ModelInfo, wanted: ExecutionProvider): void {
  if (info.ep !== wanted) throw new Error(`--ep ${wanted}: the engine loaded on ${info.ep}${info.fallbackReason ? ` (${info.fallbackReason})` : ''}`);
}

/** The engine as outputs name it: EP, dtype and, on WebGPU, the adapter. */
export function engineOf(info: ModelInfo): { ep: ExecutionProvider; dtype: ModelInfo['dtype']; adapter?: string } {
  return { ep: info.ep, dtype: info.dtype, ...(info.adapter ? { adapter: info.adapter } : {}) };
}

/** One line for stderr: the EP and, on WebGPU, the adapter. */
export function epLine(info: ModelInfo): string {
  return `engine: ${info.ep}${info.adapter ? ` on ${info.adapter}` : ''}, ${info.dtype}`;
}

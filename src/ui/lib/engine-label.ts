// How a screen names the engine a run or a model ran on: the execution provider in words, and the
// onnxruntime build with its version when it is known (runs from the Node CLIs may be native).
import type { ExecutionProvider, RuntimeInfo } from '../../engine/types';

const EP_WORDS: Record<ExecutionProvider, string> = {
  webgpu: 'WebGPU',
  wasm: 'WebAssembly',
  cpu: 'native CPU',
  cuda: 'CUDA',
};

/** The execution provider in words: "WebGPU", "WebAssembly", "native CPU", "CUDA". */
export function epWords(ep: ExecutionProvider): string {
  return EP_WORDS[ep];
}

/** The onnxruntime build and version: "onnxruntime-node 1.31.1". */
export function runtimeLabel(runtime: RuntimeInfo): string {
  return `${runtime.name} ${runtime.version}`;
}

/** "WebGPU", "native CPU (onnxruntime-node 1.31.1)", …; the runtime only when recorded. */
export function engineLabel(engine: { ep: ExecutionProvider; runtime?: RuntimeInfo }): string {
  return engine.runtime ? `${epWords(engine.ep)} (${runtimeLabel(engine.runtime)})` : epWords(engine.ep);
}

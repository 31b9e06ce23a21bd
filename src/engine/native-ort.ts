// Node only: onnxruntime-node, the native runtime (CPU provider, its own WebGPU provider over a Dawn
// linked into libonnxruntime, CUDA where its provider is installed). It lives in the `native/`
// package, never in the app's node_modules: resolved from native/package.json beside this repo's
// src/, or from the folder REACHLAB_NATIVE_DIR names (a packed bundle carries it there).
import type * as OrtModule from 'onnxruntime-common';

type Ort = typeof OrtModule;

/** What the native runtime is and where it came from. */
export interface NativeRuntime {
  ort: Ort;
  version: string;
  /** Providers this install can run: always cpu and webgpu on Linux x64, cuda once installed. */
  providers: string[];
}

export const NATIVE_INSTALL = 'npm --prefix native ci (ONNXRUNTIME_NODE_INSTALL=skip is set by native/.npmrc: nothing downloads)';
export const CUDA_INSTALL = 'cd native && ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js (downloads the CUDA 12 provider; needs a network and CUDA 12 with cuDNN 9)';

let loaded: Promise<NativeRuntime | null> | null = null;

/** onnxruntime-node from the native package, or null when it is not installed. */
export function nativeRuntime(): Promise<NativeRuntime | null> {
  loaded ??= load();
  return loaded;
}

async function load(): Promise<NativeRuntime | null> {
  const [{ createRequire }, fs, path, { fileURLToPath }] = await Promise.all([
    nodeImport<typeof import('node:module')>('node:module'), nodeImport<typeof import('node:fs')>('node:fs'),
    nodeImport<typeof import('node:path')>('node:path'), nodeImport<typeof import('node:url')>('node:url'),
  ]);
  const dir = process.env.REACHLAB_NATIVE_DIR;
  const anchor = dir ? path.join(path.resolve(dir), 'package.json') : fileURLToPath(new URL('../../native/package.json', import.meta.url));
  const require = createRequire(anchor);
  let main: string;
  try {
    main = require.resolve('onnxruntime-node');
  } catch {
    return null;
  }
  const ort = require(main) as Ort & { listSupportedBackends?: () => { name: string; bundled: boolean }[] };
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(main), '..', 'package.json'), 'utf8')) as { version: string };
  const bin = path.join(path.dirname(main), '..', 'bin', 'napi-v6', process.platform, process.arch);
  // listSupportedBackends names cuda "not bundled" whether or not it was downloaded: its library decides
  const providers = (ort.listSupportedBackends?.() ?? [{ name: 'cpu', bundled: true }])
    .filter((b) => b.bundled || fs.existsSync(path.join(bin, `libonnxruntime_providers_${b.name}.so`)))
    .map((b) => b.name);
  return { ort, version: pkg.version, providers };
}

/** A Node built-in through a variable specifier, so bundlers never pull it into a browser graph. */
async function nodeImport<T>(spec: string): Promise<T> {
  return (await import(/* @vite-ignore */ spec)) as T;
}

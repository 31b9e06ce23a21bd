// Copies the onnxruntime-web runtime files the WebGPU bundle loads at run time into public/ort/,
// so the app serves them itself (and the service worker can cache them for offline use).
import { copyFileSync, mkdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'node_modules', 'onnxruntime-web', 'dist');
const dst = join(root, 'public', 'ort');
const FILES = ['ort-wasm-simd-threaded.asyncify.wasm', 'ort-wasm-simd-threaded.asyncify.mjs'];

mkdirSync(dst, { recursive: true });
for (const f of FILES) {
  const from = join(src, f);
  if (!existsSync(from)) throw new Error(`onnxruntime-web is missing ${f}; run npm ci`);
  const to = join(dst, f);
  if (!existsSync(to) || statSync(to).size !== statSync(from).size) copyFileSync(from, to);
}

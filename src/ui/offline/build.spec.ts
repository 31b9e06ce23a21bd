import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { precacheEntries } from './build';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('precacheEntries', () => {
  it('lists the shell, scripts, wasm and icons, never models, maps or the worker itself', () => {
    dir = mkdtempSync(join(tmpdir(), 'reachlab-precache-'));
    const files: Record<string, string> = {
      'index.html': '<!doctype html>',
      'assets/main-abc.js': 'console.log(1)',
      'assets/main-abc.js.map': '{}',
      'assets/ort-wasm-simd-threaded.wasm': 'wasm',
      'icons/icon-192.png': 'png',
      'manifest.webmanifest': '{}',
      'sw.js': 'self',
      'hub/reachlab/micro-arith/resolve/main/config.json': '{}',
      'hub/reachlab/micro-arith/resolve/main/README.md': '# card',
    };
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), text);
    }
    const entries = precacheEntries(dir);
    expect(entries.map((e) => e.url)).toEqual(['assets/main-abc.js', 'assets/ort-wasm-simd-threaded.wasm', 'icons/icon-192.png', 'index.html', 'manifest.webmanifest']);
    // Vite's hashed assets are cached under their own URL (no revision query), the rest by content
    expect(entries.filter((e) => e.revision === null).map((e) => e.url)).toEqual(['assets/main-abc.js', 'assets/ort-wasm-simd-threaded.wasm']);
    const index = entries.find((e) => e.url === 'index.html')!;
    expect(index.revision).toBe(createHash('sha256').update('<!doctype html>').digest('hex').slice(0, 32));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>changed</title>');
    expect(precacheEntries(dir).find((e) => e.url === 'index.html')!.revision).not.toBe(index.revision);
  });
});

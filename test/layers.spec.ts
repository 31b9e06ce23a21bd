// The layers of docs/ARCHITECTURE.md, checked on every source file: ui → store → audit → engine →
// util, no import running back up. Tests and test support (`*.spec.ts`, `testing/`, test-helpers)
// may also reach fixtures and scripts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** What each layer may import besides itself and npm packages. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  'src/util': [],
  'src/engine': ['src/util'],
  'src/audit': ['src/engine', 'src/util'],
  'src/store': ['src/audit', 'src/engine', 'src/util'],
  'src/ui': ['src/store', 'src/audit', 'src/engine', 'src/util', 'studies'],
  'src/selftest': ['src/store', 'src/engine', 'src/util'],
  workers: ['src/store', 'src/engine', 'src/util'],
};

const layerOf = (rel: string) => Object.keys(MAY_IMPORT).find((l) => rel === l || rel.startsWith(`${l}/`)) ?? rel.split('/')[0];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|svelte)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

const isTestSupport = (rel: string) => /\.spec\.ts$|\/testing\/|test-helpers\.ts$/.test(rel);

/** Relative module specifiers of a file: `from '…'`, `import '…'` and `import('…')`. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(?\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
}

describe('layers', () => {
  it('no source file imports a layer above its own', () => {
    const breaches: string[] = [];
    for (const layer of Object.keys(MAY_IMPORT)) {
      for (const file of sources(layer)) {
        if (isTestSupport(file)) continue;
        for (const spec of importsOf(readFileSync(path.join(ROOT, file), 'utf8'))) {
          const target = layerOf(path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)));
          if (target !== layer && !MAY_IMPORT[layer].includes(target)) breaches.push(`${file} imports ${spec} (${target})`);
        }
      }
    }
    expect(breaches).toEqual([]);
  });

  it('reads the imports a breach would use', () => {
    expect(importsOf(`import { a } from '../store/x';\nimport '../ui/y.css';\nconst m = await import('../ui/z');`)).toEqual(['../store/x', '../ui/y.css', '../ui/z']);
    expect(layerOf('src/engine/graph/layer.ts')).toBe('src/engine');
  });
});

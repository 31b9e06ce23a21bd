// docs/ARCHITECTURE.md "Probes": nothing outside src/audit/probes/ names a probe; the rest of the
// code asks the registry. A probe name as a string literal anywhere else (tests and test support
// aside) is a rule restated outside its probe's file.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBE_NAMES } from '../src/audit/probes/registry';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIRS = ['src', 'scripts', 'workers'];

const isExempt = (rel: string) => rel.startsWith('src/audit/probes/') || /\.spec\.ts$|\/testing\/|test-helpers\.ts$/.test(rel);

/** The text without comments (block, line and HTML), so prose may still name a probe. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/<!--[\s\S]*?-->/g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

function literalsIn(text: string, names: readonly string[]): string[] {
  const alt = names.map((n) => n.replace(/[-]/g, '\\-')).join('|');
  return [...code(text).matchAll(new RegExp(`(['"\`])(${alt})\\1`, 'g'))].map((m) => m[2]);
}

describe('probe names', () => {
  it('appear as literals only in src/audit/probes/ and tests', () => {
    const found: string[] = [];
    for (const dir of DIRS) {
      for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
        if (!e.isFile() || !/\.(ts|svelte)$/.test(e.name)) continue;
        const rel = path.relative(ROOT, path.join(e.parentPath, e.name));
        if (isExempt(rel)) continue;
        for (const n of literalsIn(readFileSync(path.join(ROOT, rel), 'utf8'), PROBE_NAMES)) found.push(`${rel}: '${n}'`);
      }
    }
    expect(found).toEqual([]);
  });

  it('finds a literal in code and not in a comment', () => {
    expect(literalsIn(`if (p === 'mlp-silencing') x();\n// the 'sampling' probe\n/* "deployment" */`, PROBE_NAMES)).toEqual(['mlp-silencing']);
    expect(literalsIn(`const u = 'https://x'; const p = "random-routes";`, PROBE_NAMES)).toEqual(['random-routes']);
    expect(literalsIn('{#if probe !== `sampling`}', PROBE_NAMES)).toEqual(['sampling']);
  });
});

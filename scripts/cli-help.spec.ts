// Every CLI of package.json (npm run engine|audit|study|bench:…|fidelity:…) answers --help with its
// usage on stdout and exit 0, before reading anything else.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { usageOf } from './lib/cli-help.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
/** `tsx scripts/X.ts` entries, but not the build hooks (pre…), which take no arguments. */
const CLIS = Object.entries(pkg.scripts)
  .filter(([name, cmd]) => /^tsx scripts\/[\w-]+\.ts$/.test(cmd) && !name.startsWith('pre'))
  .map(([name, cmd]) => [name, cmd.slice('tsx '.length)] as const);

describe('--help', () => {
  it('reads a usage from the comment block that opens a file', () => {
    expect(usageOf('// Tool: does X.\n//\n//   tool --a 1\n\nimport x;\n// not this')).toBe('Tool: does X.\n\n  tool --a 1');
  });

  it('covers the engine, audit and study CLIs', () => {
    expect(CLIS.map(([name]) => name)).toEqual(expect.arrayContaining(['engine', 'audit', 'study']));
  });

  it.each(CLIS)('npm run %s -- --help prints its usage', (_name, file) => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', file, '--help'], { encoding: 'utf8', timeout: 60_000 });
    // the usage, then what a CLI adds from its code (the audit CLI: its probes' settings)
    expect(out.startsWith(usageOf(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')))).toBe(true);
    expect(out.length).toBeGreaterThan(40);
  }, 60_000);
});

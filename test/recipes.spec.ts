// docs/ARCHITECTURE.md's "Add a …" recipes each end with a `Files:` paragraph naming every file the
// change touches. These tests fail when such a list no longer matches the code: a path it names is
// gone, a probe record field reaches a file the probe recipe does not name, or a place the probe
// and format recipes say follows from the registry stops reading it.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FORMATS } from '../src/audit/formats/registry';
import { PROBES } from '../src/audit/probes/registry';
import { PROBE_PRESETS } from '../src/ui/lib/presets';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const architecture = read('docs/ARCHITECTURE.md');

/** Each recipe ("probe", "read-out", …) and the paths of its `Files:` paragraph, in order. */
function recipes(doc: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let recipe: string | null = null;
  let files: string[] | null = null;
  for (const line of doc.split('\n')) {
    const named = /^(?:### |\*\*)Add an? ([a-z-]+)/.exec(line);
    if (named) recipe = named[1];
    if (line.startsWith('Files')) {
      if (recipe === null) throw new Error(`a Files: paragraph before any recipe: ${line}`);
      if (out.has(recipe)) throw new Error(`recipe "${recipe}" has two Files: paragraphs`);
      out.set(recipe, (files = []));
    } else if (line.trim() === '') files = null;
    if (files) for (const [, p] of line.matchAll(/`([^`\s]+\/[^`\s]+)`/g)) files.push(p.split(' ')[0]);
  }
  return out;
}

/** Source files below `dir` (repository-relative), specs and test support left out. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`;
    if (statSync(join(root, path)).isDirectory()) {
      if (name !== 'testing' && name !== 'node_modules') out.push(...sources(path));
    } else if (/\.(ts|svelte)$/.test(name) && !name.endsWith('.spec.ts')) out.push(path);
  }
  return out;
}

const RECIPES = recipes(architecture);
const files = (recipe: string) => {
  const list = RECIPES.get(recipe);
  if (!list) throw new Error(`docs/ARCHITECTURE.md has no Files: paragraph for "Add a ${recipe}"`);
  return list;
};

describe("ARCHITECTURE's recipes", () => {
  it('has a file list for each kind of addition', () => {
    expect([...RECIPES.keys()].sort()).toEqual(['format', 'metric', 'probe', 'read-out', 'screen', 'task']);
  });

  it('names only files that exist (a <placeholder> path: its folder holds a file of that shape)', () => {
    for (const [recipe, paths] of RECIPES) {
      expect(paths.length, recipe).toBeGreaterThan(0);
      for (const path of paths) {
        expect(path.startsWith('/'), `${recipe}: ${path} is a path of one machine`).toBe(false);
        if (!path.includes('<')) {
          expect(existsSync(join(root, path)), `Add a ${recipe}: ${path} does not exist`).toBe(true);
          continue;
        }
        const dir = dirname(path);
        expect(existsSync(join(root, dir)), `Add a ${recipe}: ${dir}/ does not exist`).toBe(true);
        const shape = new RegExp(`^${relative(dir, path).replace(/[.]/g, '\\.').replace(/<[^>]+>/g, '[A-Za-z0-9-]+')}$`);
        expect(readdirSync(join(root, dir)).some((f) => shape.test(f)), `Add a ${recipe}: no file in ${dir}/ is shaped like ${path}`).toBe(true);
      }
    }
  });

  it("the probe recipe names every file a probe's own record field reaches (random-routes' route_draw)", () => {
    const reached = sources('src')
      .filter((f) => !f.startsWith('src/audit/probes/') && read(f).includes('route_draw'))
      .sort();
    const named = files('probe').filter((f) => !f.startsWith('src/audit/probes/'));
    expect(reached).toEqual([...named].sort());
  });

  it("the probe recipe's --probe flag is the audit CLI's", () => {
    expect(architecture).not.toMatch(/--probes\b/);
    expect(read('scripts/audit-cli.ts')).toMatch(/^\s+probe: \{ type: 'string' \}/m);
  });

  it('the audit CLI help and Setup list what the probe and format registries hold', () => {
    const help = execFileSync(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'scripts/audit-cli.ts'), '--help'], { encoding: 'utf8' });
    for (const f of FORMATS) expect(help, `format ${f.name} in the CLI's --help`).toContain(`  ${f.name}: ${f.label}`);
    for (const p of PROBES) if (p.settings) expect(help, `probe ${p.name} in the CLI's --help`).toContain(p.name);
    // Setup's probe protocols are every probe's presets, in registry order
    expect(PROBE_PRESETS.map((p) => p.id)).toEqual(PROBES.flatMap((p) => ('presets' in p && p.presets ? p.presets.map((x) => x.id) : [])));
    // Setup's answer-format list draws every format of the registry
    expect(read('src/ui/components/ConditionFields.svelte')).toContain('{#each FORMATS as f}');
  }, 60_000);

  it('the places the format recipe says follow from the registry read it', () => {
    const followers = ['src/audit/types.ts', 'src/audit/condition.ts', 'src/audit/condition-schema.ts', 'src/ui/components/ConditionFields.svelte', 'src/audit/tasks/file.ts'];
    for (const f of followers) expect(read(f), f).toMatch(/formats\/registry/);
    // run files and permalinks check a condition only through the one condition schema
    for (const f of ['src/store/run-file.ts', 'src/ui/lib/permalink.ts']) expect(read(f), f).toMatch(/condition-schema/);
  });
});

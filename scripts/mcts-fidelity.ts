// The MCTS presets on scripted reward landscapes, in the terms the released searches are compared
// by (reach, tree depth, root-child share, edits, route length over the first B distinct routes).
// Prints one JSON object on stdout and a short table on stderr. With --released FILE (the same
// measures of the released Python searches on the same landscapes, in this JSON's shape) the
// table shows both side by side.
//
//   npm run -s fidelity:mcts [-- --questions 200 --layers 28 --released released.json]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createPrng } from '../src/util/prng.ts';
import { colaSpace } from '../src/audit/presets.ts';
import { ColaSearch } from '../src/audit/probes/cola-mcts.ts';
import { ProgramSelectionSearch } from '../src/audit/probes/program-selection-mcts.ts';
import { seedFor } from '../src/audit/seeds.ts';
import { changedPositions, colaLandscapes, layerEdits, neighborhoodLandscapes } from '../src/audit/testing/landscapes.ts';
import { profileSearch, type SearchProfile } from '../src/audit/testing/search-profile.ts';
import { answerHelp } from './lib/cli-help.ts';

type Report = Record<'cola' | 'program-selection', Record<string, SearchProfile>>;

function main() {
  answerHelp(process.argv.slice(2), import.meta.url);
  let v: Record<string, string | undefined>;
  try {
    v = parseArgs({ options: { questions: { type: 'string' }, layers: { type: 'string' }, released: { type: 'string' } }, strict: true }).values as Record<string, string | undefined>;
  } catch (e) {
    process.stderr.write(`fidelity:mcts: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const Q = Number(v.questions ?? 200);
  const L = Number(v.layers ?? 28);
  if (!Number.isInteger(Q) || Q < 1 || !Number.isInteger(L) || L < 4) {
    process.stderr.write('fidelity:mcts: --questions must be a positive integer and --layers an integer ≥ 4\n');
    process.exit(2);
  }
  const rng = (q: number) => createPrng(seedFor(1, `q${q}`));
  const cola = colaSpace(L);
  const hood = { kind: 'neighborhood' as const, numLayers: L, radius: 2, maxEdits: 3 };
  const out: Report = { cola: {}, 'program-selection': {} };
  for (const [name, land] of Object.entries(colaLandscapes(L))) {
    out.cola[name] = profileSearch((q) => new ColaSearch(cola, 100, rng(q)), land, Q, (r) => layerEdits(r, L));
  }
  for (const [name, land] of Object.entries(neighborhoodLandscapes())) {
    out['program-selection'][name] = profileSearch((q) => new ProgramSelectionSearch(hood, 200, rng(q)), land, Q, changedPositions);
  }
  process.stdout.write(`${JSON.stringify({ layers: L, questions: Q, budgets: { cola: 100, 'program-selection': 200 }, reachlab: out }, null, 1)}\n`);

  const released: Report | null = v.released ? JSON.parse(readFileSync(v.released, 'utf8')) : null;
  const f = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(3));
  const rows = [['preset', 'landscape', 'measure', 'ReachLab', ...(released ? ['released'] : [])]];
  for (const preset of ['cola', 'program-selection'] as const) {
    for (const [name, p] of Object.entries(out[preset])) {
      for (const m of ['reach', 'depth', 'root_share', 'edits', 'length', 'evaluations'] as const) {
        rows.push([preset, name, m, f(p[m]), ...(released ? [f(released[preset]?.[name]?.[m])] : [])]);
      }
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stderr.write(`${r.map((c, i) => c.padEnd(widths[i])).join('  ')}\n`);
}

main();

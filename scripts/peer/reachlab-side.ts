// The ReachLab side of the peer benchmark, in its own process (a fresh WebAssembly heap per run,
// its own peak RSS): reachlab-run.ts on the spec. Prints one JSON line.
//   tsx scripts/peer/reachlab-side.ts SPEC.json
import { readFileSync } from 'node:fs';
import { reachlabRun } from './reachlab-run.ts';
import type { SideSpec } from './side.ts';

reachlabRun(JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as SideSpec).then(
  (out) => {
    process.stdout.write(JSON.stringify(out) + '\n');
    process.exit(0); // onnxruntime's worker threads would keep the process alive
  },
  (e) => {
    process.stderr.write(`reachlab-side: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);

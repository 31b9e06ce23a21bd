// Engine CLI (Node, WASM EP):
//   npm run -s engine -- logits --model DIR --ids 1,2,3 [--route 0,1,1,2] [--silence 3] [--new-tokens 8]
// prints one JSON object {"last_logits":[...],"greedy_tokens":[...]} on stdout: the logits at the
// last prompt position and greedy tokens (not stopped at EOS, as in the reference's expected.json).
// Bad input exits 1 with the error on stderr.
import { createEngine } from '../src/engine/engine.ts';
import { isEngineError } from '../src/engine/types.ts';

const USAGE = 'usage: engine logits --model DIR --ids 1,2,3 [--route 0,1,1,2] [--silence 3] [--new-tokens 8]';

function parseArgs(argv: string[]): Map<string, string> {
  const [cmd, ...rest] = argv;
  if (cmd !== 'logits') throw new Error(`unknown command ${JSON.stringify(cmd ?? '')}\n${USAGE}`);
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const k = rest[i];
    if (!['--model', '--ids', '--route', '--silence', '--new-tokens'].includes(k)) throw new Error(`unknown option ${k}\n${USAGE}`);
    if (rest[i + 1] === undefined) throw new Error(`${k} needs a value\n${USAGE}`);
    flags.set(k, rest[i + 1]);
  }
  if (!flags.has('--model') || !flags.has('--ids')) throw new Error(`--model and --ids are required\n${USAGE}`);
  return flags;
}

function intList(flag: string, text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n)) throw new Error(`${flag}: ${JSON.stringify(s)} is not an integer`);
    return n;
  });
}

async function main(): Promise<void> {
  const flags = parseArgs(process.argv.slice(2));
  const ids = intList('--ids', flags.get('--ids')!);
  const silence = intList('--silence', flags.get('--silence') ?? '');
  const newTokens = Number(flags.get('--new-tokens') ?? 8);
  if (!Number.isInteger(newTokens) || newTokens < 0) throw new Error(`--new-tokens must be a non-negative integer`);
  const engine = createEngine();
  const info = await engine.load({ kind: 'fs', dir: flags.get('--model')! }, { ep: 'wasm', maxSeqLen: Math.max(2, ids.length + newTokens) });
  const route = flags.has('--route') ? intList('--route', flags.get('--route')!) : Array.from({ length: info.numLayers }, (_, i) => i);
  const row = { promptIds: ids, route, silence };
  const [last] = await engine.logits(row);
  const greedy = newTokens > 0
    ? (await engine.generate([{ ...row, sampling: { kind: 'greedy' } }], { maxNewTokens: newTokens, eosTokenIds: [] }))[0].tokens
    : [];
  await engine.dispose();
  process.stdout.write(JSON.stringify({ last_logits: Array.from(last), greedy_tokens: greedy }) + '\n');
}

main().catch((e: unknown) => {
  const msg = isEngineError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
  process.stderr.write(`engine: ${msg}\n`);
  process.exit(1);
});

// Engine CLI (Node; --ep as scripts/lib/ep-flag.ts: cpu where the native package is installed, else wasm):
//   npm run -s engine -- logits --model DIR --ids 1,2,3 [--route 0,1,1,2] [--silence 3] [--new-tokens 8] [--ep cpu|cuda|webgpu|webgpu-web|wasm]
// prints one JSON object {"last_logits":[...],"greedy_tokens":[...]} on stdout: the logits at the
// last prompt position and greedy tokens (not stopped at EOS, as in the reference's expected.json).
//   npm run -s engine -- readout --model DIR --prompt-file FILE --gold TEXT [--response TEXT] [--route 0,1] [--silence 3] [--dtype f32] [--ep EP]
// prints the look inside that attempt (src/engine/readout.ts AttemptReadout) as one JSON object.
// The EP, runtime and adapter the engine runs on go to stderr.
// Bad input exits 1 with the error on stderr.
import { readFileSync } from 'node:fs';
import { createEngine } from '../src/engine/engine.ts';
import { readAttempt } from '../src/engine/readout.ts';
import { ENGINE_DTYPES, type EngineDtype, type ModelInfo } from '../src/engine/types.ts';
import { isEngineError } from '../src/engine/types.ts';
import { answerHelp } from './lib/cli-help.ts';
import { checkEp, epLine, epLoad, parseEp, type EpLoad } from './lib/ep-flag.ts';
import { printErr } from './lib/terminal.ts';

const USAGE = 'usage: engine logits --model DIR --ids 1,2,3 [--route 0,1,1,2] [--silence 3] [--new-tokens 8] [--ep cpu|cuda|webgpu|webgpu-web|wasm]\n       engine readout --model DIR --prompt-file FILE --gold TEXT [--response TEXT] [--route 0,1] [--silence 3] [--dtype f32] [--ep cpu|cuda|webgpu|webgpu-web|wasm]';
const OPTIONS: Record<string, { flags: string[]; required: string[] }> = {
  logits: { flags: ['--model', '--ids', '--route', '--silence', '--new-tokens', '--ep'], required: ['--model', '--ids'] },
  readout: { flags: ['--model', '--prompt-file', '--gold', '--response', '--route', '--silence', '--dtype', '--ep'], required: ['--model', '--prompt-file', '--gold'] },
};

/** A bad command line: its message, then the usage. */
class UsageError extends Error {}

function parseArgs(argv: string[]): { cmd: string; flags: Map<string, string> } {
  const [cmd, ...rest] = argv;
  const spec = Object.hasOwn(OPTIONS, cmd ?? '') ? OPTIONS[cmd] : undefined;
  if (!spec) throw new UsageError(`unknown command ${JSON.stringify(cmd ?? '')}`);
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const k = rest[i];
    if (!spec.flags.includes(k)) throw new UsageError(`unknown option ${k} for ${cmd}`);
    if (rest[i + 1] === undefined) throw new UsageError(`${k} needs a value`);
    flags.set(k, rest[i + 1]);
  }
  const missing = spec.required.filter((k) => !flags.has(k));
  if (missing.length) throw new UsageError(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required for ${cmd}`);
  return { cmd, flags };
}

function intList(flag: string, text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n)) throw new Error(`${flag}: ${JSON.stringify(s)} is not an integer`);
    return n;
  });
}

async function readout(flags: Map<string, string>): Promise<void> {
  const dtype = (flags.get('--dtype') ?? 'f32') as EngineDtype;
  if (!ENGINE_DTYPES.includes(dtype)) throw new Error(`--dtype must be one of ${ENGINE_DTYPES.join(', ')}, got ${JSON.stringify(dtype)}`);
  const ep = await epLoad(parseEp(flags.get('--ep')));
  const prompt = readFileSync(flags.get('--prompt-file')!, 'utf8');
  const engine = createEngine();
  const info = await loaded(engine.load({ kind: 'fs', dir: flags.get('--model')! }, { ...ep, dtype, maxSeqLen: 4096 }), ep);
  const route = flags.has('--route') ? intList('--route', flags.get('--route')!) : Array.from({ length: info.numLayers }, (_, i) => i);
  const silence = intList('--silence', flags.get('--silence') ?? '');
  const r = await readAttempt(engine, { prompt, route, silence, gold: flags.get('--gold')!, response: flags.get('--response') ?? '' });
  await engine.dispose();
  process.stdout.write(JSON.stringify(r) + '\n');
}

async function main(): Promise<void> {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { cmd, flags } = parseArgs(process.argv.slice(2));
  if (cmd === 'readout') return readout(flags);
  const ids = intList('--ids', flags.get('--ids')!);
  const silence = intList('--silence', flags.get('--silence') ?? '');
  const newTokens = Number(flags.get('--new-tokens') ?? 8);
  if (!Number.isInteger(newTokens) || newTokens < 0) throw new Error(`--new-tokens must be a non-negative integer`);
  const ep = await epLoad(parseEp(flags.get('--ep')));
  const engine = createEngine();
  const info = await loaded(engine.load({ kind: 'fs', dir: flags.get('--model')! }, { ...ep, maxSeqLen: Math.max(2, ids.length + newTokens) }), ep);
  const route = flags.has('--route') ? intList('--route', flags.get('--route')!) : Array.from({ length: info.numLayers }, (_, i) => i);
  const row = { promptIds: ids, route, silence };
  const [last] = await engine.logits(row);
  const greedy = newTokens > 0
    ? (await engine.generate([{ ...row, sampling: { kind: 'greedy' } }], { maxNewTokens: newTokens, eosTokenIds: [] }))[0].tokens
    : [];
  await engine.dispose();
  process.stdout.write(JSON.stringify({ last_logits: Array.from(last), greedy_tokens: greedy }) + '\n');
}

async function loaded(load: Promise<ModelInfo>, ep: EpLoad): Promise<ModelInfo> {
  const info = await load;
  checkEp(info, ep);
  printErr(epLine(info));
  return info;
}

main().catch((e: unknown) => {
  const msg = isEngineError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
  printErr(`engine: ${msg}`);
  if (e instanceof UsageError) process.stderr.write(`${USAGE}\n`);
  process.exit(1);
});

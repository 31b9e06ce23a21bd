// Headless studies (npm run -s study -- ...). Prints the findings report as one JSON object on
// stdout (with the plan as run, each finding's verdict and the provenance of every run cited),
// progress on stderr.
//
//   study --plan FILE [--shard i/n | --shard auto [--shard-count N]] [--records DIR] [--import DIR ...] [--endpoint URL] [--ep cpu|cuda|webgpu|webgpu-web|wasm]
//
// Every run of the plan is the single audit `npm run -s audit` with the same choices; each is
// written to the records folder as a ReachLab run file named by its run key (importable in the
// app's Library) and read back instead of recomputed when present, whole and passing the app's
// import checks (lib/study-records.ts). --shard i/n computes only the
// settings whose index ≡ i − 1 (mod n); running the plan again over the shards' files (copied into
// --records or named with --import) computes nothing and reports the whole study. --shard auto
// takes i/n from a Kubernetes Indexed Job or a Slurm job array (scripts/lib/scheduler-shard.ts;
// examples in deploy/).
//
// Models: "builtin:<name>" (the built-in models shipped under public/hub/reachlab), a folder, or a
// Hub id "org/name[@revision]" (--endpoint or HF_ENDPOINT for a mirror, HF_TOKEN for gated repos).
// --ep picks the EP and runtime (scripts/lib/ep-flag.ts: cpu where the native package is installed,
// else wasm; webgpu or cuda on GPU servers); each run's manifest and the report's provenance name the
// EP, runtime and adapter. Bad arguments (a record folder that is not
// one, a plan asking more questions than its task holds) exit 2 with a message on stderr; study
// failures exit 1.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadTask } from '../src/audit/index.ts';
import { BUILTIN_MODELS, builtinModel, builtinRef } from '../src/audit/builtin-models.ts';
import { studyExport, type StudyExport } from '../src/audit/provenance.ts';
import { studyReport, type StudyReport } from '../src/audit/study-report.ts';
import { normalizePlan, planKey, studySettings, type NormalizedPlan } from '../src/audit/study-plan.ts';
import type { RunManifest } from '../src/audit/types.ts';
import type { CheckpointSource } from '../src/engine/types.ts';
import { isStoreError } from '../src/store/errors.ts';
import { parseJsonInput } from '../src/util/json-input.ts';
import { answerHelp } from './lib/cli-help.ts';
import { checkEp, epLoad, parseEp, type CliEp } from './lib/ep-flag.ts';
import { schedulerShard } from './lib/scheduler-shard.ts';
import { recordFolderBackend, type StudyDeps } from './lib/study-records.ts';
import { studyTaskOptions } from '../src/store/study.ts';
import { executePlan } from '../src/store/study-executor.ts';
import { printErr } from './lib/terminal.ts';

export class StudyCliError extends Error {}

export interface StudyCliOptions {
  plan: string;
  shard: { index: number; count: number } | null;
  /** --shard auto: the shard comes from a scheduler's environment (lib/scheduler-shard.ts), with
   *  --shard-count as its count where the scheduler does not tell it. */
  shardAuto?: { count?: number };
  records: string;
  imports: string[];
  endpoint?: string;
  ep: CliEp;
}

export function parseStudyCli(argv: string[]): StudyCliOptions {
  let values: Record<string, string | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { plan: { type: 'string' }, shard: { type: 'string' }, records: { type: 'string' }, import: { type: 'string', multiple: true }, endpoint: { type: 'string' }, ep: { type: 'string' }, 'shard-count': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new StudyCliError((e as Error).message);
  }
  if (typeof values.plan !== 'string') throw new StudyCliError('--plan FILE is required (a study plan in JSON)');
  let shard: StudyCliOptions['shard'] = null;
  const count = values['shard-count'] as string | undefined;
  if (count !== undefined && (values.shard !== 'auto' || !/^[1-9]\d*$/.test(count))) throw new StudyCliError(`--shard-count takes a positive whole number, with --shard auto; got "${count}"${values.shard === 'auto' ? '' : ' without --shard auto'}`);
  // --shard auto is resolved once the plan is read (its settings are a Kubernetes Job's default count)
  if (values.shard !== undefined && values.shard !== 'auto') {
    const m = /^(\d+)\/(\d+)$/.exec(values.shard as string);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) throw new StudyCliError(`--shard must be i/n with 1 ≤ i ≤ n, or auto, got "${values.shard}"`);
    shard = { index: Number(m[1]), count: Number(m[2]) };
  }
  return {
    plan: values.plan,
    shard,
    ...(values.shard === 'auto' ? { shardAuto: count === undefined ? {} : { count: Number(count) } } : {}),
    records: (values.records as string | undefined) ?? '.cache/study-runs',
    imports: (values.import as string[] | undefined) ?? [],
    ...(values.endpoint ? { endpoint: values.endpoint as string } : {}),
    ep: epOption(values.ep as string | undefined),
  };
}

/** The record folders, before anything runs: --records is a folder (made when missing), each
 *  --import an existing folder; else a StudyCliError naming the flag and the path. */
export function checkFolders(o: Pick<StudyCliOptions, 'records' | 'imports'>): void {
  for (const d of o.imports) {
    if (!existsSync(d)) throw new StudyCliError(`--import ${d}: no such directory`);
    if (!statSync(d).isDirectory()) throw new StudyCliError(`--import ${d}: not a directory`);
  }
  if (existsSync(o.records) && !statSync(o.records).isDirectory()) throw new StudyCliError(`--records ${o.records}: not a directory`);
  try {
    mkdirSync(o.records, { recursive: true });
  } catch (e) {
    throw new StudyCliError(`--records ${o.records}: cannot create the folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function epOption(v: string | undefined): CliEp {
  try {
    return parseEp(v);
  } catch (e) {
    throw new StudyCliError((e as Error).message);
  }
}

/** Where a plan's model reference loads from in Node. */
export function modelSource(ref: string, root: string, env: { endpoint?: string; token?: string } = {}): CheckpointSource {
  if (ref.startsWith('builtin:')) {
    const builtin = builtinModel(ref);
    if (!builtin) throw new StudyCliError(`no built-in model "${ref}" (built in: ${BUILTIN_MODELS.map(builtinRef).join(', ')})`);
    return { kind: 'fs', dir: path.join(root, 'public/hub', builtin.id, 'resolve/main') };
  }
  if (ref.startsWith('.') || ref.startsWith('/') || existsSync(path.join(ref, 'config.json'))) return { kind: 'fs', dir: path.resolve(ref) };
  const m = /^([\w.-]+\/[\w.-]+)(?:@([\w./-]+))?$/.exec(ref);
  if (!m) throw new StudyCliError(`model "${ref}" is neither builtin:<name>, a folder with config.json, nor a Hub id org/name[@revision]`);
  return { kind: 'hub', repo: m[1], revision: m[2] ?? 'main', ...(env.endpoint ? { endpoint: env.endpoint } : {}), ...(env.token ? { token: env.token } : {}) };
}

type Counts = { shard?: string; computed: number; reused: number };

/** Runs (or reads back) the plan's runs of the settings this shard owns, then reports. */
export async function runStudy(plan: NormalizedPlan, shard: StudyCliOptions['shard'], deps: StudyDeps): Promise<StudyReport & Counts> {
  const { report, manifests: _m, ...counts } = await studyRuns(plan, shard, deps);
  return { ...report, ...counts };
}

/** runStudy's report as the CLI prints it: with each finding's verdict and the provenance of every
 *  run cited (provenance.ts studyExport). */
export async function runStudyExport(plan: NormalizedPlan, shard: StudyCliOptions['shard'], deps: StudyDeps): Promise<StudyExport & Counts> {
  const { report, manifests, ...counts } = await studyRuns(plan, shard, deps);
  return { ...studyExport(report, manifests, { version: deps.appVersion, commit: deps.appCommit ?? 'unknown' }), ...counts };
}

async function studyRuns(plan: NormalizedPlan, shard: StudyCliOptions['shard'], deps: StudyDeps): Promise<{ report: StudyReport; manifests: Map<string, RunManifest> } & Counts> {
  const { backend, manifests, counts } = recordFolderBackend(deps);
  const results = await executePlan(plan, backend, deps.appVersion, (i) => !shard || i % shard.count === shard.index - 1);
  return { report: await studyReport(plan, results), manifests, ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}), ...counts };
}

/** The checkout's commit, or "unknown" outside a git checkout. */
function gitCommit(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

async function main() {
  answerHelp(process.argv.slice(2), import.meta.url);
  let o: StudyCliOptions;
  let plan: NormalizedPlan;
  try {
    o = parseStudyCli(process.argv.slice(2));
    let raw: unknown;
    try {
      raw = parseJsonInput(readFileSync(o.plan, 'utf8'));
    } catch (e) {
      throw new StudyCliError(`cannot read the plan ${o.plan}: ${(e as Error).message}`);
    }
    plan = normalizePlan(raw);
    if (o.shardAuto) o.shard = schedulerShard(process.env, o.shardAuto.count, studySettings(plan).length);
    checkFolders(o);
  } catch (e) {
    printErr(`study: ${(e as Error).message}`);
    process.exit(2);
  }
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const dirs = [o.records, ...o.imports];
  const env = { endpoint: o.endpoint ?? process.env.HF_ENDPOINT, token: process.env.HF_TOKEN };
  try {
    printErr(`study ${plan.name}: plan ${(await planKey(plan)).slice(0, 12)}, records in ${o.records}`);
    const report = await runStudyExport(plan, o.shard, {
      openEngine: async (ref) => {
        const { createEngine } = await import('../src/engine/engine.ts');
        const engine = createEngine();
        const ep = await epLoad(o.ep);
        checkEp(await engine.load(modelSource(ref, root, env), { ...ep, dtype: plan.dtype }), ep);
        return engine;
      },
      loadTask: (spec, p) => loadTask(spec, studyTaskOptions(p)),
      readRun: (key) => {
        for (const d of dirs) {
          const f = path.join(d, `${key}.json`);
          if (existsSync(f)) return readFileSync(f, 'utf8');
        }
        return null;
      },
      writeRun: (key, text) => {
        // written whole, then renamed into place: an interrupted write never leaves a truncated file
        const f = path.join(o.records, `${key}.json`);
        writeFileSync(`${f}.partial`, text);
        renameSync(`${f}.partial`, f);
      },
      log: (line) => printErr(line),
      appVersion: (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version,
      appCommit: gitCommit(root),
    });
    process.stdout.write(JSON.stringify(report) + '\n');
  } catch (e) {
    printErr(`study: ${(e as Error).message}`);
    // a plan the task cannot hold (more questions than it has) is bad input too
    process.exit(e instanceof StudyCliError || (isStoreError(e) && e.code === 'bad-input') ? 2 : 1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();

// Headless studies (npm run -s study -- ...). Prints the findings report as one JSON object on
// stdout (with the plan as run, each finding's verdict and the provenance of every run cited),
// progress on stderr.
//
//   study --plan FILE [--shard i/n | --shard auto [--shard-count N]] [--records DIR] [--import DIR ...] [--endpoint URL] [--ep cpu|cuda|webgpu|webgpu-web|wasm]
//
// Every run of the plan is the single audit `npm run -s audit` with the same choices; each is
// written to the records folder as a ReachLab run file named by its run key (importable in the
// app's Library) and read back instead of recomputed when present, whole and passing the app's
// import checks (storedRunFile). --shard i/n computes only the
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
import { loadTask, runAudit } from '../src/audit/index.ts';
import { BUILTIN_MODELS, builtinModel, builtinRef } from '../src/audit/builtin-models.ts';
import { studyExport, type StudyExport } from '../src/audit/provenance.ts';
import { normalizePlan, planKey, plannedRuns, scanProbe, studySettings, type NormalizedPlan } from '../src/audit/study.ts';
import { studyReport, type StudyReport, type StudyRunResult } from '../src/audit/study-report.ts';
import type { LoadedTask, QuestionRecord, RunManifest } from '../src/audit/types.ts';
import type { CheckpointSource, Engine } from '../src/engine/types.ts';
import { checkRunFile, type RunFile } from '../src/store/run-file.ts';
import { verifyRunFile, type VerifiedRunFile } from '../src/store/import.ts';
import { isStoreError } from '../src/store/errors.ts';
import { manifestKey } from '../src/store/keys.ts';
import { parseJsonInput } from '../src/util/json-input.ts';
import { answerHelp } from './lib/cli-help.ts';
import { checkEp, epLoad, parseEp, type CliEp } from './lib/ep-flag.ts';
import { schedulerShard } from './lib/scheduler-shard.ts';
import { orderRecords } from '../src/store/records.ts';
import { runFile } from '../src/store/export.ts';
import { studyProbeRequest, studyScanRequest, studyTaskOptions, type StudyRunContext } from '../src/store/study.ts';
import type { RunRequest } from '../src/store/run-controller.ts';
import type { CoreAuditInput } from '../src/store/core-audit.ts';
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

/** The run file stored under `key` if it is that run, whole and as this version computes it: its
 *  stated run key and the key its own manifest and questions make are both `key` (a file copied
 *  under another run's name states another model, condition, budget or question list), it passes
 *  every check the app's import makes (import.ts verifyRunFile: each record the run's, once, and
 *  regraded from its attempts), and it holds every record its run asks for. Else the reason it is
 *  not: the run is then computed again and its file rewritten. */
async function storedRunFile(key: string, text: string): Promise<{ file: RunFile; records: QuestionRecord[] } | { problem: string }> {
  const name = `${key}.json`;
  let file: RunFile;
  try {
    file = checkRunFile(parseJsonInput(text), name);
  } catch (e) {
    return { problem: `the stored run file ${name} cannot be read (${(e as Error).message})` };
  }
  const made = await manifestKey(file.manifest, file.questions);
  if (file.run_key !== key || made !== key) return { problem: `the stored run file ${name} is another run (its manifest and questions make run ${made.slice(0, 12)})` };
  let verified: VerifiedRunFile;
  try {
    verified = await verifyRunFile(file, name);
  } catch (e) {
    if (!isStoreError(e)) throw e;
    return { problem: `the stored run file ${e.message}` };
  }
  if (!verified.regraded) return { problem: `the stored run file ${name} cannot be regraded by this version (its condition is unknown or graded by another grader version)` };
  const total = file.manifest.task.questions * file.manifest.probes.length;
  if (verified.items.length !== total) return { problem: `the stored run file ${name} holds ${verified.items.length} of the ${total} records its run asks for` };
  return { file, records: verified.items.map((it) => it.record) };
}

export interface StudyDeps {
  openEngine(ref: string): Promise<Engine>;
  loadTask(spec: string, plan: NormalizedPlan): Promise<LoadedTask>;
  /** A stored run file's text by run key, or null. */
  readRun(runKey: string): string | null;
  writeRun(runKey: string, text: string): void;
  log(line: string): void;
  appVersion: string;
  /** The app's git commit (default "unknown"). */
  appCommit?: string;
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
  const results: StudyRunResult[] = [];
  const manifests = new Map<string, RunManifest>();
  let computed = 0;
  let reused = 0;
  const settings = studySettings(plan);
  const runs = plannedRuns(plan);
  const tasks = new Map<string, LoadedTask>();
  for (const model of [...new Set(settings.map((s) => s.model))]) {
    const mine = settings.filter((s, i) => s.model === model && (!shard || i % shard.count === shard.index - 1));
    if (mine.length === 0) continue;
    const engine = await deps.openEngine(model);
    try {
      const info = (await engine.info())!;
      for (const setting of mine) {
        let task = tasks.get(setting.task);
        if (!task) tasks.set(setting.task, (task = await deps.loadTask(setting.task, plan)));
        const ctx: StudyRunContext = { plan, setting, engine, info, task, appVersion: deps.appVersion, source: model };
        const done = new Map<string, StudyRunResult>();
        for (const run of runs.filter((r) => r.setting.model === setting.model && r.setting.task === setting.task)) {
          const req: RunRequest<CoreAuditInput> =
            run.probe === null ? await studyScanRequest(ctx, done.get(scanProbe(plan))!.records) : await studyProbeRequest(ctx, run.probe);
          const key = await manifestKey(req.manifest, req.questions);
          const text = deps.readRun(key);
          const stored = text === null ? null : await storedRunFile(key, text);
          if (stored && 'problem' in stored) deps.log(`warning: ${stored.problem}; computing the run again`);
          let result: StudyRunResult;
          if (stored && 'file' in stored) {
            result = { model, task: setting.task, label: run.label, run_key: key, records: stored.records };
            manifests.set(key, stored.file.manifest);
            reused++;
          } else {
            const started = performance.now();
            const res = await runAudit(engine, req.input);
            if (res.run_key !== key) throw new Error(`internal: run key ${res.run_key} differs from the request's ${key}`);
            const records = orderRecords(res.records, req.manifest.probes.map((p) => p.probe));
            const manifest = { ...req.manifest, status: 'finished' as const, finishedAt: new Date().toISOString() };
            const loaded = { manifest, records, run_key: key, questions: req.questions, legacy: false, importedFrom: [] }; // every record computed here
            deps.writeRun(key, JSON.stringify(runFile(loaded, { app: deps.appVersion, commit: deps.appCommit ?? 'unknown' }), null, 1));
            manifests.set(key, manifest);
            result = { model, task: setting.task, label: run.label, run_key: key, records };
            computed++;
            deps.log(`${model} · ${setting.task} · ${run.label}: ${records.length} records in ${((performance.now() - started) / 1000).toFixed(1)} s (run ${key.slice(0, 12)})`);
          }
          done.set(run.label, result);
          results.push(result);
        }
      }
    } finally {
      await engine.dispose();
    }
  }
  return { report: await studyReport(plan, results), manifests, ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}), computed, reused };
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

// Headless audit runner (npm run -s audit -- ...). Prints one JSON object on stdout.
//
//   audit --model DIR [--task builtin:arith-2d] [--questions 20] [--question-seed 1]
//         [--probe random-routes[,mcts-routes,depth-matched-routes,...]] [probe settings, listed below]
//         [--selectors majority,max-logprob,fixed-route]
//         [--scan] [--split-seed 0] [--compare DIR2] [--dtype f32|f16|q4|q4f16|q8|q8b] [--max-new-tokens N]
//         [--few-shot N] [--chat [--template-var enable_thinking=false|date_string="26 Jul 2024"|...]] [--boxed]
//         [--prompt-template T] [--stop S ...] [--recipe qwen2.5-math-cot|simplerl-zoo|oat-zero|dapo]
//         [--ep cpu|cuda|webgpu|webgpu-web|wasm]
//         [--task-file PATH --question-field F --answer-field F [--choices-field F] --answer-format F]
//         [--rows-endpoint URL] [--rows-per-call N]
//
// --question-seed picks the questions (built-in generators) and each question's few-shot examples;
// --seed drives the probes' draws only, so probes run with different seeds score the same questions.
// The probe settings (each probe declares its own, with defaults and bounds) follow this text.
//   audit grade --format F --gold G --response R [--choices A,B,C,D]     (F: an answer format, listed below)
//   audit grade --format F --cases FILE.jsonl   one line {gold, response[, choices]} per case; prints one
//         JSON line {extracted, correct} per case, in order; a line that cannot be graded prints
//         {line, error} in its place, is named on stderr, and makes the exit status 1
//
// --ep picks the EP and runtime (scripts/lib/ep-flag.ts: cpu where the native package is installed,
// else wasm); the output's model.engine names the EP, runtime, dtype and adapter. Bad arguments exit 2 with a message on stderr; audit failures exit 1.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseStops } from '../src/audit/stops.ts';
import { ENGINE_DTYPES, type Engine, type EngineDtype, type ModelInfo, type TemplateVars } from '../src/engine/types.ts';
import {
  auditCondition,
  parseTemplateVars,
  ceilingDecoy,
  compareProbes,
  guidanceComparisons,
  compareRecords,
  boundsText,
  fits,
  flagOf,
  grade,
  gradeCases,
  FORMAT_NAMES,
  FORMATS,
  PROBE_SETTINGS,
  probeChoice,
  settingsUsage,
  loadTask,
  probeSpecOf,
  probeOf,
  PROBE_NAMES,
  PROBES,
  DEPLOYMENT,
  UNIFORM_BASELINE,
  STANDALONE_REACH,
  SELECTOR_NAMES,
  isDeployment,
  isIntervention,
  isReach,
  runAudit,
  silencingScan,
  taskLoadOptions,
  type AnswerFormat,
  type AuditResult,
  type Condition,
  type LoadedTask,
  type ProbeChoice,
  type ProbeName,
  type Setting,
  type ProbeSpec,
  type QuestionRecord,
  type SelectorName,
} from '../src/audit/index.ts';
import { runProbes } from '../src/audit/run-definition.ts';
import { RECIPE_NAMES } from '../src/audit/recipes.ts';
import { cliKey, METRICS, metricValue } from '../src/audit/metrics/registry.ts';
import { TASKS, taskChoiceLabel } from '../src/audit/tasks/registry.ts';
import { answerHelp } from './lib/cli-help.ts';
import { checkEp, engineOf, epLoad, parseEp, type CliEp } from './lib/ep-flag.ts';
import { printErr } from './lib/terminal.ts';

export class CliError extends Error {}

export type Command =
  | { kind: 'grade'; format: AnswerFormat; gold: string; response: string; choices?: string[] }
  | { kind: 'grade-cases'; format: AnswerFormat; cases: string }
  | { kind: 'audit'; opts: AuditCliOptions };

/** The audit's options: its probes' settings (choice.ts ProbeChoice, defaults filled in) and the rest. */
export interface AuditCliOptions extends ProbeChoice {
  model: string;
  compare?: string;
  task: string;
  questions: number;
  /** Which questions and which few-shot examples (independent of the probes' seed). */
  questionSeed: number;
  trainQuestions?: number;
  /** The probes after deployment, in order (deployment alone when only it is asked for). */
  probes: ProbeName[];
  selectors: SelectorName[];
  scan: boolean;
  splitSeed: number;
  dtype: EngineDtype;
  ep: CliEp;
  maxNewTokens?: number;
  fewShot: number;
  chat: boolean;
  /** --template-var NAME=VALUE, repeatable: the chat condition's template variables. */
  templateVars?: Partial<TemplateVars>;
  /** CoLa's condition, as Setup's CoLa preset sets it (boxed.ts): greedy, 50 new tokens, no stop
   *  sequences, the answer asked for and graded only in \boxed{}. */
  boxed: boolean;
  /** --recipe: a math recipe's condition (recipes.ts). */
  recipe?: string;
  /** The condition's prompt template (with {{question}}) and stop sequences, as Setup sets them. */
  promptTemplate?: string;
  stopSequences?: string[];
  taskFile?: { path: string; question: string; answer: string; choices?: string; answerFormat: AnswerFormat };
  rowsEndpoint?: string;
  rowsPerCall?: number;
}

function cliTemplateVars(settings: string[]): Partial<TemplateVars> {
  try {
    return parseTemplateVars(settings);
  } catch (e) {
    throw new CliError(`--template-var: ${(e as Error).message}`);
  }
}

function int(name: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min) throw new CliError(`--${name} must be an integer ≥ ${min}, got "${v}"`);
  if (!Number.isSafeInteger(Number(v))) throw new CliError(`--${name} must be at most ${Number.MAX_SAFE_INTEGER} (larger integers are not exact in JSON), got "${v}"`);
  return Number(v);
}

/** A probe setting's value as its flag gives it, checked against the setting's bounds. */
function settingValue(name: string, s: Setting, v: string | boolean): number | string | boolean {
  const flag = flagOf(name);
  if (s.kind === 'flag') return v;
  const text = v as string;
  if (s.kind === 'choice') return oneOf(flag.slice(2), text, s.options, s.default);
  const x = Number(text);
  const ok = s.kind === 'int' ? /^-?\d+$/.test(text) && x >= s.min && (s.max === undefined || x <= s.max) : text.trim() !== '' && Number.isFinite(x) && fits(s, x);
  if (!ok) throw new CliError(`${flag} must be ${boundsText(s)}, got "${text}"`);
  if (s.kind === 'int' && !Number.isSafeInteger(x)) throw new CliError(`${flag} must be at most ${Number.MAX_SAFE_INTEGER} (larger integers are not exact in JSON), got "${text}"`);
  return x;
}

/** The probe settings' flags, one per setting every probe declares. */
const SETTING_OPTIONS = Object.fromEntries([...PROBE_SETTINGS].map(([name, { setting }]) => [flagOf(name).slice(2), { type: setting.kind === 'flag' ? ('boolean' as const) : ('string' as const) }]));

function oneOf<T extends string>(name: string, v: string | undefined, allowed: readonly T[], dflt: T): T {
  if (v === undefined) return dflt;
  if (!allowed.includes(v as T)) throw new CliError(`--${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
}

export function parseCli(argv: string[]): Command {
  if (argv[0] === 'grade') {
    let values: Record<string, string | boolean | undefined>;
    try {
      ({ values } = parseArgs({
        args: argv.slice(1),
        options: { format: { type: 'string' }, gold: { type: 'string' }, response: { type: 'string' }, choices: { type: 'string' }, cases: { type: 'string' } },
        strict: true,
        allowPositionals: false,
      }));
    } catch (e) {
      throw new CliError(`grade: ${(e as Error).message}`);
    }
    const v = values as Record<string, string | undefined>;
    if (v.cases !== undefined) {
      if (v.format === undefined) throw new CliError('grade --cases needs --format');
      if (v.gold !== undefined || v.response !== undefined || v.choices !== undefined) throw new CliError('grade --cases reads gold, response and choices from each line; drop --gold, --response and --choices');
      return { kind: 'grade-cases', format: oneOf('format', v.format, FORMAT_NAMES, 'numeric'), cases: v.cases };
    }
    if (v.format === undefined || v.gold === undefined || v.response === undefined) throw new CliError('grade needs --format, --gold and --response (or --format and --cases FILE.jsonl)');
    return {
      kind: 'grade',
      format: oneOf('format', v.format, FORMAT_NAMES, 'numeric'),
      gold: v.gold,
      response: v.response,
      ...(v.choices !== undefined ? { choices: v.choices.split(',') } : {}),
    };
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        model: { type: 'string' },
        compare: { type: 'string' },
        task: { type: 'string' },
        questions: { type: 'string' },
        'question-seed': { type: 'string' },
        'train-questions': { type: 'string' },
        probe: { type: 'string' },
        ...SETTING_OPTIONS,
        selectors: { type: 'string' },
        scan: { type: 'boolean' },
        'split-seed': { type: 'string' },
        dtype: { type: 'string' },
        ep: { type: 'string' },
        'max-new-tokens': { type: 'string' },
        'few-shot': { type: 'string' },
        chat: { type: 'boolean' },
        'template-var': { type: 'string', multiple: true },
        boxed: { type: 'boolean' },
        recipe: { type: 'string' },
        'prompt-template': { type: 'string' },
        stop: { type: 'string', multiple: true },
        'task-file': { type: 'string' },
        'question-field': { type: 'string' },
        'answer-field': { type: 'string' },
        'choices-field': { type: 'string' },
        'answer-format': { type: 'string' },
        'rows-endpoint': { type: 'string' },
        'rows-per-call': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const v = values as Record<string, string | undefined> & { scan?: boolean; chat?: boolean; boxed?: boolean; stop?: string[] };
  const settings = Object.fromEntries([...PROBE_SETTINGS].flatMap(([name, { setting }]) => {
    const given = values[flagOf(name).slice(2)] as string | boolean | undefined;
    return given === undefined ? [] : [[name, settingValue(name, setting, given)]];
  }));
  const template = v['prompt-template'];
  if (template !== undefined && !template.includes('{{question}}')) throw new CliError(`--prompt-template must contain {{question}}, where each question goes; got "${template}"`);
  // one stop sequence per --stop, with \n, \t and \\ written as escapes (as Setup's stop field takes them)
  const stops = v.stop?.map((s) => parseStops(s));
  if (stops?.some((s) => s.length !== 1)) throw new CliError('--stop takes one non-empty stop sequence each (\\n for a newline)');
  if (!v.model) throw new CliError('--model DIR is required (a checkpoint folder in Hugging Face layout)');
  const named = (v.probe ?? UNIFORM_BASELINE).split(',').map((p) => oneOf('probe', p, PROBE_NAMES, UNIFORM_BASELINE));
  if (new Set(named).size !== named.length) throw new CliError(`--probe lists a probe twice: "${v.probe}"`);
  const probes = named.length > 1 ? named.filter((p) => p !== DEPLOYMENT) : named;
  // only reach probes take a budget: deployment's attempt is not charged, a scan's is one per layer
  if (probes.length === 1 && !isReach({ probe: probes[0] }) && v.budget !== undefined) {
    throw new CliError(`--budget does not apply to ${probes[0]}: ${probes[0] === DEPLOYMENT ? 'the deployment attempt is not charged' : 'its budget is one attempt per layer'}`);
  }
  const selectors = (v.selectors ? v.selectors.split(',') : []).map((s) => oneOf('selectors', s, SELECTOR_NAMES, 'majority'));
  let taskFile: AuditCliOptions['taskFile'];
  if (v['task-file'] !== undefined) {
    if (!v['question-field'] || !v['answer-field'] || !v['answer-format']) throw new CliError('--task-file needs --question-field, --answer-field and --answer-format');
    taskFile = {
      path: v['task-file'],
      question: v['question-field'],
      answer: v['answer-field'],
      ...(v['choices-field'] ? { choices: v['choices-field'] } : {}),
      answerFormat: oneOf('answer-format', v['answer-format'], FORMAT_NAMES, 'numeric'),
    };
  }
  return {
    kind: 'audit',
    opts: {
      model: v.model,
      ...(v.compare !== undefined ? { compare: v.compare } : {}),
      task: taskFile ? `file:${path.basename(taskFile.path)}` : (v.task ?? 'builtin:arith-2d'),
      questions: int('questions', v.questions, 1) ?? 20,
      questionSeed: int('question-seed', v['question-seed'], 0) ?? 1,
      trainQuestions: int('train-questions', v['train-questions'], 0),
      probes,
      ...probeChoice(settings),
      selectors,
      scan: v.scan ?? false,
      splitSeed: int('split-seed', v['split-seed'], 0) ?? 0,
      dtype: oneOf('dtype', v.dtype, ENGINE_DTYPES, 'f32'),
      ep: parseEp(v.ep),
      maxNewTokens: int('max-new-tokens', v['max-new-tokens'], 1),
      fewShot: int('few-shot', v['few-shot'], 0) ?? 0,
      chat: v.chat ?? false,
      ...(values['template-var'] ? { templateVars: cliTemplateVars(values['template-var'] as string[]) } : {}),
      boxed: v.boxed ?? false,
      ...(v.recipe !== undefined ? { recipe: oneOf('recipe', v.recipe, RECIPE_NAMES, RECIPE_NAMES[0]) } : {}),
      ...(template !== undefined ? { promptTemplate: template } : {}),
      ...(stops ? { stopSequences: stops.flat() } : {}),
      ...(taskFile ? { taskFile } : {}),
      ...(v['rows-endpoint'] ? { rowsEndpoint: v['rows-endpoint'] } : {}),
      rowsPerCall: int('rows-per-call', v['rows-per-call'], 1),
    },
  };
}

/** The probes an audit runs for one model: deployment, then the chosen probes. */
function probesFor(o: AuditCliOptions, info: ModelInfo): ProbeSpec[] {
  return runProbes(o.probes.map((p) => probeSpecOf(p, o, info.numLayers)).filter((s): s is ProbeSpec => s !== null));
}

export interface CliDeps {
  loadEngine: (dir: string, dtype: EngineDtype) => Promise<Engine>;
  readText: (file: string) => Promise<string>;
}

function joinRecords(res: AuditResult) {
  const deploy = new Map(res.records.filter(isDeployment).map((r) => [r.doc_id, r]));
  const probe = res.records.filter((r) => !isDeployment(r));
  const rows: (QuestionRecord & { ceiling: boolean; ceiling_decoy: boolean | null; deployment: { response: string; extracted: string; correct: boolean } })[] = [];
  for (const r of probe.length ? probe : [...deploy.values()]) {
    const d = deploy.get(r.doc_id)!;
    const a = d.attempts[0];
    const realized = d.realized === true;
    rows.push({
      ...r,
      realized,
      realized_decoy: d.realized_decoy,
      ceiling: realized || r.reachable === true,
      ceiling_decoy: r === d ? d.realized_decoy : ceilingDecoy(d, r),
      deployment: { response: a.response, extracted: a.extracted, correct: a.correct },
    });
  }
  return rows;
}

/** The first probe's numbers at the top level; every probe's summary under `probes`. */
function headline(res: AuditResult) {
  const s = res.summary;
  const p = s.probes[0];
  return {
    run_key: res.run_key,
    realized: s.realized,
    // the first probe's metrics (metrics/registry.ts), null for a run without a probe
    ...Object.fromEntries(METRICS.map((m) => [cliKey(m), p ? metricValue(p, m) : null])),
    reach_at_k: p ? p.reach_at_k : [],
    space_exhausted: p ? p.space_exhausted : 0,
    invalid: s.invalid,
    ...(p?.selectors ? { selectors: p.selectors } : {}),
    probes: s.probes,
  };
}

/** `grade --cases`: one output line per case, in order, and what is wrong with each bad line. */
export function caseLines(format: AnswerFormat, file: string, text: string): { lines: string[]; problems: string[] } {
  const lines: string[] = [];
  const problems: string[] = [];
  for (const r of gradeCases(format, text)) {
    if ('grade' in r) lines.push(JSON.stringify(r.grade));
    else {
      lines.push(JSON.stringify({ line: r.line, error: r.error }));
      problems.push(`${file} line ${r.line}: ${r.error}`);
    }
  }
  return { lines, problems };
}

export async function runCli(cmd: Command, deps: CliDeps): Promise<unknown> {
  if (cmd.kind === 'grade') return grade(cmd.format, cmd.gold, cmd.response, cmd.choices ? { choices: cmd.choices } : {});
  if (cmd.kind === 'grade-cases') return caseLines(cmd.format, cmd.cases, await deps.readText(cmd.cases));
  const o = cmd.opts;
  const task: LoadedTask = await loadTask(o.task, {
    ...taskLoadOptions(o),
    ...(o.rowsEndpoint ? { rowsEndpoint: o.rowsEndpoint } : {}),
    ...(o.taskFile
      ? {
          file: {
            text: await deps.readText(o.taskFile.path),
            mapping: { question: o.taskFile.question, answer: o.taskFile.answer, ...(o.taskFile.choices ? { choices: o.taskFile.choices } : {}) },
            answerFormat: o.taskFile.answerFormat,
          },
        }
      : {}),
  });
  const condition: Condition = await auditCondition(task, o);
  const reachProbes = o.probes.filter((p) => isReach({ probe: p }));
  if (o.scan && reachProbes.length !== 1) throw new CliError(`--scan needs exactly one reachability probe (${STANDALONE_REACH.join(', ')}) to define the failure set`);
  const audit = async (dir: string) => {
    const engine = await deps.loadEngine(dir, o.dtype);
    try {
      const info = (await engine.info())!;
      const res = await runAudit(engine, { task, condition, probes: probesFor(o, info), selectors: o.selectors, ...(o.rowsPerCall ? { rowsPerCall: o.rowsPerCall } : {}) });
      const scan = o.scan
        ? (await silencingScan(engine, { task, condition, records: res.records.filter((r) => !isIntervention(r)), splitSeed: o.splitSeed })).scan
        : undefined;
      return { info, res, scan };
    } finally {
      await engine.dispose();
    }
  };
  const a = await audit(o.model);
  const probeRecords = a.res.records.filter((r) => !isDeployment(r));
  const keys = [...new Set(probeRecords.map((r) => r.probe_key))];
  const out: Record<string, unknown> = {
    condition_key: a.res.condition_key,
    ...(condition.templateVars ? { template_vars: condition.templateVars } : {}),
    question_seed: o.questionSeed,
    seed: o.seed,
    model: { dir: o.model, fingerprint: a.info.fingerprint, name: a.info.name, numLayers: a.info.numLayers, chatTemplateFile: a.info.chatTemplateFile ?? null, engine: engineOf(a.info) },
    task: { id: task.spec.id, version: task.spec.metadata.version, questions: task.test.length },
    probe: probeRecords[0]?.probe_spec ?? { probe: DEPLOYMENT },
    ...headline(a.res),
    // every later probe against the first, at matched attempts (e.g. random routes − MCTS)
    ...(keys.length > 1 ? { comparisons: keys.slice(1).map((k) => compareProbes(a.res.records, keys[0], k)) } : {}),
    // random − MCTS for both baselines (uniform routes, depth-matched walks) of each MCTS preset
    ...(a.res.records.some((r) => probeOf(r).sawGold) ? { guidance: guidanceComparisons(a.res.records) } : {}),
    ...(a.scan ? { silencing: a.scan } : {}),
  };
  if (o.compare !== undefined) {
    if (reachProbes.length !== 1) throw new CliError(`--compare needs exactly one reachability probe (${STANDALONE_REACH.join(', ')})`);
    const b = await audit(o.compare);
    out.compare = {
      model: { dir: o.compare, fingerprint: b.info.fingerprint, name: b.info.name, numLayers: b.info.numLayers },
      ...headline(b.res),
      comparison: compareRecords(a.res.records, b.res.records),
    };
  }
  out.records = joinRecords(a.res);
  return out;
}

async function main() {
  const list = (rows: string[]) => rows.map((r) => `  ${r}`).join('\n');
  answerHelp(
    process.argv.slice(2),
    import.meta.url,
    [
      `Answer formats:\n${list(FORMATS.map((f) => `${f.name}: ${f.label} (grader version ${f.version})`))}`,
      `Probes (--probe; deployment always runs):\n${list(PROBES.filter((p) => !isDeployment({ probe: p.name })).map((p) => `${p.name}: ${p.label}`))}`,
      `Probe settings:\n${settingsUsage()}`,
      `Tasks (--task):\n${list(TASKS.map((t) => `${t.ref}: ${taskChoiceLabel(t)}`))}`,
      `Metrics (each probe's headline):\n${list(METRICS.map((m) => `${cliKey(m)}: ${m.term}`))}`,
    ].join('\n\n'),
  );
  let cmd: Command;
  try {
    cmd = parseCli(process.argv.slice(2));
  } catch (e) {
    printErr(`audit: ${(e as Error).message}`);
    process.exit(2);
  }
  try {
    const deps: CliDeps = {
      loadEngine: async (dir, dtype) => {
        const { createEngine } = await import('../src/engine/engine.ts');
        const engine = createEngine();
        const ep = await epLoad(cmd.kind === 'audit' ? cmd.opts.ep : 'default');
        checkEp(await engine.load({ kind: 'fs', dir: path.resolve(dir) }, { ...ep, dtype }), ep);
        return engine;
      },
      readText: (file) => readFile(file, 'utf8'),
    };
    const out = await runCli(cmd, deps);
    if (cmd.kind === 'grade-cases') {
      const { lines, problems } = out as ReturnType<typeof caseLines>;
      if (lines.length) process.stdout.write(lines.join('\n') + '\n');
      for (const p of problems) process.stderr.write(`audit: ${p}\n`);
      process.exit(problems.length ? 1 : 0);
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) {
    printErr(`audit: ${(e as Error).message}`);
    process.exit(e instanceof CliError ? 2 : 1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();

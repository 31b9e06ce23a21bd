// The audit driver, one for every probe (docs/ARCHITECTURE.md "Probes"). Probes run one after
// another (a probe after the one whose records it reads); within a probe, questions advance in
// lockstep: each question's session proposes a round of attempts, every live question's round runs
// in one batch of engine calls, each session observes its grades, and a question's record
// (record.ts makeRecord) is emitted the moment its session proposes nothing more. Records already
// stored are skipped through the `skip` hook (their keys: condition.ts recordKeyOf, which include
// the question's content and prompt hashes). Same inputs and seeds give byte-identical records:
// every random choice is seeded from (probe seed, question id).

import type { Engine, ModelInfo } from '../engine/types';
import { checkQuestionFits, conditionSampling, prepareQuestion, runAttempts, throwIfAborted, type AttemptRequest, type Graded, type Question } from './attempts';
import { conditionKey, fewShotPoolHash, probeKey, recordKeyOf, runKey, validateCondition, type QuestionIdentity } from './condition';
import { AuditError } from './errors';
import type { Ask, Probe, ProbeContext } from './probes/probe';
import { bindProbes, isDeployment, probeOf, validateProbeSpec } from './probes/registry';
import { makeRecord } from './record';
import { routeToString } from './routes';
import { answerKeyOf } from './formats/registry';
import { chooseFixedRoute, fixedRoutePick, SELECTOR_NAMES, selectorPick } from './selectors';
import { summarize } from './summary';
import type { Attempt, AuditSummary, Condition, Doc, LoadedTask, ProbeSpec, QuestionRecord, SelectorName, SelectorPick } from './types';
import { quote } from '../util/clip';

export interface AuditOptions {
  task: LoadedTask;
  condition: Condition;
  probes: ProbeSpec[];
  /** Audit the first n test questions (default: all loaded). */
  questions?: number;
  /** Audit exactly these questions instead (the silencing scan uses this). */
  docs?: Doc[];
  /** Answer-blind selectors to apply to every probe's attempts (fixed-route: route probes only). */
  selectors?: SelectorName[];
  /** Train questions the fixed-route selector calibrates on (default 20). */
  calibrationQuestions?: number;
  /** Rows per engine call (default 64). */
  rowsPerCall?: number;
  onRecord?: (r: QuestionRecord) => void | Promise<void>;
  /** Progress within the questions being worked on, after each engine call: a long question
   *  (a large budget) shows it is moving before its record is made. */
  onAttempts?: (p: AttemptProgress) => void;
  signal?: AbortSignal;
  /** Return true for record keys already stored; those (question, probe) units are not run. */
  skip?: (key: string) => boolean;
  /** The stored record under a key `skip` accepted: a probe that depends on another (Probe.dependsOn)
   *  reads that probe's stored records through it. */
  stored?: (key: string) => QuestionRecord | undefined;
}

/** Attempts decoded for the questions one probe works on now, of the most they can make
 *  (Probe.maxAttempts each; a search that stops early or a space exhausted makes fewer). */
export interface AttemptProgress {
  probe: ProbeSpec['probe'];
  /** Questions worked on together (one group of the lockstep). */
  questions: number;
  done: number;
  of: number;
}

export interface Calibration {
  route: number[];
  /** Accuracy of the route on the calibration questions (gold used there). */
  accuracy: number;
  n: number;
}

export interface AuditResult {
  /** The run's content address (condition.ts runKey). */
  run_key: string;
  /** The audited questions in order, as the run key sees them. */
  questions: QuestionIdentity[];
  condition_key: string;
  model_fingerprint: string;
  task_id: string;
  task_version: number;
  records: QuestionRecord[];
  summary: AuditSummary;
  skipped: number;
  rows: number;
  /** probe key → the fixed route chosen on the train split. */
  calibration: Record<string, Calibration>;
}

interface RunState {
  info: ModelInfo;
  /** The audit's probes, bound to the run (registry.ts bindProbes), with their keys. */
  probes: ProbeSpec[];
  probe_keys: string[];
  condition_key: string;
  run_key: string;
  /** The audited questions, prepared (prompt, ids, hashes), in order. */
  questions: Question[];
  skipped: number;
  rows: number;
  calibration: Record<string, Calibration>;
}

async function checkSetup(engine: Engine, o: AuditOptions): Promise<RunState> {
  const info = await engine.info();
  if (!info) throw new AuditError('bad-input', 'the engine has no model loaded');
  validateCondition(o.condition);
  if (o.condition.engineDtype !== info.dtype) {
    throw new AuditError('bad-input', `the condition says engine dtype ${o.condition.engineDtype} but the engine runs ${info.dtype}`);
  }
  const names = new Set<string>();
  for (const spec of o.probes) {
    validateProbeSpec(spec, info.numLayers);
    if (names.has(spec.probe)) throw new AuditError('bad-input', `probe "${spec.probe}" is listed twice; one spec per probe in an audit`);
    names.add(spec.probe);
    if (probeOf(spec).needsGeneration && o.condition.mcMode === 'loglik') throw new AuditError('bad-input', `the ${spec.probe} probe needs generated answers; the condition scores letters (mcMode loglik)`);
  }
  for (const s of o.selectors ?? []) if (!SELECTOR_NAMES.includes(s)) throw new AuditError('bad-input', `unknown selector "${s}" (known: ${SELECTOR_NAMES.join(', ')})`);
  const rpc = o.rowsPerCall ?? 64;
  if (!Number.isInteger(rpc) || rpc < 1) throw new AuditError('bad-input', `rowsPerCall must be a positive integer, got ${rpc}`);
  if (o.condition.fewShot.n > 0 && o.condition.fewShot.pool !== (await fewShotPoolHash(o.task.train))) {
    throw new AuditError(
      'bad-input',
      o.condition.fewShot.pool === undefined
        ? 'the condition asks for few-shot examples but does not name their pool; bind it to the task (bindFewShotPool) so the pool enters the condition key'
        : "the condition's few-shot pool is not this task's train split (another pool, or another number of train questions loaded)",
    );
  }
  const docs = o.docs ?? o.task.test.slice(0, o.questions ?? o.task.test.length);
  const questions: Question[] = [];
  for (const d of docs) {
    throwIfAborted(o.signal);
    const q = await prepareQuestion(engine, o.condition, d, o.task.train);
    checkQuestionFits(q, o.condition, info.maxSeqLen, questionWhere(o.task, d.id));
    questions.push(q);
  }
  const condition_key = await conditionKey(o.condition);
  const probes = await bindProbes(o.probes, questions.map(identityOf));
  const probe_keys: string[] = [];
  for (const spec of probes) probe_keys.push(await probeKey(spec));
  const run_key = await runKey({ model_fingerprint: info.fingerprint, condition_key, probe_keys, questions: questions.map(identityOf) });
  return { info, probes, probe_keys, condition_key, run_key, questions, skipped: 0, rows: 0, calibration: {} };
}

const identityOf = (q: Question): QuestionIdentity => ({ doc_id: q.doc.id, doc_hash: q.doc_hash, prompt_hash: q.prompt_hash });

/** Records one by one, each as soon as it is complete. */
export async function* auditRecords(engine: Engine, o: AuditOptions): AsyncGenerator<QuestionRecord> {
  yield* recordsWith(engine, o, await checkSetup(engine, o));
}

/** Probes in run order: each after the probe whose records it reads (Probe.dependsOn). */
function runOrder(st: RunState): { spec: ProbeSpec; key: string }[] {
  const all = st.probes.map((spec, i) => ({ spec, key: st.probe_keys[i] }));
  const dependent = (p: { spec: ProbeSpec }) => probeOf(p.spec).dependsOn?.(p.spec) != null;
  return [...all.filter((p) => !dependent(p)), ...all.filter(dependent)];
}

async function* recordsWith(engine: Engine, o: AuditOptions, st: RunState): AsyncGenerator<QuestionRecord> {
  const onAbort = () => void engine.cancel();
  o.signal?.addEventListener('abort', onAbort);
  const exec: Exec = async (reqs, onRows) => {
    const out = await runAttempts(engine, o.condition, reqs, { rowsPerCall: o.rowsPerCall ?? 64, signal: o.signal, ...(onRows ? { onRows } : {}) });
    st.rows += reqs.length;
    return out;
  };
  // records (computed or stored) of the probes another probe reads
  const read = new Set(st.probes.map((s) => probeOf(s).dependsOn?.(s)).filter((k): k is string => !!k));
  const kept = new Map<string, QuestionRecord[]>();
  try {
    for (const { spec, key } of runOrder(st)) {
      const probe = probeOf(spec);
      const base = { spec, probe_key: key, condition_key: st.condition_key, model_fingerprint: st.info.fingerprint, task_id: o.task.spec.id, task_version: o.task.spec.metadata.version };
      const mine: QuestionRecord[] = [];
      kept.set(key, mine);
      const todo = st.questions.filter((q) => {
        const rk = recordKeyOf({ ...base, ...identityOf(q) });
        if (!(o.skip?.(rk) ?? false)) return true;
        st.skipped++;
        if (read.has(key)) {
          const stored = o.stored?.(rk);
          if (!stored) throw new AuditError('bad-input', `a probe of this run reads the stored ${spec.probe} record of question ${q.doc.id}, and the store did not hand it over`);
          mine.push(stored);
        }
        return false;
      });
      if (todo.length === 0) continue;
      const dep = probe.dependsOn?.(spec);
      const ctx: ProbeContext = { numLayers: st.info.numLayers, condition: o.condition, dependency: dep ? (kept.get(dep) ?? []) : [] };
      const pick = await selectorsFor(engine, o, st, spec, key, exec);
      const record = async (q: Question, attempts: Attempt[]) => {
        const r = makeRecord({ ...base, question: q, attempts, condition: o.condition, extra: probe.recordFields?.(spec, ctx) });
        if (pick) r.selectors = await pick(q, attempts);
        if (read.has(key)) mine.push(r);
        return r;
      };
      yield* lockstep(probe, spec, todo, ctx, Math.max(1, Math.floor((o.rowsPerCall ?? 64) / probe.roundSize(spec))), o, exec, record);
    }
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/** Runs one probe on `todo`, `group` questions at a time: every round, each live question's
 *  session proposes its asks, all of them run in one batch, and each session observes its grades;
 *  a question's record is made once its session proposes nothing more. */
async function* lockstep(
  probe: Probe<ProbeSpec>,
  spec: ProbeSpec,
  todo: readonly Question[],
  ctx: ProbeContext,
  group: number,
  o: AuditOptions,
  exec: Exec,
  record: (q: Question, attempts: Attempt[]) => Promise<QuestionRecord>,
): AsyncGenerator<QuestionRecord> {
  const attemptMajor = probe.attemptMajor?.(spec) ?? false;
  for (let at = 0; at < todo.length; at += group) {
    const qs = todo.slice(at, at + group);
    const sessions = qs.map((q) => probe.start(spec, q, ctx));
    const progress: AttemptProgress = { probe: spec.probe, questions: qs.length, done: 0, of: qs.length * probe.maxAttempts(spec) };
    const rows = (n: number) => {
      // uncharged decodes (an MCTS revert to the default route) may pass the most charged
      progress.done = Math.min(progress.of, progress.done + n);
      o.onAttempts?.({ ...progress });
    };
    const attempts: Attempt[][] = qs.map(() => []);
    const live = new Set(qs.map((_, i) => i));
    while (live.size) {
      throwIfAborted(o.signal);
      const round: { i: number; asks: Ask[] }[] = [];
      const finished: number[] = [];
      for (const i of live) {
        const asks = sessions[i].propose();
        if (asks) round.push({ i, asks });
        else finished.push(i);
      }
      // [question, ask] pairs in run order: attempt-major runs one ask index of every question together
      const width = Math.max(0, ...round.map((r) => r.asks.length));
      const order = attemptMajor
        ? Array.from({ length: width }, (_, j) => round.filter((r) => j < r.asks.length).map((r) => [r, j] as const)).flat()
        : round.flatMap((r) => r.asks.map((_, j) => [r, j] as const));
      const graded = await exec(order.map(([r, j]) => requestOf(qs[r.i], r.asks[j], o.condition)), rows);
      const byRound = new Map(round.map((r) => [r, [] as Graded[]]));
      order.forEach(([r, j], k) => (byRound.get(r)![j] = graded[k]));
      for (const r of round) {
        const g = byRound.get(r)!;
        r.asks.forEach((ask, j) => {
          if (ask.charged !== false) attempts[r.i].push({ index: attempts[r.i].length, ...g[j], ...(ask.depth !== undefined ? { depth: ask.depth } : {}) });
        });
        sessions[r.i].observe(g.map((x) => x.correct));
      }
      for (const i of finished) {
        live.delete(i);
        yield await record(qs[i], attempts[i]);
      }
    }
  }
}

const requestOf = (q: Question, ask: Ask, cond: Condition): AttemptRequest => ({
  q,
  route: ask.route,
  silence: ask.silence,
  sampling: ask.sampling ?? conditionSampling(cond, q.doc.id),
  ...(ask.sample !== undefined ? { sample: ask.sample } : {}),
});

type Exec = (reqs: AttemptRequest[], onRows?: (rows: number) => void) => Promise<Graded[]>;

/** The answer-blind selectors' picks for one probe's records; null when none apply. majority and
 *  max-logprob are answer-blind only over attempts chosen without the gold answer; the fixed route
 *  was chosen on calibration questions, so its pick always is. */
async function selectorsFor(engine: Engine, o: AuditOptions, st: RunState, spec: ProbeSpec, key: string, exec: Exec) {
  const probe = probeOf(spec);
  if (isDeployment(spec)) return null;
  const selectors = [...(o.selectors ?? [])].filter((s) => s !== 'fixed-route' || probe.candidates).sort();
  if (selectors.length === 0) return null;
  const fixed = selectors.includes('fixed-route') ? await calibrate(engine, o, probe.candidates!(spec), exec) : null;
  if (fixed) st.calibration[key] = fixed;
  return async (q: Question, attempts: Attempt[]): Promise<Record<string, SelectorPick>> => {
    const out: Record<string, SelectorPick> = {};
    for (const s of selectors) {
      if (s !== 'fixed-route') out[s] = selectorPick({ probe: spec.probe, attempts }, s, answerKeyOf(o.condition))!;
      else if (fixed) {
        const hit = fixedRoutePick(attempts, fixed.route);
        if (hit) out[s] = { ...hit, blind: true };
        else {
          // the fixed route was not among this question's draws: one extra, uncharged decode, kept
          // with its response so that an import can regrade it
          const [g] = await exec([{ q, route: fixed.route, silence: [], sampling: conditionSampling(o.condition, q.doc.id) }]);
          out[s] = { extracted: g.extracted, correct: g.correct, blind: true, attempt: null, route: fixed.route.slice(), response: g.response };
        }
      }
    }
    return out;
  };
}

/** A question as a message names it: its id, and its row in the task file it came from. */
function questionWhere(task: LoadedTask, id: string): string {
  const row = task.rows?.get(id);
  return `question ${quote(id)}${row !== undefined ? ` (row ${row} of ${quote(task.spec.name)})` : ''}`;
}

/** Fixed-route calibration: the probe's candidate routes on train questions, gold used there. */
async function calibrate(engine: Engine, o: AuditOptions, routes: number[][], exec: Exec): Promise<Calibration> {
  const train = o.task.train.slice(0, o.calibrationQuestions ?? 20);
  if (train.length === 0) throw new AuditError('bad-input', 'the fixed-route selector calibrates on train questions; the task has none loaded');
  const qs: Question[] = [];
  const { maxSeqLen } = (await engine.info())!;
  for (const d of train) {
    const q = await prepareQuestion(engine, o.condition, d, o.task.train.filter((t) => t.id !== d.id));
    checkQuestionFits(q, o.condition, maxSeqLen, `calibration ${questionWhere(o.task, d.id)}`);
    qs.push(q);
  }
  const reqs = routes.flatMap((route) => qs.map((q) => ({ q, route, silence: [], sampling: conditionSampling(o.condition, q.doc.id) })));
  const graded = await exec(reqs);
  const correct = new Map<string, number>();
  graded.forEach((g, i) => {
    const k = routeToString(reqs[i].route);
    correct.set(k, (correct.get(k) ?? 0) + (g.correct ? 1 : 0));
  });
  return { ...chooseFixedRoute(routes, correct, qs.length), n: qs.length };
}

/** Runs the audit, handing each record to onRecord (awaited) the moment it is complete. */
export async function runAudit(engine: Engine, o: AuditOptions): Promise<AuditResult> {
  const st = await checkSetup(engine, o);
  const records: QuestionRecord[] = [];
  for await (const r of recordsWith(engine, o, st)) {
    await o.onRecord?.(r);
    records.push(r);
  }
  return {
    run_key: st.run_key,
    questions: st.questions.map(identityOf),
    condition_key: st.condition_key,
    model_fingerprint: st.info.fingerprint,
    task_id: o.task.spec.id,
    task_version: o.task.spec.metadata.version,
    records,
    summary: summarize(records),
    skipped: st.skipped,
    rows: st.rows,
    calibration: st.calibration,
  };
}

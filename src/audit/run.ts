// The audit loop: for each probe, for each question, attempts through the engine in batches, one
// record per (question, probe) emitted as soon as it is complete. Records already stored are
// skipped through the `skip` hook (their keys: condition.ts recordKeyOf, which include the
// question's content and prompt hashes). Same inputs and seeds give byte-identical records: every
// random choice is seeded from (probe seed, question id). Every probe makes exactly its budget of
// distinct attempts, or all its space holds (stop_reason says which).

import type { Engine, ModelInfo } from '../engine/types';
import { createPrng } from '../util/prng';
import { conditionSampling, prepareQuestion, runAttempts, throwIfAborted, type AttemptRequest, type Graded, type Question } from './attempts';
import { bindDepthMatch, conditionKey, fewShotPoolHash, probeKey, recordKeyOf, runKey, validateCondition, validateProbeSpec, type QuestionIdentity } from './condition';
import { decoyControl, decoyFields } from './decoy';
import { AuditError } from './errors';
import { depthProfile, drawDepthMatched } from './probes/depth-matched';
import { searchFor } from './probes/mcts';
import { defaultRoute, routeSpaceSize, routeToString, sampleRoutes } from './routes';
import { seedFor } from './seeds';
import { chooseFixedRoute, fixedRoutePick, majorityVote, maxLogprob } from './selectors';
import { summarize } from './summary';
import type { Attempt, AuditSummary, Condition, Doc, LoadedTask, ProbeName, ProbeSpec, QuestionRecord, SelectorName, SelectorPick, StopReason } from './types';

export interface AuditProgress {
  probe: ProbeName;
  probe_key: string;
  /** Records of this probe finished (computed or skipped). */
  done: number;
  total: number;
  /** Engine rows run so far in this audit (charged attempts, deployment and selector extras). */
  rows: number;
}

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
  onProgress?: (p: AuditProgress) => void;
  signal?: AbortSignal;
  /** Return true for record keys already stored; those (question, probe) units are not run. */
  skip?: (key: string) => boolean;
  /** The stored record under a key `skip` accepted: a depth-matched probe reads the depths of its
   *  MCTS probe's stored attempts from it. */
  stored?: (key: string) => QuestionRecord | undefined;
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
  /** The audit's probes, depth-matched ones bound (condition.ts bindDepthMatch). */
  probes: ProbeSpec[];
  condition_key: string;
  run_key: string;
  /** The audited questions, prepared (prompt, ids, hashes), in order. */
  questions: Question[];
  skipped: number;
  rows: number;
  calibration: Record<string, Calibration>;
}

type RouteProbe = Extract<ProbeSpec, { probe: 'random-routes' | 'mcts-routes' | 'depth-matched-routes' }>;
const isRouteProbe = (s: ProbeSpec): s is RouteProbe => s.probe === 'random-routes' || s.probe === 'mcts-routes' || s.probe === 'depth-matched-routes';

/** Distinct routes a route probe can draw: its budget, or the whole space when that is smaller. */
function drawCount(spec: RouteProbe): number {
  const size = routeSpaceSize(spec.space);
  return BigInt(spec.budget) <= size ? spec.budget : Number(size);
}

/** The shared route set of a route probe (also the fixed-route selector's candidates). */
export function sharedRoutes(spec: RouteProbe): number[][] {
  return sampleRoutes(spec.space, drawCount(spec), createPrng(seedFor(spec.seed, 'shared')));
}

/** Routes a random-routes probe draws for one question. */
export function questionRoutes(spec: Extract<ProbeSpec, { probe: 'random-routes' }>, docId: string): number[][] {
  return spec.shared ? sharedRoutes(spec) : sampleRoutes(spec.space, drawCount(spec), createPrng(seedFor(spec.seed, docId)));
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
    if (spec.probe === 'sampling' && o.condition.mcMode === 'loglik') throw new AuditError('bad-input', 'the sampling probe needs generated answers; the condition scores letters (mcMode loglik)');
  }
  for (const s of o.selectors ?? []) if (!['majority', 'max-logprob', 'fixed-route'].includes(s)) throw new AuditError('bad-input', `unknown selector "${s}" (known: majority, max-logprob, fixed-route)`);
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
    questions.push(await prepareQuestion(engine, o.condition, d, o.task.train));
  }
  const condition_key = await conditionKey(o.condition);
  const probes = await bindDepthMatch(o.probes, questions.map(identityOf));
  const probe_keys: string[] = [];
  for (const spec of probes) probe_keys.push(await probeKey(spec));
  const run_key = await runKey({ model_fingerprint: info.fingerprint, condition_key, probe_keys, questions: questions.map(identityOf) });
  return { info, probes, condition_key, run_key, questions, skipped: 0, rows: 0, calibration: {} };
}

const identityOf = (q: Question): QuestionIdentity => ({ doc_id: q.doc.id, doc_hash: q.doc_hash, prompt_hash: q.prompt_hash });

function toAttempts(graded: Graded[]): Attempt[] {
  return graded.map((g, index) => ({ index, ...g }));
}

/** Records one by one, each as soon as it is complete. */
export async function* auditRecords(engine: Engine, o: AuditOptions): AsyncGenerator<QuestionRecord> {
  yield* recordsWith(engine, o, await checkSetup(engine, o));
}

async function* recordsWith(engine: Engine, o: AuditOptions, st: RunState): AsyncGenerator<QuestionRecord> {
  const cond = o.condition;
  const rowsPerCall = o.rowsPerCall ?? 64;
  const all = st.questions;
  const exec = async (reqs: AttemptRequest[]) => {
    const out = await runAttempts(engine, cond, reqs, { rowsPerCall, signal: o.signal });
    st.rows += reqs.length;
    return out;
  };
  const onAbort = () => void engine.cancel();
  o.signal?.addEventListener('abort', onAbort);
  // a depth-matched probe runs after the MCTS probe whose attempts make its depth profile
  const order = [...st.probes.filter((p) => p.probe !== 'depth-matched-routes'), ...st.probes.filter((p) => p.probe === 'depth-matched-routes')];
  const mctsDepths: number[] = [];
  try {
    for (const spec of order) {
      const pkey = await probeKey(spec);
      const base = {
        probe: spec.probe,
        probe_key: pkey,
        probe_spec: spec,
        condition_key: st.condition_key,
        model_fingerprint: st.info.fingerprint,
        task_id: o.task.spec.id,
        task_version: o.task.spec.metadata.version,
      };
      const todo = all.filter((q) => {
        const key = recordKeyOf({ ...base, ...identityOf(q) });
        const skip = o.skip?.(key) ?? false;
        if (skip) st.skipped++;
        if (skip && spec.probe === 'mcts-routes' && st.probes.some((p) => p.probe === 'depth-matched-routes')) {
          const stored = o.stored?.(key);
          if (!stored) throw new AuditError('bad-input', `the depth-matched baseline needs the depths of the stored MCTS attempts of question ${q.doc.id}, and the store did not hand them over`);
          mctsDepths.push(...stored.attempts.map((a) => a.depth ?? 0));
        }
        return !skip;
      });
      let done = all.length - todo.length;
      const progress = () => o.onProgress?.({ probe: spec.probe, probe_key: pkey, done, total: all.length, rows: st.rows });
      progress();
      if (todo.length === 0) continue;

      const selectors = spec.probe === 'deployment' ? [] : (o.selectors ?? []).filter((s) => s !== 'fixed-route' || isRouteProbe(spec));
      let fixed: Calibration | null = null;
      if (selectors.includes('fixed-route') && isRouteProbe(spec)) {
        fixed = await calibrate(spec);
        st.calibration[pkey] = fixed;
      }

      const record = async (q: Question, attempts: Attempt[], budget: number, sawGold: boolean, routeDraw?: 'per-question' | 'shared'): Promise<QuestionRecord> => {
        const stop_reason: StopReason | null = spec.probe === 'deployment' ? null : attempts.length >= budget ? 'budget' : 'space-exhausted';
        const first = attempts.find((a) => a.correct);
        const first_success = first ? first.index : null;
        const r: QuestionRecord = {
          doc_id: q.doc.id,
          doc: q.doc,
          target: q.doc.target,
          arguments: { prompt: q.prompt },
          resps: attempts.map((a) => a.response),
          filtered_resps: attempts.map((a) => a.extracted),
          doc_hash: q.doc_hash,
          prompt_hash: q.prompt_hash,
          ...base,
          attempts,
          budget,
          stop_reason,
          first_success,
          realized: spec.probe === 'deployment' ? attempts[0].correct : null,
          reachable: spec.probe === 'deployment' ? null : first_success !== null && first_success < budget,
          ...decoyFields({ probe: spec.probe, doc: q.doc, attempts, budget }, decoyControl(cond)),
          invalid: attempts.filter((a) => a.extracted === '[invalid]').length,
          selection_saw_gold: sawGold,
          ...(routeDraw ? { route_draw: routeDraw } : {}),
        };
        if (selectors.length) r.selectors = await pickSelectors(q, attempts, sawGold);
        return r;
      };

      // majority and max-logprob are answer-blind only over attempts chosen without the gold
      // answer; the fixed route was chosen on calibration questions, so its pick always is
      const pickSelectors = async (q: Question, attempts: Attempt[], sawGold: boolean): Promise<Record<string, SelectorPick>> => {
        const out: Record<string, SelectorPick> = {};
        for (const s of [...selectors].sort()) {
          if (s === 'majority') out[s] = { ...majorityVote(attempts), blind: !sawGold };
          else if (s === 'max-logprob') out[s] = { ...maxLogprob(attempts), blind: !sawGold };
          else if (fixed) {
            const hit = fixedRoutePick(attempts, fixed.route);
            if (hit) out[s] = { ...hit, blind: true };
            else {
              // the fixed route was not among this question's draws: one extra, uncharged decode
              const [g] = await exec([{ q, route: fixed.route, silence: [], sampling: conditionSampling(cond, q.doc.id) }]);
              out[s] = { extracted: g.extracted, correct: g.correct, blind: true, attempt: null, route: fixed.route.slice() };
            }
          }
        }
        return out;
      };

      /** Fixed-route calibration: the shared route set on train questions, gold used there. */
      async function calibrate(rp: RouteProbe): Promise<Calibration> {
        const train = o.task.train.slice(0, o.calibrationQuestions ?? 20);
        if (train.length === 0) throw new AuditError('bad-input', 'the fixed-route selector calibrates on train questions; the task has none loaded');
        const routes = sharedRoutes(rp);
        const qs: Question[] = [];
        for (const d of train) qs.push(await prepareQuestion(engine, cond, d, o.task.train.filter((t) => t.id !== d.id)));
        const reqs = routes.flatMap((route) => qs.map((q) => ({ q, route, silence: [], sampling: conditionSampling(cond, q.doc.id) })));
        const graded = await exec(reqs);
        const correct = new Map<string, number>();
        graded.forEach((g, i) => {
          const k = routeToString(reqs[i].route);
          correct.set(k, (correct.get(k) ?? 0) + (g.correct ? 1 : 0));
        });
        return { ...chooseFixedRoute(routes, correct, qs.length), n: qs.length };
      }

      if (spec.probe === 'mcts-routes') {
        for (let at = 0; at < todo.length; at += rowsPerCall) {
          const qs = todo.slice(at, at + rowsPerCall);
          const searches = qs.map((q) => searchFor(spec, q.doc.id));
          const graded: Graded[][] = qs.map(() => []);
          const live = new Set(qs.map((_, i) => i));
          const defaultKey = routeToString(defaultRoute(st.info.numLayers));
          while (live.size) {
            throwIfAborted(o.signal);
            const asks: { i: number; route: number[] }[] = [];
            const finished: number[] = [];
            for (const i of live) {
              const route = searches[i].propose();
              if (route) asks.push({ i, route });
              else finished.push(i);
            }
            const results = await exec(asks.map(({ i, route }) => ({ q: qs[i], route, silence: [], sampling: conditionSampling(cond, qs[i].doc.id) })));
            asks.forEach(({ i, route }, k) => {
              // the default route (a revert reached it) is the deployment attempt: decoded, never charged
              if (routeToString(route) !== defaultKey) graded[i].push(results[k]);
              searches[i].observe(results[k].correct ? 1 : 0);
            });
            for (const i of finished) {
              live.delete(i);
              const depths = searches[i].depths;
              mctsDepths.push(...depths);
              yield await record(qs[i], toAttempts(graded[i]).map((a) => ({ ...a, depth: depths[a.index] })), spec.budget, true);
              done++;
            }
            if (finished.length) progress();
          }
        }
        continue;
      }

      if (spec.probe === 'depth-matched-routes') {
        const profile = depthProfile(mctsDepths);
        for (const q of todo) {
          throwIfAborted(o.signal);
          const draw = drawDepthMatched(spec.preset, spec.space, profile, spec.budget, createPrng(seedFor(spec.seed, q.doc.id, 'depth-matched')));
          const sampling = conditionSampling(cond, q.doc.id);
          const results = await exec(draw.routes.map((route) => ({ q, route, silence: [], sampling })));
          const attempts = toAttempts(results).map((a) => ({ ...a, depth: draw.depths[a.index] }));
          yield { ...(await record(q, attempts, spec.budget, false)), depth_profile: profile };
          done++;
          progress();
        }
        continue;
      }

      // one-shot probes: every attempt of a question is known before running
      const sharedSet = spec.probe === 'random-routes' && spec.shared ? sharedRoutes(spec) : null;
      const perQuestion = (q: Question): AttemptRequest[] => {
        const sampling = conditionSampling(cond, q.doc.id);
        switch (spec.probe) {
          case 'deployment':
            return [{ q, route: defaultRoute(st.info.numLayers), silence: [], sampling }];
          case 'random-routes':
            return (sharedSet ?? questionRoutes(spec, q.doc.id)).map((route) => ({ q, route, silence: [], sampling }));
          case 'sampling':
            return Array.from({ length: spec.budget }, (_, i) => ({
              q,
              route: defaultRoute(st.info.numLayers),
              silence: [],
              sampling: { kind: 'sample' as const, temperature: spec.temperature, topP: spec.topP, seed: seedFor(spec.seed, q.doc.id, i) },
              sample: i,
            }));
          case 'mlp-silencing':
            return spec.layers.map((l) => ({ q, route: defaultRoute(st.info.numLayers), silence: [l], sampling }));
        }
      };
      const perQ = spec.probe === 'deployment' ? 1 : spec.probe === 'mlp-silencing' ? spec.layers.length : spec.probe === 'random-routes' ? drawCount(spec) : spec.budget;
      const budget = spec.probe === 'deployment' ? 0 : spec.probe === 'mlp-silencing' ? perQ : spec.budget;
      const shared = spec.probe === 'random-routes' && spec.shared;
      const groupSize = Math.max(1, Math.floor(rowsPerCall / perQ));
      for (let at = 0; at < todo.length; at += groupSize) {
        const qs = todo.slice(at, at + groupSize);
        const byQ = qs.map(perQuestion);
        // shared route set: route-major across questions, so one route's rows run together
        const order: [number, number][] = shared
          ? Array.from({ length: perQ }, (_, j) => qs.map((_, i) => [i, j] as [number, number])).flat()
          : qs.flatMap((_, i) => byQ[i].map((_, j) => [i, j] as [number, number]));
        const results = await exec(order.map(([i, j]) => byQ[i][j]));
        const graded: Graded[][] = qs.map(() => []);
        order.forEach(([i, j], k) => (graded[i][j] = results[k]));
        for (let i = 0; i < qs.length; i++) {
          const routeDraw = spec.probe === 'random-routes' ? (spec.shared ? 'shared' : 'per-question') : undefined;
          yield await record(qs[i], toAttempts(graded[i]), budget, false, routeDraw);
          done++;
        }
        progress();
      }
    }
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
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

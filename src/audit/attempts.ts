// Turning (question, route, silence set, sampling) into graded attempts through the engine,
// many rows per engine call. Generate mode decodes and extracts; log-likelihood mode scores the
// option letters and picks the most likely one.

import { EngineError, isEngineError, type Engine, type Sampling } from '../engine/types';
import { quote } from '../util/clip';
import { canonicalJson, sha256Hex } from '../util/hash';
import { AuditError } from './errors';
import { grade, gradeOptions, INVALID } from './graders';
import { indexLetter } from './formats/mc-letter';
import type { QuestionIdentity } from './condition';
import { buildPrompt, letterContinuation, type PromptEngine } from './prompt';
import { seedFor } from './seeds';
import type { Attempt, Condition, Doc } from './types';

/** A question ready to run: its prompt, token ids and hashes. */
export interface Question {
  doc: Doc;
  prompt: string;
  promptIds: number[];
  doc_hash: string;
  prompt_hash: string;
  /** loglik mode: token ids of each option letter's continuation. */
  letterIds?: number[][];
}

/** SHA-256 of what makes a question itself: id, text, gold answer, options. */
export function docHash(doc: Doc): Promise<string> {
  return sha256Hex(canonicalJson({ id: doc.id, text: doc.text, target: doc.target, choices: doc.choices }));
}

/** The identities (doc and prompt hashes) of questions under a condition, in order: what the run
 *  key and record keys are made of. */
export async function questionIdentities(engine: PromptEngine, cond: Condition, docs: readonly Doc[], train: readonly Doc[]): Promise<QuestionIdentity[]> {
  const out: QuestionIdentity[] = [];
  for (const doc of docs) out.push({ doc_id: doc.id, doc_hash: await docHash(doc), prompt_hash: await sha256Hex(await buildPrompt(engine, cond, doc, train)) });
  return out;
}

export async function prepareQuestion(engine: Engine, cond: Condition, doc: Doc, train: readonly Doc[]): Promise<Question> {
  const prompt = await buildPrompt(engine, cond, doc, train);
  const promptIds = await engine.encode(prompt);
  const q: Question = { doc, prompt, promptIds, doc_hash: await docHash(doc), prompt_hash: await sha256Hex(prompt) };
  if (cond.mcMode === 'loglik') {
    if (!doc.choices || doc.choices.length < 2) throw new AuditError('bad-input', `question ${doc.id} has no options to score`);
    q.letterIds = [];
    for (let i = 0; i < doc.choices.length; i++) q.letterIds.push(await continuationIds(engine, prompt, promptIds, letterContinuation(prompt, cond.chatTemplate, indexLetter(i))));
  }
  return q;
}

/** Refuses a question the model cannot take, naming it (`where`: its id and file row) and what is
 *  wrong: a prompt that encodes to no tokens, or one that with the condition's new tokens (or the
 *  longest option letter) needs more positions than the model's maxSeqLen. */
export function checkQuestionFits(q: Question, cond: Condition, maxSeqLen: number, where: string): void {
  const n = q.promptIds.length;
  if (n === 0) throw new AuditError('bad-task', `${where}: its prompt encodes to no tokens (the question is empty or holds only text the tokenizer drops)`);
  const extra = cond.mcMode === 'loglik' ? Math.max(1, ...(q.letterIds ?? []).map((ids) => ids.length)) : cond.maxNewTokens;
  const needed = n + extra - 1;
  if (needed > maxSeqLen) {
    const what = cond.mcMode === 'loglik' ? 'its option letters' : `the ${cond.maxNewTokens} new tokens the condition allows`;
    throw new AuditError(
      'bad-task',
      `${where}: its prompt is ${n.toLocaleString('en-US')} tokens, and with ${what} it needs ${needed.toLocaleString('en-US')} positions; the model takes at most ${maxSeqLen.toLocaleString('en-US')} (maxSeqLen). Shorten the question (or the few-shot examples), or lower max new tokens`,
    );
  }
}

/** Ids of `cont` as it tokenizes after the prompt: the tail of encode(prompt + cont) when that
 *  extends the prompt's ids, else encode(cont) on its own. */
async function continuationIds(engine: Engine, prompt: string, promptIds: number[], cont: string): Promise<number[]> {
  const joint = await engine.encode(prompt + cont);
  const extends_ = joint.length > promptIds.length && promptIds.every((t, i) => joint[i] === t);
  return extends_ ? joint.slice(promptIds.length) : engine.encode(cont);
}

/** The condition's decoding for one question (a sampled condition gets a per-question seed). */
export function conditionSampling(cond: Condition, docId: string): Sampling {
  const d = cond.decoding;
  return d.kind === 'greedy' ? { kind: 'greedy' } : { kind: 'sample', temperature: d.temperature, topP: d.topP, seed: seedFor(d.seed, docId) };
}

export interface AttemptRequest {
  q: Question;
  route: number[];
  silence: number[];
  sampling: Sampling;
  sample?: number;
}

export type Graded = Omit<Attempt, 'index'>;

export interface ExecOptions {
  rowsPerCall: number;
  signal?: AbortSignal;
  /** Called after each engine call with the rows it ran. */
  onRows?: (rows: number) => void;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AuditError('cancelled', 'the audit was cancelled');
}

/** Runs every request, rowsPerCall rows per engine call, in request order. */
export async function runAttempts(engine: Engine, cond: Condition, reqs: AttemptRequest[], o: ExecOptions): Promise<Graded[]> {
  const out: Graded[] = [];
  for (let at = 0; at < reqs.length; at += o.rowsPerCall) {
    throwIfAborted(o.signal);
    const chunk = reqs.slice(at, at + o.rowsPerCall);
    out.push(...(cond.mcMode === 'loglik' ? await scoreChunk(engine, chunk) : await generateChunk(engine, cond, chunk)));
    o.onRows?.(chunk.length);
  }
  return out;
}

/** An engine error about one row of a chunk, named by its question and route instead of the row. */
function namedRow(e: unknown, chunk: AttemptRequest[]): unknown {
  if (!isEngineError(e) || e.row === undefined || !chunk[e.row]) return e;
  const r = chunk[e.row];
  const silenced = r.silence.length ? `, MLP silenced at [${r.silence.join(', ')}]` : '';
  return new EngineError(e.code, `question ${quote(r.q.doc.id)} on route [${r.route.join(', ')}]${silenced}, ${e.message.replace(/^row \d+, /, '')}`);
}

async function generateChunk(engine: Engine, cond: Condition, chunk: AttemptRequest[]): Promise<Graded[]> {
  const results = await engine
    .generate(
      chunk.map((r) => ({ promptIds: r.q.promptIds, route: r.route, silence: r.silence, sampling: r.sampling })),
      { maxNewTokens: cond.maxNewTokens, stopStrings: cond.stopSequences },
    )
    .catch((e: unknown) => Promise.reject(namedRow(e, chunk)));
  if (results.length !== chunk.length) throw new Error(`engine returned ${results.length} results for ${chunk.length} rows`);
  return chunk.map((r, i) => {
    const res = results[i];
    const g = grade(cond.answerFormat, r.q.doc.target, res.text, gradeOptions(cond, r.q.doc));
    const lp = res.tokenLogprobs;
    return {
      route: r.route,
      silence: r.silence,
      ...(r.sample !== undefined ? { sample: r.sample } : {}),
      response: res.text,
      extracted: g.extracted,
      correct: g.correct,
      meanLogprob: lp.length ? lp.reduce((s, x) => s + x, 0) / lp.length : null,
    };
  });
}

async function scoreChunk(engine: Engine, chunk: AttemptRequest[]): Promise<Graded[]> {
  const results = await engine
    .score(chunk.map((r) => ({ promptIds: r.q.promptIds, route: r.route, silence: r.silence, continuations: r.q.letterIds! })))
    .catch((e: unknown) => Promise.reject(namedRow(e, chunk)));
  if (results.length !== chunk.length) throw new Error(`engine returned ${results.length} score rows for ${chunk.length} rows`);
  return chunk.map((r, i) => {
    const lps = results[i];
    let best = -1;
    for (let k = 0; k < lps.length; k++) if (Number.isFinite(lps[k]) && (best < 0 || lps[k] > lps[best])) best = k;
    const extracted = best < 0 ? INVALID : indexLetter(best);
    return {
      route: r.route,
      silence: r.silence,
      response: 'loglik',
      extracted,
      correct: extracted === r.q.doc.target,
      meanLogprob: best < 0 ? null : lps[best] / r.q.letterIds![best].length,
    };
  });
}

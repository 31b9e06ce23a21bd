// A permalink: model, task, condition and the two seeds in the URL hash, e.g.
//   #model=hub:Qwen/Qwen2.5-0.5B@main&task=builtin:arith-2d:50&qseed=1&pseed=1&cond=<base64url JSON>
// qseed is the question seed (which questions, which few-shot examples), pseed the probe seed.
// Tokens and local files never enter the link. Parsing is defensive: every field is checked and
// each problem is reported by name; a bad field is dropped, the rest still applies.

import type { Condition } from '../../audit/types';
import { CONDITION_FIELDS, checkCondition } from '../../audit/condition-schema';
import { fieldProblems } from '../../util/check';
import { BUILTIN_MODEL_ID, type ModelChoice, type TaskChoice } from '../backend';
import { BUILTIN_TASKS, HUB_TASKS } from '../../audit/tasks/registry';
import { builtinModel, type BuiltinModelId } from '../../audit/builtin-models';
import { JsonInputError, parseJsonInput } from '../../util/json-input';

/** A built-in model's `id` is absent for the first one (links written before there were two). */
export type LinkModel = { kind: 'builtin'; id?: BuiltinModelId } | { kind: 'hub'; repo: string; revision: string };
/** A built-in task's `seed` comes only from links written before `qseed` existed. */
export type LinkTask = { kind: 'builtin'; id: string; count: number; seed?: number } | { kind: 'hub'; preset: string; count: number };

export interface Permalink {
  model?: LinkModel;
  task?: LinkTask;
  condition?: Condition;
  questionSeed?: number;
  probeSeed?: number;
}

export interface ParsedPermalink extends Permalink {
  errors: string[];
}

const MAX_HASH = 8192;
const REPO_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}\/[A-Za-z0-9_.-]{1,96}$/;
const REVISION_RE = /^[A-Za-z0-9_.\/-]{1,128}$/;
export const MAX_QUESTIONS = 100_000;
export const MAX_SEED = 2 ** 32 - 1;

export function linkModelOf(m: ModelChoice): LinkModel | undefined {
  if (m.kind === 'builtin') return m.id === BUILTIN_MODEL_ID ? { kind: 'builtin' } : { kind: 'builtin', id: m.id };
  if (m.kind === 'hub') return { kind: 'hub', repo: m.repo, revision: m.revision };
  return undefined;
}

export function linkTaskOf(t: TaskChoice): LinkTask | undefined {
  if (t.kind === 'builtin') return { kind: 'builtin', id: t.id, count: t.count };
  if (t.kind === 'hub') return { kind: 'hub', preset: t.preset, count: t.count };
  return undefined;
}

export function encodePermalink(p: Permalink): string {
  const params = new URLSearchParams();
  if (p.model) params.set('model', p.model.kind === 'builtin' ? (p.model.id ? `builtin:${p.model.id}` : 'builtin') : `hub:${p.model.repo}@${p.model.revision}`);
  if (p.task) params.set('task', p.task.kind === 'builtin' ? `builtin:${p.task.id}:${p.task.count}` : `hub:${p.task.preset}:${p.task.count}`);
  if (p.questionSeed !== undefined) params.set('qseed', String(p.questionSeed));
  if (p.probeSeed !== undefined) params.set('pseed', String(p.probeSeed));
  if (p.condition) params.set('cond', base64UrlEncode(JSON.stringify(p.condition)));
  return `#${params.toString()}`;
}

export function parsePermalink(hash: string): ParsedPermalink {
  const errors: string[] = [];
  const out: ParsedPermalink = { errors };
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  if (raw === '') return out;
  if (raw.length > MAX_HASH) {
    errors.push(`link ignored: longer than ${MAX_HASH} characters`);
    return out;
  }
  const params = new URLSearchParams(raw);
  const model = params.get('model');
  if (model !== null) {
    const m = parseModel(model);
    if (typeof m === 'string') errors.push(m);
    else out.model = m;
  }
  const task = params.get('task');
  if (task !== null) {
    const t = parseTask(task);
    if (typeof t === 'string') errors.push(t);
    else out.task = t;
  }
  for (const [param, field, what] of [['qseed', 'questionSeed', 'question seed'], ['pseed', 'probeSeed', 'probe seed']] as const) {
    const v = params.get(param);
    if (v === null) continue;
    const seed = parseSeed(v);
    if (seed === null) errors.push(`${what} in link must be a whole number from 0 to ${MAX_SEED}`);
    else out[field] = seed;
  }
  const cond = params.get('cond');
  if (cond !== null) {
    let value: unknown;
    try {
      value = parseJsonInput(base64UrlDecode(cond));
    } catch (e) {
      errors.push(e instanceof JsonInputError ? `condition in link is refused: ${e.message}` : 'condition in link is not valid base64url JSON');
    }
    if (value !== undefined) {
      const c = validateCondition(value);
      if (Array.isArray(c)) errors.push(...c.map((e) => `condition in link: ${e}`));
      else out.condition = c;
    }
  }
  return out;
}

function parseModel(s: string): LinkModel | string {
  if (s === 'builtin' || s === BUILTIN_MODEL_ID) return { kind: 'builtin' };
  const builtin = builtinModel(s);
  if (builtin) return { kind: 'builtin', id: builtin.id };
  if (!s.startsWith('hub:')) return `model in link: expected "builtin", "builtin:<built-in model>" or "hub:owner/name@revision", got "${s.slice(0, 80)}"`;
  const body = s.slice(4);
  const at = body.lastIndexOf('@');
  const repo = at >= 0 ? body.slice(0, at) : body;
  const revision = at >= 0 ? body.slice(at + 1) : 'main';
  if (!REPO_RE.test(repo)) return `model in link: "${repo.slice(0, 80)}" is not a Hub repo id (owner/name)`;
  if (!REVISION_RE.test(revision) || revision.includes('..')) return `model in link: "${revision.slice(0, 80)}" is not a valid revision`;
  return { kind: 'hub', repo, revision };
}

function parseSeed(s: string | undefined): number | null {
  return s !== undefined && /^\d{1,10}$/.test(s) && Number(s) <= MAX_SEED ? Number(s) : null;
}

function parseCount(s: string | undefined, what: string): number | string {
  if (s === undefined || !/^\d{1,6}$/.test(s)) return `task in link: ${what} must be a whole number`;
  const n = Number(s);
  if (n < 1 || n > MAX_QUESTIONS) return `task in link: ${what} must be in [1, ${MAX_QUESTIONS}]`;
  return n;
}

function parseTask(s: string): LinkTask | string {
  const parts = s.split(':');
  if (parts[0] === 'builtin') {
    const id = parts[1];
    if (!BUILTIN_TASKS.some((t) => t.id === id)) return `task in link: unknown built-in task "${String(id).slice(0, 40)}"`;
    const count = parseCount(parts[2], 'question count');
    if (typeof count === 'string') return count;
    if (parts[3] === undefined) return { kind: 'builtin', id: id!, count };
    const seed = parseSeed(parts[3]);
    if (seed === null) return 'task in link: seed must be a whole number';
    return { kind: 'builtin', id: id!, count, seed };
  }
  if (parts[0] === 'hub') {
    const preset = parts[1];
    if (!HUB_TASKS.some((t) => t.id === preset)) return `task in link: unknown Hub preset "${String(preset).slice(0, 40)}"`;
    const count = parseCount(parts[2], 'question count');
    if (typeof count === 'string') return count;
    return { kind: 'hub', preset: preset!, count };
  }
  return `task in link: expected "builtin:…" or "hub:…", got "${s.slice(0, 80)}"`;
}

/** A Condition by the one schema (audit/condition-schema.ts), or the first problem of each field
 *  ("fewShot.n: expected an integer ≥ 0 ≤ 32, got number 40"). fewShot.pool is not taken: the run
 *  binds the pool of the task it loads. */
export function validateCondition(v: unknown): Condition | string[] {
  const errs = fieldProblems(CONDITION_FIELDS, v);
  if (errs.length) return errs;
  const c = checkCondition(v, '');
  delete c.fewShot.pool;
  return c;
}

export function base64UrlEncode(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function base64UrlDecode(s: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('not base64url');
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

// The app's RealBackend over a FakeEngine and a MemoryRunStore: the real audit driver, run
// controller, store, export and import, with a made-up arithmetic model instead of the worker. UI
// tests run on it, and so does the development page `?fake=1` (its banner says so), so each probe
// renders as it really runs. Nothing here is stored: the store lives in memory.

import { FakeEngine, type FakeQuery } from '../../audit/testing/fake-engine';
import { colaMcts, randomRoutes, samplingCeiling, silencingAllLayers } from '../../audit/presets';
import { DEPLOYMENT } from '../../audit';
import type { ProbeSpec } from '../../audit/types';
import { EngineError } from '../../engine/types';
import { InProcessLocks, MemoryRunStore, ProgressChannel, TabLocks, type ChannelLike, type RunProgress, type RunStore } from '../../store/index';
import { BUILTIN_MODEL_ID, type RunSetup, type StoredRun, type TaskChoice } from '../backend';
import { DEFAULT_CONDITION, blocksSpace } from '../lib/presets';
import { RealBackend, type BackendParts, type BrowserFacts } from '../real-backend';

/** FNV-1a of `s`, as a number in [0, 1): the fake model's dice, the same for the same question. */
function draw(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h / 2 ** 32;
}

/** The gold answer of the last "a+b=" / "a-b=" / "a*b=" in a prompt; null when it asks no sum. */
function arithGold(prompt: string): number | null {
  const m = /(-?\d+)\s*([+*-])\s*(-?\d+)\s*=\s*$/.exec(prompt);
  if (!m) return null;
  const [a, b] = [Number(m[1]), Number(m[3])];
  return m[2] === '+' ? a + b : m[2] === '-' ? a - b : a * b;
}

/**
 * A made-up model of `numLayers` layers that does arithmetic: on its default route it answers a
 * question right when the question's draw is under `skill`; another route or a sample reaches the
 * gold answer with the question's own chance (none for about half the failures); silencing the
 * middle layer mends most reachable failures. Wrong answers lie near the gold (some are its decoy).
 */
export function arithModel(numLayers: number, skill = 0.45): (q: FakeQuery) => string {
  const culprit = Math.floor(numLayers / 2);
  return (q) => {
    const gold = arithGold(q.prompt);
    const near = (u: number) => String((gold ?? 0) + [1, -1, 2, -2, 10, -10][Math.floor(u * 6)]);
    const realized = draw(`${q.prompt}|realized`) < skill;
    const reach = realized ? 0.6 : draw(`${q.prompt}|reachable`) < 0.55 ? 0.12 + 0.25 * draw(`${q.prompt}|reach`) : 0;
    const u = draw(JSON.stringify(q));
    const deployed = q.route.length === numLayers && q.route.every((l, i) => l === i);
    let p: number;
    if (q.silence.length > 0) p = realized ? (q.silence[0] === culprit ? 0.85 : 0.97) : reach > 0 ? (q.silence[0] === culprit ? 0.75 : 0.05) : 0.01;
    else if (!deployed) p = reach;
    else if (q.sampling.kind === 'sample') p = reach * 0.8;
    else p = realized ? 1 : 0;
    if (gold === null) return String(Math.floor(u * 10)); // not a sum: a digit
    return u < p ? String(gold) : near(draw(`${JSON.stringify(q)}|wrong`));
  };
}

export interface TestBackendOptions {
  /** The fake model's layers (default 8). */
  numLayers?: number;
  /** The fake model's chance to answer a question right as deployed (default 0.45). */
  skill?: number;
  /** The fake model's fingerprint (default fake-<layers>): another fingerprint is another model. */
  fingerprint?: string;
  /** The fake model's name (default "fake"). */
  name?: string;
  /** Milliseconds each engine call takes (default 0): paces a run so it can be paused or cancelled. */
  delayMs?: number;
  /** Starts each engine (default: a FakeEngine answering as arithModel); resetEngine starts another. */
  engine?: () => FakeEngine;
  store?: RunStore;
  browser?: BrowserFacts;
  repoInfo?: BackendParts['repoInfo'];
}

/** Where another tab's progress arrives (this tab's own messages never come back, as with a BroadcastChannel). */
class OtherTabs implements ChannelLike {
  private readonly listeners = new Set<(ev: { data: unknown }) => void>();
  postMessage(): void {}
  addEventListener(_type: 'message', l: (ev: { data: unknown }) => void): void {
    this.listeners.add(l);
  }
  removeEventListener(_type: 'message', l: (ev: { data: unknown }) => void): void {
    this.listeners.delete(l);
  }
  close(): void {
    this.listeners.clear();
  }
  deliver(progress: RunProgress): void {
    for (const l of this.listeners) l({ data: { type: 'reachlab-progress', progress } });
  }
}

export class TestBackend extends RealBackend {
  /** Every engine started, the latest last. */
  readonly engines: FakeEngine[];
  readonly numLayers: number;
  private readonly tabs: OtherTabs;

  constructor(o: TestBackendOptions = {}) {
    const numLayers = o.numLayers ?? 8;
    const engines: FakeEngine[] = [];
    const tabs = new OtherTabs();
    const spawn = o.engine ?? (() => new FakeEngine({ numLayers, answer: arithModel(numLayers, o.skill), delayMs: o.delayMs, fingerprint: o.fingerprint, name: o.name }));
    super({
      spawnEngine: () => {
        const e = spawn();
        engines.push(e);
        return e;
      },
      store: o.store ?? new MemoryRunStore(),
      channel: new ProgressChannel(tabs),
      locks: new TabLocks(new InProcessLocks()),
      repoInfo: o.repoInfo ?? (async ({ repo }) => Promise.reject(new EngineError('network', `${repo}: the fake engine reaches no Hub`))),
      builtinEndpoint: 'http://localhost/hub',
      browser: o.browser ?? { onLine: true },
    });
    this.engines = engines;
    this.numLayers = numLayers;
    this.tabs = tabs;
  }

  /** Plays a progress message as another tab publishes it. */
  progressFromOtherTab(p: RunProgress): void {
    this.tabs.deliver(p);
  }
}

/** The probes of a full audit: deployment, random routes over blocks, CoLa MCTS, sampling and the
 *  MLP-silencing scan (budgets 16, 16, 8; probe seed 1). */
export function fullProbes(numLayers: number): ProbeSpec[] {
  return [{ probe: DEPLOYMENT }, randomRoutes(blocksSpace(numLayers), 16, 1, false), colaMcts(numLayers, 16, 1), samplingCeiling(8, 1), silencingAllLayers(numLayers)];
}

/** A setup of the built-in model on `count` built-in arithmetic questions (question seed 1). */
export function testSetup(probes: ProbeSpec[], count = 24, task: TaskChoice = { kind: 'builtin', id: 'arith-2d', count, seed: 1 }): RunSetup {
  return { model: { kind: 'builtin', id: BUILTIN_MODEL_ID }, task, condition: DEFAULT_CONDITION, questionSeed: 1, probes, load: { ep: 'auto', dtype: 'f32' } };
}

/** Runs `setup` to its end on `backend` and returns the stored run. */
export async function runToEnd(backend: RealBackend, setup: RunSetup): Promise<StoredRun> {
  const handle = await backend.startRun(setup, { load: () => {}, progress: () => {}, record: () => {} });
  await handle.done;
  return backend.getRun(handle.runId);
}

/** A finished run of the full audit (fullProbes) on `questions` built-in arithmetic questions. */
export async function auditedRun(questions = 24, backend = new TestBackend()): Promise<StoredRun> {
  return runToEnd(backend, testSetup(fullProbes(backend.numLayers), questions));
}

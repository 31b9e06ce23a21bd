// The Study screen's state over the real backend, which runs studies with its StudyRunner on a
// scripted engine (what the app does, minus the worker): presets, plan problems, progress, report, pause.

import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../../audit/testing/fake-engine';
import type { CheckpointSource, ModelInfo } from '../../engine/types';
import { MemoryRunStore } from '../../store/memory-store';
import type { AppBackend, StudyProgress } from '../backend';
import { TestBackend } from '../testing/test-backend';
import { STUDY_PRESETS, StudyState } from './study.svelte';
import { Clock } from './clock.svelte';
import { studyTables } from '../lib/study-tables';
import { encodeStudyLink, parseStudyLink } from '../lib/study-link';
import { setField, toggleProbe } from '../lib/study-form';
import { measuredRate, probeMix } from '../lib/rates';
import { BUILTIN_STUDY_SECONDS } from '../lib/study-estimate';

/** One engine that loads each model under its own fingerprint (the repo it is given), as the
 *  worker does; right on routes longer than 4 layers and with layer 1's MLP silenced. */
class Models extends FakeEngine {
  private loaded: ModelInfo | null = null;
  override async load(source?: CheckpointSource) {
    this.loaded = { ...(await super.load()), fingerprint: source?.kind === 'hub' ? source.repo : 'files' };
    return this.loaded;
  }
  override async info() {
    return this.loaded ?? super.info();
  }
}

/** The real backend (its own StudyRunner and RunController) over Models and a memory store. */
function studyBackend(): AppBackend & { runProbes: (key: string) => Promise<string[]>; leaveRunning: () => Promise<void> } {
  const store = new MemoryRunStore();
  const backend = new TestBackend({ store, engine: () => new Models({ numLayers: 4, answer: (q) => (q.route.length > 4 || q.silence[0] === 1 ? String(eval0(q.prompt)) : 'x') }) });
  return Object.assign(backend, {
    /** What a tab closed mid-study leaves: its stored studies say running. */
    leaveRunning: async () => {
      for (const s of await store.listStudies()) await store.putStudy({ ...s, status: 'running' });
    },
    /** The probes of the stored run with this run key. */
    runProbes: async (key: string) => (await store.runsByManifestKey(key))[0]?.manifest.probes.map((p) => p.probe) ?? [],
  });
}

/** "12+34=" → 46 */
function eval0(prompt: string): number {
  const m = /^(\d+)([+-])(\d+)=$/.exec(prompt)!;
  return m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
}

const SMALL = { models: ['builtin:micro-arith'], tasks: ['builtin:arith-2d'], probes: [{ probe: 'random-routes' }], budget: 3, questions: 4, scan: true, pairs: [{ base: 'builtin:micro-arith', trained: 'builtin:micro-arith-rl' }] };

describe('StudyState', () => {
  it('loads presets, and names what is wrong with a plan', () => {
    const s = new StudyState(new TestBackend());
    expect(STUDY_PRESETS.map((p) => p.id)).toEqual(['builtin', 'finding1', 'finding3']);
    s.usePreset('finding3');
    expect('plan' in s.parsed && s.parsed.plan.pairs).toHaveLength(3);
    s.planText = '{"models": [';
    expect(s.parsed).toMatchObject({ problem: expect.stringMatching(/^The plan is not valid JSON/) });
    s.planText = '{"models": ["a"], "tasks": []}';
    expect(s.parsed).toMatchObject({ problem: expect.stringMatching(/tasks: expected at least 1 entry/) });
    s.planText = '{"models": ["a/b"], "tasks": ["builtin:arith-2d"], "tasks": []}';
    expect(s.parsed).toEqual({ problem: 'The plan is refused: duplicate key "tasks" at the top level (line 1)' });
  });

  it("keeps the pace of each run a study computed, for Setup's estimate of the same model, probes and budgets", async () => {
    const m = new Map<string, string>();
    const storage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    const backend = studyBackend();
    const s = new StudyState(backend, storage);
    s.planText = JSON.stringify(SMALL);
    const seen: StudyProgress[] = [];
    const run = backend.runStudy.bind(backend);
    backend.runStudy = (plan, on) => run(plan, (p) => (seen.push(p), on(p)));
    await s.start();
    const measured = seen.map((p) => p.current).filter((c) => c?.measured && c.attemptsPerSec);
    expect(measured.length).toBeGreaterThan(0);
    const c = measured.at(-1)!;
    const rate = measuredRate(storage, { fingerprint: c.measured!.fingerprint, ep: c.measured!.ep, dtype: c.measured!.dtype, probes: probeMix(c.measured!.probes) });
    expect(rate?.attemptsPerSecond).toBeGreaterThan(0);
    expect(rate?.maxNewTokens).toBe(c.measured!.maxNewTokens);
  });

  it('runs a study, showing each planned run as it is done, then its report; stored studies reopen', async () => {
    const s = new StudyState(studyBackend());
    s.planText = JSON.stringify(SMALL);
    await s.refreshOverview();
    expect(s.canOpenReport).toBe(false);
    expect(s.runs.map((r) => `${r.model}/${r.label}/${r.state}`)).toEqual([
      'builtin:micro-arith/random-routes/blocks/waiting',
      'builtin:micro-arith/mlp-silencing/waiting',
      'builtin:micro-arith-rl/random-routes/blocks/waiting',
      'builtin:micro-arith-rl/mlp-silencing/waiting',
    ]);
    await s.start();
    expect(s.error).toBeNull();
    expect(s.runs.every((r) => r.state === 'done')).toBe(true);
    expect(s.report?.missing).toEqual([]);
    expect(s.report?.f3.pairs).toHaveLength(1);
    expect(s.studies).toHaveLength(1);
    const key = s.report!.plan_key;
    s.report = null;
    await s.open(key);
    expect(s.report!.plan_key).toBe(key);
  });

  it('a report opened mid-study follows each run that finishes, and the study clock ticks between messages', async () => {
    const backend = studyBackend();
    let t = 0;
    const s = new StudyState(backend, null, new Clock(() => t));
    const [run, report] = [backend.runStudy.bind(backend), backend.studyReport.bind(backend)];
    const missing: number[] = [];
    let opened = false;
    backend.studyReport = async (key: string) => {
      const r = await report(key);
      missing.push(r.missing.length);
      return r;
    };
    const etas: (number | null)[] = [];
    backend.runStudy = (plan, onProgress) =>
      run(plan, (p) => {
        onProgress(p);
        t += 1000;
        etas.push(s.timeLeft?.sec ?? null);
        if (p.runsDone === 1 && !opened) {
          opened = true;
          void s.open(p.plan_key);
        }
      });
    s.planText = JSON.stringify(SMALL);
    await s.start();
    // opened with 3 runs missing, then read again as the others finished
    expect(missing[0]).toBe(3);
    expect(missing.length).toBeGreaterThanOrEqual(3);
    expect(missing.slice(1).some((m) => m < 3)).toBe(true);
    expect(s.elapsedMs).toBe(t);
    // once an estimate exists it never vanishes while the study runs (a new run's first message has none)
    const firstKnown = etas.findIndex((x) => x !== null);
    expect(firstKnown).toBeGreaterThanOrEqual(0);
    expect(etas.slice(firstKnown).every((x) => x !== null)).toBe(true);
  });

  it('counts bench:study\'s time down, as a guess, until the built-in study has timed a run here', async () => {
    let t = 0;
    const backend = new TestBackend();
    const s = new StudyState(backend, null, new Clock(() => t));
    s.usePreset('builtin');
    const prior = s.estimateSec!;
    expect(prior).toBe(BUILTIN_STUDY_SECONDS);
    const seen: ({ sec: number; guess: string | null } | null)[] = [];
    const at = { plan_key: 'k', runsDone: 0, runsTotal: 12, status: 'running' as const };
    backend.runStudy = async (_plan, onProgress) => {
      onProgress({ ...at, current: null, etaSec: null });
      t += 60_000;
      s.clock.tick(); // the wall clock's tick, a minute on
      seen.push(s.timeLeft);
      onProgress({ ...at, runsDone: 1, current: null, etaSec: 300 });
      seen.push(s.timeLeft);
      throw new Error('stop here');
    };
    await s.start();
    expect(seen[0]!.sec).toBe(prior - 60);
    expect(seen[0]!.guess).toMatch(/^bench:study's time on a 2-core laptop \(WebAssembly\), until a run here is timed$/);
    expect(seen[1]).toEqual({ sec: 300, guess: null });
  });

  it('counts the plan on screen: an edited plan has its own progress and its own report, or none', async () => {
    const s = new StudyState(studyBackend());
    s.planText = JSON.stringify(SMALL);
    await s.start();
    const first = s.report!.plan_key;
    expect(s.runs.filter((r) => r.state === 'done')).toHaveLength(4);
    expect(s.canOpenReport).toBe(true);
    // edited: another budget, and a probe more; nothing of it ran
    s.edit((r) => setField(toggleProbe(r, { probe: 'sampling' }, true), 'budget', 2));
    expect(s.shown).toBeNull(); // the old plan's count is not shown for the new text
    await s.refreshOverview();
    expect(s.shown?.plan_key).not.toBe(first);
    expect(s.runs.map((r) => r.state)).toEqual(Array(6).fill('waiting'));
    expect(s.canOpenReport).toBe(false);
    // back to the first plan: its count and its report
    s.planText = JSON.stringify(SMALL);
    await s.refreshOverview();
    expect(s.runs.filter((r) => r.state === 'done')).toHaveLength(4);
    s.report = null;
    await s.openReport();
    expect(s.report!.plan_key).toBe(first);
  });

  it('a study a closed tab left running is found after a reload, said where it stopped, and resumes', async () => {
    const backend = studyBackend();
    const s = new StudyState(backend);
    s.planText = JSON.stringify(SMALL);
    let paused = false;
    const run = s.start();
    // pause once the first run is done, as a reload would stop it
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        if (!paused && (s.progress?.runsDone ?? 0) >= 1) {
          paused = true;
          void s.pause();
        }
        if (paused) {
          clearInterval(tick);
          resolve();
        }
      }, 1);
    });
    await run;
    await backend.leaveRunning();
    // a fresh page
    const after = new StudyState(backend);
    const stopped = await after.interrupted();
    expect(stopped).toMatchObject({ status: 'interrupted', runsTotal: 4 });
    const done = stopped!.runsDone;
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(4);
    after.showStopped(stopped!);
    expect(JSON.parse(after.planText)).toMatchObject({ models: SMALL.models, budget: SMALL.budget });
    expect(after.notice).toContain(`stopped when its page was closed or reloaded, with ${done} of 4 runs done`);
    expect(after.notice).toContain(`plan ${stopped!.plan_key.slice(0, 12)}`);
    await after.refreshOverview();
    expect(after.runs.filter((r) => r.state === 'done')).toHaveLength(done);
    await after.resume(stopped!);
    expect(after.notice).toBeNull();
    expect(after.runs.every((r) => r.state === 'done')).toBe(true);
    expect(await after.interrupted()).toBeNull();
    expect(after.studies[0]).toMatchObject({ status: 'finished', runsDone: 4 });
  });

  it('each table row opens the runs its numbers come from (labels match the stored runs)', async () => {
    const backend = studyBackend();
    const s = new StudyState(backend);
    s.planText = JSON.stringify({ ...SMALL, probes: [{ probe: 'random-routes' }, { probe: 'sampling' }] });
    await s.start();
    expect(s.report?.missing).toEqual([]);
    const t = Object.fromEntries(studyTables(s.report!).map((x) => [x.id, x]));
    const checked: string[] = [];
    for (const id of ['study-settings', 'study-f2', 'study-f3', 'study-f3-transitions']) {
      for (const row of t[id].runs!) {
        for (const { label, key } of row) {
          const probes = await backend.runProbes(key);
          const want = label.includes('silencing') ? 'mlp-silencing' : label.includes('sampling') ? 'sampling' : 'random-routes';
          expect(probes.at(-1), `${id}: ${label}`).toBe(want);
          checked.push(label);
        }
      }
    }
    expect(checked).toContain('base, sampling');
    expect(checked).toContain('trained, random-routes/blocks');
    expect(checked).toContain('silencing');
  });

  it('the form rewrites the plan text; invalid JSON turns it off; a link carries the plan as written', () => {
    const s = new StudyState(new TestBackend());
    s.planText = JSON.stringify(SMALL);
    s.edit((r) => setField(toggleProbe(r, { probe: 'sampling' }, true), 'budget', 5));
    expect(JSON.parse(s.planText)).toEqual({ ...SMALL, probes: [{ probe: 'random-routes' }, { probe: 'sampling' }], budget: 5 });
    expect('plan' in s.parsed && s.parsed.plan.budget).toBe(5);
    const hash = s.linkHash!;
    expect(hash).toBe(encodeStudyLink(JSON.parse(s.planText)));

    const other = new StudyState(new TestBackend());
    other.applyLink(parseStudyLink(hash)!);
    expect(JSON.parse(other.planText)).toEqual(JSON.parse(s.planText));
    expect(other.linkProblem).toBeNull();
    other.applyLink(parseStudyLink('#study=***')!);
    expect(other.linkProblem).toMatch(/corrupt/);
    expect(JSON.parse(other.planText)).toEqual(JSON.parse(s.planText)); // a corrupt link leaves the editor alone

    s.planText = '{"models": [';
    expect(s.raw).toBeNull();
    expect(s.linkHash).toBeNull();
    s.edit((r) => setField(r, 'budget', 9));
    expect(s.planText).toBe('{"models": [');
  });
});

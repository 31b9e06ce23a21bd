// A study's silencing scan run opened like any run: its defining run found through the stored
// study, the count of questions explained, each question's layer effects by the core's rule, and
// the view server-rendered with the question text kept as text.

import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { loadTask } from '../../audit';
import { FakeEngine } from '../../audit/testing/fake-engine';
import { coreAudit, type CoreAuditInput } from '../../store/core-audit';
import { loadRun } from '../../store/export';
import { MemoryRunStore } from '../../store/memory-store';
import { RunController } from '../../store/run-controller';
import { studyTaskOptions } from '../../store/study';
import { StudyRunner } from '../../store/study-runner';
import { InProcessLocks, TabLocks } from '../../store/tab-lock';
import { definingRef, isScanRun, scanRunView } from '../lib/scan-run';
import { AppState } from '../stores/app.svelte';
import { TestBackend } from '../testing/test-backend';
import SilencingRunView from './SilencingRunView.svelte';

/** "12+34=" → 46 */
const value = (prompt: string) => {
  const m = /^(\d+)([+-])(\d+)=$/.exec(prompt)!;
  return m[2] === '+' ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3]);
};

/** Right on the default route when the answer is even, on any route repeating a layer, and with
 *  layer 2's MLP silenced; any other silenced layer answers 0. */
const engine = () =>
  new FakeEngine({
    numLayers: 4,
    fingerprint: 'fake-A',
    answer: (q) => {
      const v = value(q.prompt);
      if (q.silence.length) return q.silence[0] === 2 ? String(v) : '0';
      if (q.route.join(',') === '0,1,2,3') return v % 2 === 0 ? String(v) : 'x';
      return new Set(q.route).size < q.route.length ? String(v) : 'x';
    },
  });

const PLAN = { name: 'scan view', models: ['A'], tasks: ['builtin:arith-2d'], probes: [{ probe: 'random-routes', space: 'blocks' }], budget: 4, questions: 12, scan: true };

async function studied() {
  const e = engine();
  const controller = new RunController<CoreAuditInput>({ store: new MemoryRunStore(), engine: e, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
  const runner = new StudyRunner(controller, {
    useModel: async (ref) => ({ engine: e, info: (await e.info())!, source: ref }),
    loadTask: (spec, plan) => loadTask(spec, studyTaskOptions(plan)),
    appVersion: 'test',
  });
  await runner.run(PLAN);
  const studies = await runner.list();
  const [scanEntry, defEntry] = [studies[0].runs.find((r) => r.label === 'mlp-silencing')!, studies[0].runs.find((r) => r.label === 'random-routes/blocks')!];
  const scan = await loadRun(controller.store, scanEntry.run_id!);
  const defining = await loadRun(controller.store, defEntry.run_id!);
  return { studies, scan, defining, defEntry };
}

describe('a silencing scan run', () => {
  it('finds its defining run, explains its count, and gives each question its layer effects', async () => {
    const { studies, scan, defining, defEntry } = await studied();
    expect(isScanRun(scan)).toBe(true);
    expect(isScanRun(defining)).toBe(false);
    const ref = definingRef(scan.manifest.id, studies)!;
    expect(ref).toMatchObject({ run_id: defining.manifest.id, run_key: defEntry.run_key, label: 'random-routes/blocks', study: 'scan view' });
    const view = scanRunView(scan, { run: defining, ref });
    // failures: odd answers (wrong at deployment, right on a repeating route); realized: even answers
    const deployed = defining.records.filter((r) => r.probe === 'deployment');
    const odd = deployed.filter((r) => value(r.doc.text.trim()) % 2 !== 0).length;
    const even = deployed.length - odd;
    expect([view.failures, view.realized, view.total]).toEqual([odd, even, scan.manifest.task.questions]);
    expect(odd).toBeGreaterThan(0);
    expect(even).toBeGreaterThan(0);
    expect(view.sentence).toBe(
      `${odd + even} = the ${odd} failure question${odd === 1 ? '' : 's'} (reachable under random routes, not realized) + ${even} realized question${even === 1 ? '' : 's'} of the defining run random-routes/blocks (${defEntry.run_key!.slice(0, 12)}) of the study “scan view”.`,
    );
    expect(view.scanned).toBe(view.total);
    for (const q of view.questions) {
      const v = value(q.view.text.trim());
      if (q.role === 'failure') expect([q.repairs, q.breaks]).toEqual([[2], []]);
      else expect([q.role, q.repairs, q.breaks]).toEqual(['realized', [], v === 0 ? [] : [0, 1, 3]]);
      expect(q.effects.map((e) => e.layers[0])).toEqual([0, 1, 2, 3]);
    }
  });

  it('without its study, says the roles are not known rather than guessing', async () => {
    const { scan } = await studied();
    const view = scanRunView(scan, null);
    expect(view.failures).toBeNull();
    expect(view.sentence).toMatch(/^\d+ questions: the failure and realized questions of the run that defined this scan\. No stored study names that run/);
    expect(view.questions.every((q) => q.role === null && q.repairs.length === 0)).toBe(true);
  });

  it('renders the sentence and one row per question, text kept as text', async () => {
    const { studies, scan, defining } = await studied();
    const view = scanRunView(scan, { run: defining, ref: definingRef(scan.manifest.id, studies)! });
    const evil = { ...view, questions: view.questions.map((q, i) => (i ? q : { ...q, view: { ...q.view, text: '<img src=x onerror=alert(1)>' } })) };
    const app = new AppState(new TestBackend(), null);
    const { body } = render(SilencingRunView, { props: { app, run: scan, initial: evil } });
    expect(body).toContain('data-testid="screen-silencing-run"');
    expect(body).toContain(view.sentence);
    for (const q of view.questions) expect(body).toContain(`data-testid="silencing-run-row-${q.view.doc_id}"`);
    expect(body).toContain(`${view.total} of ${view.total} questions scanned`);
    expect(body).not.toContain('<img');
  });
});

// Server-rendered study rows and the Study screen's notice: studies of one name told apart by plan
// key and date, Resume offered only for a stopped study, untrusted names kept as text.

import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { normalizePlan } from '../../audit/study-plan';
import type { StoredStudyEntry } from '../backend';
import { AppState } from '../stores/app.svelte';
import { TestBackend } from '../testing/test-backend';
import StoredStudies from './StoredStudies.svelte';
import StudyScreen from './StudyScreen.svelte';

const EVIL = 'twin <img src=x onerror=alert(1)>';
const plan = normalizePlan({ name: EVIL, models: ['builtin:micro-arith'], tasks: ['builtin:arith-2d'] });
const run = (done: boolean) => ({ model: 'builtin:micro-arith', task: 'builtin:arith-2d', label: 'random-routes/blocks', run_key: done ? 'e'.repeat(64) : null, run_id: done ? 'run-e' : null, done });
const entry = (key: string, status: StoredStudyEntry['status'], done: number, startedAt: string): StoredStudyEntry => ({
  plan_key: key,
  plan,
  runs: [run(done > 0), run(done > 1)],
  runsDone: done,
  runsTotal: 2,
  status,
  startedAt,
  updatedAt: startedAt,
});

describe('stored studies', () => {
  it('tells two studies of one name apart, and offers Resume only where one stopped', () => {
    const app = new AppState(new TestBackend(), null);
    app.study.studies = [entry('a'.repeat(64), 'interrupted', 1, '2026-12-05T16:01:02.000Z'), entry('b'.repeat(64), 'finished', 2, '2026-12-04T09:30:00.000Z'), entry('c'.repeat(64), 'paused', 0, '2026-12-03T08:00:00.000Z')];
    const { body } = render(StoredStudies, { props: { app, heading: 'Studies', testId: 'library-studies', buttonTestId: 'library-study' } });
    expect(body).toContain(`plan <code>${'a'.repeat(12)}</code>, started 2026-12-05 16:01 UTC: interrupted, 1 of 2 runs done`);
    expect(body).toContain(`plan <code>${'b'.repeat(12)}</code>, started 2026-12-04 09:30 UTC: finished, 2 of 2 runs done`);
    expect(body).toContain(`data-testid="library-study-resume-${'a'.repeat(12)}"`);
    expect(body).toContain(`data-testid="library-study-resume-${'c'.repeat(12)}"`);
    expect(body).not.toContain(`data-testid="library-study-resume-${'b'.repeat(12)}"`);
    // a report only where a run is done
    expect(body).toContain(`data-testid="library-study-${'b'.repeat(12)}"`);
    expect(body).not.toContain(`data-testid="library-study-${'c'.repeat(12)}"`);
    expect(body).not.toContain('<img');
    expect(body).toContain('twin &lt;img');
  });

  it('the Study screen says where a stopped study is, and offers to resume it', () => {
    const app = new AppState(new TestBackend(), null);
    const stopped = entry('a'.repeat(64), 'interrupted', 1, '2026-12-05T16:01:02.000Z');
    app.study.showStopped(stopped);
    const { body } = render(StudyScreen, { props: { app } });
    expect(body).toContain('data-testid="study-notice"');
    expect(body).toContain(`(plan ${'a'.repeat(12)}, started 2026-12-05 16:01 UTC) stopped when its page was closed or reloaded, with 1 of 2 runs done`);
    expect(body).not.toContain('<img');
  });
});

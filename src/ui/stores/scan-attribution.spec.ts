// The scan's per-layer mean attribution on demand: one read-out per failure-set question's
// deployment attempt, progress while it reads, the means from the audit core, and clear failures.
import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import type { AttemptLook, AttemptReadout } from '../../engine/readout';
import { EngineError } from '../../engine/types';
import type { AppBackend } from '../backend';
import { groupByQuestion, silencingOf } from '../lib/analysis';
import { TestBackend, auditedRun } from '../testing/test-backend';
import { AppState } from './app.svelte';
import { ScanAttribution, type ScanAttributionState } from './scan-attribution.svelte';
import SilencingLayers from '../components/SilencingLayers.svelte';

const run = await auditedRun();
const view = silencingOf(run.records);
if (!view || !('scan' in view)) throw new Error('the audited run has a silencing scan');
const scan = view.scan;
const questions = groupByQuestion(run.records);
const failures = questions.filter((q) => scan.failure_set.includes(q.doc_id));
const layers = scan.in_sample.layers.map((l) => l.layer);

/** Layer l's MLP adds −l to gold − emitted, plus the question's own offset (its number). */
const offset = (look: AttemptLook) => failures.findIndex((q) => q.records.some((r) => r.arguments.prompt === look.prompt));
const readoutOf = (look: AttemptLook): AttemptReadout => ({
  kind: 'readout', versus: 'own', route: look.route, silence: look.silence, gold: 1, emitted: 2, goldToken: '1', emittedToken: '2', position: 0, prefix: '', lens: [],
  embed: 0, attribution: look.route.map((layer, position) => ({ position, layer, attn: 5, mlp: offset(look) - layer })), logitDiff: 0, sum: 0, identityError: 0,
});

describe('ScanAttribution', () => {
  it('reads out each failure question once, says how far it is, and averages each layer', async () => {
    expect(failures.length).toBeGreaterThan(1);
    const seen: ScanAttributionState[] = [];
    const looks: AttemptLook[] = [];
    const s = new ScanAttribution({ lookInside: async (_m: unknown, look: AttemptLook) => { seen.push(s.state); looks.push(look); return readoutOf(look); } } as unknown as AppBackend, run);
    await s.compute(failures, layers);
    expect(looks).toHaveLength(failures.length);
    expect(looks.every((l) => l.route.join() === layers.join() && l.silence.length === 0)).toBe(true); // deployment attempts
    expect(seen.map((x) => x.status === 'running' && x.done)).toEqual(failures.map((_, i) => i));
    // mean over questions of (offset − layer) = mean offset − layer
    const meanOffset = (failures.length - 1) / 2;
    expect(s.state).toEqual({ status: 'done', questions: failures.length, layers: layers.map((layer) => ({ layer, mean: expect.closeTo(meanOffset - layer, 12), n: failures.length })) });
  });

  it('says the engine is needed when the page has none, and why a read-out failed', async () => {
    const none = new ScanAttribution({} as AppBackend, run);
    await none.compute(failures, layers);
    expect(none.state).toEqual({ status: 'failed', message: expect.stringMatching(/needs the engine, which this page has not started: load a model on the Setup screen/) });
    const broken = new ScanAttribution({ lookInside: async () => { throw new EngineError('not-loaded', "the run's model m is not the one loaded"); } } as unknown as AppBackend, run);
    await broken.compute(failures, layers);
    expect(broken.state).toEqual({ status: 'failed', message: "The mean attribution failed: the run's model m is not the one loaded. Load a model on the Setup screen first." });
  });

  it('names an empty failure set instead of reading nothing', async () => {
    const s = new ScanAttribution({ lookInside: async () => { throw new Error('no read-out is due'); } } as unknown as AppBackend, run);
    await s.compute([], layers);
    expect(s.state).toEqual({ status: 'failed', message: expect.stringMatching(/^The failure set is empty: no question was reachable without being realized/) });
  });
});

describe('SilencingLayers', () => {
  it('offers the mean attribution beside the per-layer repair counts', () => {
    const app = new AppState(new TestBackend(), null);
    const { body } = render(SilencingLayers, { props: { app, run, scan, questions, fileStem: 'x' } });
    expect(body).toContain('data-testid="scan-attribution-start"');
    expect(body).toContain('Mean attribution over the failure set');
    expect(body).toContain('data-testid="table-silencing-in-sample"');
    expect(body).not.toContain('data-testid="scan-attribution-error"');
  });

  it('with an empty failure set: the button is off and no repair rate reads 0.0%', () => {
    const app = new AppState(new TestBackend(), null);
    const empty = { ...scan, failure_set: [], in_sample: { ...scan.in_sample, layers: scan.in_sample.layers.map((l) => ({ ...l, repaired: 0, failures: 0, repair: { ...l.repair, k: 0, n: 0, rate: 0 } })) } };
    const { body } = render(SilencingLayers, { props: { app, run, scan: empty, questions, fileStem: 'x' } });
    expect(body).toMatch(/<button[^>]*disabled[^>]*data-testid="scan-attribution-start"/);
    expect(body).toContain('— (no failures)');
    expect(body).not.toContain('0.0%');
  });
});

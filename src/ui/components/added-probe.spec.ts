// Adding a probe takes its file and one registry entry, nothing else: a probe of this test's own,
// registered for the test, runs in the real audit (RealBackend over a fake engine) and shows on
// Results beside the app's probes.

import { render } from 'svelte/server';
import { afterAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT, type Probe, type ProbeSpec } from '../../audit';
import { registerProbe } from '../../audit/probes/registry';
import { oneShot } from '../../audit/probes/probe';
import { defaultRoute } from '../../audit/routes';
import { num, obj, oneOf } from '../../util/check';
import { AppState } from '../stores/app.svelte';
import { TestBackend, runToEnd, testSetup } from '../testing/test-backend';
import ResultsScreen from './ResultsScreen.svelte';

/** Silences the last `budget` layers one at a time, on the default route. */
type LateSilenceSpec = { probe: 'late-silence'; budget: number };

const lateSilence: Probe<LateSilenceSpec> = {
  name: 'late-silence',
  label: 'late-layer silence',
  colour: '#000000',
  dash: '1,1',
  role: 'reach',
  schema: obj({ probe: oneOf('late-silence'), budget: num({ min: 1, int: true }) }),
  validate(spec, numLayers) {
    if (spec.budget > numLayers) throw new Error(`late-silence: budget ${spec.budget} exceeds ${numLayers} layers`);
  },
  budget: (spec) => spec.budget,
  maxAttempts: (spec) => spec.budget,
  roundSize: (spec) => spec.budget,
  sawGold: false,
  curve: 'first-success',
  needsGeneration: true,
  start: (spec, _q, ctx) => oneShot(Array.from({ length: spec.budget }, (_, i) => ({ route: defaultRoute(ctx.numLayers), silence: [ctx.numLayers - 1 - i] }))),
  describe: (spec) => `late-layer silence ×${spec.budget}`,
};

describe('a probe added in a registry of the test', () => {
  const remove = registerProbe(lateSilence);
  afterAll(remove);

  it('runs in the real audit and renders on Results', async () => {
    const backend = new TestBackend();
    const run = await runToEnd(backend, testSetup([{ probe: DEPLOYMENT }, { probe: 'late-silence', budget: 3 } as unknown as ProbeSpec], 6));
    const records = run.records.filter((r) => (r.probe as string) === 'late-silence');
    expect(records).toHaveLength(6);
    // each attempt is the one its start() asked for: layer 7, 6, 5 silenced in turn
    for (const r of records) expect(r.attempts.map((a) => a.silence)).toEqual([[7], [6], [5]]);
    expect(backend.engines[0].generated.filter((q) => q.silence.length > 0)).toHaveLength(6 * 3);
    const { body } = render(ResultsScreen, { props: { app: new AppState(backend, null), run } });
    const rates = body.split('data-testid="table-rates"')[1].split('</table>')[0];
    expect(rates).toContain('late-layer silence');
  });
});

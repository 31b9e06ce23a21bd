// End to end on a reference checkpoint with the real engine (WASM EP in Node).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../engine/types';
import { defaultCondition } from './condition';
import { blocksSpace, colaMcts, randomRoutes, samplingCeiling, silencingAllLayers } from './presets';
import { routeToString } from './routes';
import { runAudit } from './run';
import { silencingScan } from './silencing';
import { loadTask } from './tasks/index';
import type { ProbeSpec } from './types';

const ENGINE = path.resolve(__dirname, '../engine/engine.ts');
const CKPT = path.resolve(__dirname, '../../test/fixtures/reference/tiny-qwen2');
const haveEngine = existsSync(ENGINE);

describe.skipIf(!haveEngine)(`audit on tiny-qwen2 with the real engine${haveEngine ? '' : ' (skipped: src/engine/engine.ts does not exist yet)'}`, () => {
  let engine: Engine;
  beforeAll(async () => {
    const { createEngine } = await import('../engine/engine');
    engine = createEngine();
    await engine.load({ kind: 'fs', dir: CKPT }, { ep: 'wasm', dtype: 'f32' });
  });
  afterAll(async () => engine?.dispose());

  it('runs deployment, random routes, MCTS, sampling and silencing; records are reproducible and batching changes nothing', async () => {
    const task = await loadTask('builtin:arith-2d', { questions: 3, trainQuestions: 4, seed: 1 });
    const info = (await engine.info())!;
    expect(info.numLayers).toBe(6);
    const condition = defaultCondition(task.spec, info.dtype);
    const space = blocksSpace(6, { maxEdits: 1 });
    const probes: ProbeSpec[] = [
      { probe: 'deployment' },
      randomRoutes(space, 4, 1, true),
      colaMcts(6, 3, 1),
      samplingCeiling(2, 1),
      silencingAllLayers(6),
    ];
    const a = await runAudit(engine, { task, condition, probes, selectors: ['majority', 'max-logprob'] });
    expect(a.records).toHaveLength(3 * 5);
    expect(a.model_fingerprint).toBe(info.fingerprint);
    for (const r of a.records) {
      const want = r.probe === 'deployment' ? 1 : r.probe === 'mlp-silencing' ? 6 : r.probe === 'sampling' ? 2 : r.probe === 'mcts-routes' ? 3 : 4;
      expect(r.attempts).toHaveLength(want);
      for (const at of r.attempts) {
        // the random checkpoint answers noise: graded, never crashing; extracted is a number or [invalid]
        expect(at.extracted).toMatch(/^(-?\d+(\.\d+)?(\/\d+)?|\[invalid\])$/);
        expect(at.response).not.toContain('\n');
      }
    }
    // byte-identical on a rerun with another batch size (1 row per engine call)
    const b = await runAudit(engine, { task, condition, probes, selectors: ['majority', 'max-logprob'], rowsPerCall: 1 });
    expect(JSON.stringify(b.records)).toBe(JSON.stringify(a.records));
    // one attempt redone alone through the engine gives the recorded response
    const rr = a.records.find((r) => r.probe === 'random-routes')!;
    const at = rr.attempts[2];
    const ids = await engine.encode(rr.arguments.prompt);
    const [alone] = await engine.generate([{ promptIds: ids, route: at.route!, silence: [], sampling: { kind: 'greedy' } }], {
      maxNewTokens: condition.maxNewTokens,
      stopStrings: condition.stopSequences,
    });
    expect(alone.text).toBe(at.response);
    expect(routeToString(at.route!)).not.toBe('0,1,2,3,4,5');
  });

  it('scores option letters by log-likelihood and scans silencing on a stored run', async () => {
    const task = await loadTask('builtin:arith-2d-mc', { questions: 3, trainQuestions: 0, seed: 2 });
    const condition = defaultCondition(task.spec, 'f32');
    expect(condition.mcMode).toBe('loglik');
    const run = await runAudit(engine, { task, condition, probes: [{ probe: 'deployment' }, randomRoutes(blocksSpace(6, { maxEdits: 1 }), 6, 3, false)] });
    for (const r of run.records) for (const a of r.attempts) expect(['A', 'B', 'C', 'D']).toContain(a.extracted);
    const { scan } = await silencingScan(engine, { task, condition, records: run.records });
    expect(scan.in_sample.layers).toHaveLength(6);
    expect(scan.failure_set.length + scan.realized_set.length).toBeLessThanOrEqual(3);
    for (const l of scan.in_sample.layers) expect(l.repaired).toBeLessThanOrEqual(l.failures);
    expect(scan.identification.doc_ids.length + scan.evaluation.doc_ids.length).toBe(scan.failure_set.length);
  });
});

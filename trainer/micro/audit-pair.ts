// The base/trained audit quoted on the RL model's card: both checkpoints audited by ReachLab's own
// engine and audit core (exactly what `npm run -s audit` runs), then compared question by question.

import path from 'node:path';
import { compareRecords, defaultCondition, loadTask, randomRoutes, blocksSpace, runAudit, samplingCeiling, type AuditResult, type CheckpointComparison } from '../../src/audit/index';
import { createEngine } from '../../src/engine/engine';

export interface PairAudit {
  questions: number;
  budget: number;
  base: { routes: AuditResult; sampling: AuditResult };
  trained: { routes: AuditResult; sampling: AuditResult };
  /** Trained vs base: deployed Δ, and the ceiling Δ under random routes and under sampling. */
  routes: CheckpointComparison;
  sampling: CheckpointComparison;
}

/** Audits both model folders on the built-in arithmetic test questions (question seed 1): random
 *  routes (blocks, budget B, seed 1) and sampling (pass@B, T 0.6, seed 1), each with deployment. */
export async function auditPair(baseDir: string, trainedDir: string, questions = 200, budget = 32): Promise<PairAudit> {
  const task = await loadTask('builtin:arith-2d', { questions, seed: 1 });
  const condition = defaultCondition(task.spec, 'f32');
  const audit = async (dir: string) => {
    const engine = createEngine();
    await engine.load({ kind: 'fs', dir: path.resolve(dir) }, { ep: 'wasm', dtype: 'f32' });
    try {
      const L = (await engine.info())!.numLayers;
      const routes = await runAudit(engine, { task, condition, probes: [{ probe: 'deployment' }, randomRoutes(blocksSpace(L), budget, 1)] });
      const sampling = await runAudit(engine, { task, condition, probes: [{ probe: 'deployment' }, samplingCeiling(budget, 1)] });
      return { routes, sampling };
    } finally {
      await engine.dispose();
    }
  };
  const base = await audit(baseDir);
  const trained = await audit(trainedDir);
  return {
    questions,
    budget,
    base,
    trained,
    routes: compareRecords(base.routes.records, trained.routes.records),
    sampling: compareRecords(base.sampling.records, trained.sampling.records),
  };
}

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

export interface ModelAudit {
  questions: number;
  budget: number;
  routes: AuditResult;
  sampling: AuditResult;
}

/** Audits one model folder on the built-in arithmetic test questions (question seed 1), exactly as
 *  `npm run -s audit -- --task builtin:arith-2d --questions Q --probe random-routes --space blocks
 *  --budget B --seed 1` does: random routes (blocks, budget B, seed 1) and sampling (pass@B, T 0.6,
 *  seed 1), each with deployment. */
export async function auditModel(dir: string, questions = 200, budget = 32): Promise<ModelAudit> {
  const task = await loadTask('builtin:arith-2d', { questions, seed: 1 });
  const condition = defaultCondition(task.spec, 'f32');
  const engine = createEngine();
  await engine.load({ kind: 'fs', dir: path.resolve(dir) }, { ep: 'wasm', dtype: 'f32' });
  try {
    const L = (await engine.info())!.numLayers;
    const routes = await runAudit(engine, { task, condition, probes: [{ probe: 'deployment' }, randomRoutes(blocksSpace(L), budget, 1)] });
    const sampling = await runAudit(engine, { task, condition, probes: [{ probe: 'deployment' }, samplingCeiling(budget, 1)] });
    return { questions, budget, routes, sampling };
  } finally {
    await engine.dispose();
  }
}

/** Audits both model folders as auditModel does, then compares them question by question. */
export async function auditPair(baseDir: string, trainedDir: string, questions = 200, budget = 32): Promise<PairAudit> {
  const base = await auditModel(baseDir, questions, budget);
  const trained = await auditModel(trainedDir, questions, budget);
  return {
    questions,
    budget,
    base: { routes: base.routes, sampling: base.sampling },
    trained: { routes: trained.routes, sampling: trained.sampling },
    routes: compareRecords(base.routes.records, trained.routes.records),
    sampling: compareRecords(base.sampling.records, trained.sampling.records),
  };
}
